// SPDX-License-Identifier: GPL-2.0-or-later
// What a Soperator cluster writes into Slurm's own configuration about its
// nodes, read back for the labels Soperator's exporter takes from
// Kubernetes (docs/metrics.md, "Where nodeset_name and
// nvlink_instance_group come from"): the NodeSet= lines of slurm.conf and,
// with topology/block, the base blocks of topology.conf.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "base/arena.h"
#include "model/snapshot.h"
#include "source.h"

namespace sm::slurm {

// One NodeSet= line: Nodes= (a Slurm host list) and/or Feature=.
struct NodeSetLine {
  std::string_view name, nodes, feature;
};

// One base block of topology/block: BlockName= and its Nodes=.
struct BlockLine {
  std::string_view name, nodes;
};

struct NodeGroupCopy {
  std::vector<NodeSetLine> nodesets;
  // Per node slot, the first NodeSet= line (index into nodesets) whose
  // Feature= the node has, or -1; filled only when a line has a Feature=.
  std::vector<int32_t> feature_set_by_slot;
  std::vector<BlockLine> blocks;
};

// Under slurmctld's conf and node read locks (CopyNodesLocked): the
// NodeSet= lines, as nodespec_to_hostlist() reads them
// (slurm_conf_nodeset_array()), and the Feature= matches. No allocation
// while `nodesets` and `feature_set_by_slot` have room.
void CopyNodeSetsLocked(NodeGroupCopy& c, Arena& arena, size_t slots);

// The base blocks, read as slurmctld answers `scontrol show topology`:
// under the node read lock alone, taken here (23.11 and later; earlier
// releases have no topology/block and leave `blocks` empty). Allocates
// under that lock, as slurmctld's own answer does: up to 24.11 only with
// topology/block configured; from 25.05, where a topology.yaml may name
// the plugin, whatever the default topology is (flat: one small wrapper).
void CopyBlocks(NodeGroupCopy& c, Arena& arena, LockTiming& timing);

// Off-lock: each listed node's nodeset (the first NodeSet= line holding
// it, by Nodes= or Feature=) and block. `slot_of` gives a listed node's
// slot, in the order of snap.nodes.
void AssignNodeGroups(const NodeGroupCopy& c, const std::vector<uint32_t>& slot_of,
                      NodeSnapshot& snap);

}  // namespace sm::slurm
