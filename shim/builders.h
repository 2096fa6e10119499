// SPDX-License-Identifier: GPL-2.0-or-later
// Slurm's own records built from the JSON model, with Slurm's allocators,
// the way slurmctld holds them: one builder per kind of record, called in
// this order by LoadClusterState() (controller.cc) under all of
// slurmctld's write locks. Each builder has the matching release function.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "model.h"
#include "records.h"

namespace shim {

// The node table as the other builders look it up.
struct NodeTable {
  std::unordered_map<std::string, int> slot;  // name -> slot
  std::vector<int64_t> gpus_used;             // per slot, from tres_used
};

// node_record_table_ptr and node_record_count, in input order (slurmctld's
// table order), with each node's config_record_t and gres/gpu entry.
// `states` are the nodes' node_state words (NodeStateOf()).
NodeTable BuildNodes(const std::vector<NodeIn>& nodes,
                     const std::vector<uint32_t>& states);
void FreeNodes();

using PartitionTable = std::unordered_map<std::string, part_record_t*>;

// part_list: the partitions dump's order, then partitions first named by
// nodes, then by jobs; node membership and the totals _build_part_bitmap()
// keeps.
PartitionTable BuildPartitions(const ClusterIn& in,
                               const std::vector<NodeIn>& nodes);
void FreePartitions();

// resv_list: the reservations dump (`dumped`, may be null), then one
// reservation per other name in the nodes' `reservation`, active for as
// long as the replay runs.
void BuildReservations(const std::vector<NodeIn>& nodes, const NodeTable& table,
                       const std::vector<ReservationIn>* dumped);
void FreeReservations();

// slurmctld's license list (licenses.c), behind get_all_license_info(),
// which the shim defines as slurmctld does for the release.
void BuildLicenses(const std::vector<LicenseIn>& licenses);

// slurm.conf's NodeSet= lines and topology/block's blocks, served where
// slurmctld's read_config.c and topology interface would
// (build_node_groups.cc); an empty ClusterIn clears them.
void BuildNodeGroups(const ClusterIn& in);
void FreeLicenses();

// assoc_mgr's TRES table (the built-in TRES, or `tres_names` in sshare's
// order, plus what the QoS limits name) and QoS list. Takes assoc_mgr's
// write locks itself; call before BuildJobs() (jobs' TRES arrays follow the
// table).
void BuildQos(const std::vector<QosIn>& qos, const std::vector<std::string>& tres_names);
void FreeQos();

// assoc_mgr's associations and root from sshare's lines; makes the replay's
// priority plugin multifactor with Fair Tree. Takes assoc_mgr's write lock.
void BuildAssociations(const std::vector<ShareIn>& shares);
void FreeAssociations();

// What a running or suspended job holds per node slot (CPUs, MB), before
// BuildAllocations() makes it the job's job_resources.
struct JobAlloc {
  job_record_t* job;
  bool running;  // running jobs hold CPUs; suspended ones only memory
  std::map<int, std::pair<int64_t, int64_t>> per_node;  // slot -> cpus, MB
};

// job_list in input order. `states` and `reasons` are the jobs' job_state
// and state_reason (JobStateOf(), ReasonOf()).
std::vector<JobAlloc> BuildJobs(const std::vector<JobIn>& jobs,
                                const std::vector<uint32_t>& states,
                                const std::vector<uint32_t>& reasons,
                                const NodeTable& nodes,
                                const PartitionTable& partitions);
void FreeJobs();

// The jobs' job_resources, made to add up per node to what the node dump
// says is allocated (the node dump is the authority; jobs carry it), and a
// warning wherever the plugin's MIXED will differ from the dump's.
void BuildAllocations(std::vector<JobAlloc>& allocs,
                      const std::vector<NodeIn>& nodes,
                      const std::vector<uint32_t>& states,
                      const NodeTable& table);

}  // namespace shim
