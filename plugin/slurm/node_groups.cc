// SPDX-License-Identifier: GPL-2.0-or-later
#include "node_groups.h"

#include <strings.h>

#include <cstdlib>
#include <string>
#include <string_view>
#include <unordered_map>

#include "adapter_util.h"
#include "topology_block_abi.h"
#if SM_SLURM_AT_LEAST(23, 11)
extern "C" {
#include "src/interfaces/topology.h"
}
#endif

namespace sm::slurm {
namespace {

// Whether the comma-separated `features` has `feature` as one of its words.
bool HasFeature(const char* features, std::string_view feature) {
  if (!features || feature.empty()) return false;
  std::string_view rest = features;
  while (!rest.empty()) {
    const size_t comma = rest.find(',');
    if (rest.substr(0, comma) == feature) return true;
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return false;
}

#if SM_SLURM_AT_LEAST(23, 11)
// The default topology's data, as _slurm_rpc_get_topo() asks for it.
// What the call stored is returned even when it failed (23.11's
// topology_g_topology_get() stores its wrapper first): the caller frees it.
dynamic_plugin_data_t* GetTopology(bool& ok) {
  dynamic_plugin_data_t* info = nullptr;
#if SM_SLURM_AT_LEAST(25, 5)
  ok = topology_g_get(TOPO_DATA_TOPOLOGY_PTR, nullptr, &info) == SLURM_SUCCESS;
#elif SM_SLURM_AT_LEAST(24, 5)
  ok = topology_g_get(TOPO_DATA_TOPOLOGY_PTR, &info) == SLURM_SUCCESS;
#else
  ok = topology_g_topology_get(&info) == SLURM_SUCCESS;
#endif
  return info;
}

void FreeTopology(dynamic_plugin_data_t* info) {
  if (!info) return;
#if SM_SLURM_AT_LEAST(25, 11)
  topology_g_topoinfo_free(info);
#else
  topology_g_topology_free(info);
#endif
}

// Whether this slurmctld's topology may be topology/block: its
// TopologyPlugin up to 24.11; from 25.05 a topology.yaml may name the
// plugin instead, so the answer's plugin id decides.
bool MayBeBlock() {
#if SM_SLURM_AT_LEAST(25, 5)
  return true;
#else
  return slurm_conf.topology_plugin && strstr(slurm_conf.topology_plugin, "block");
#endif
}
#endif

}  // namespace

void CopyNodeSetsLocked(NodeGroupCopy& c, Arena& arena, size_t slots) {
  c.nodesets.clear();
  slurm_conf_nodeset_t** lines = nullptr;
  const int count = slurm_conf_nodeset_array(&lines);
  bool any_feature = false;
  for (int i = 0; i < count; ++i) {
    if (!lines[i] || !lines[i]->name) continue;
    NodeSetLine& l = c.nodesets.emplace_back();
    l.name = arena.StoreCString(lines[i]->name);
    l.nodes = arena.StoreCString(lines[i]->nodes);
    l.feature = arena.StoreCString(lines[i]->feature);
    any_feature = any_feature || !l.feature.empty();
  }
  c.feature_set_by_slot.clear();
  if (!any_feature) return;
  c.feature_set_by_slot.assign(slots, -1);
  node_record_t* node;
  for (int i = 0; (node = next_node(&i)); ++i) {
    if (static_cast<size_t>(node->index) >= slots) continue;
    for (size_t s = 0; s < c.nodesets.size(); ++s) {
      if (!HasFeature(node->features, c.nodesets[s].feature)) continue;
      c.feature_set_by_slot[node->index] = static_cast<int32_t>(s);
      break;
    }
  }
}

void CopyBlocks(NodeGroupCopy& c, [[maybe_unused]] Arena& arena,
                [[maybe_unused]] LockTiming& timing) {
  c.blocks.clear();
#if SM_SLURM_AT_LEAST(23, 11)
  slurmctld_lock_t locks = {};
  locks.node = READ_LOCK;  // what _slurm_rpc_get_topo() holds
  TimedLock lock(locks, timing);
  // Shutdown frees the topology plugin after the node table (controller.c
  // calls topology_g_fini() before our fini()): once it began, no call.
  // MayBeBlock() reads slurm_conf, which a reconfigure (under the write
  // locks) replaces: under the lock too.
  if (slurmctld_config.shutdown_time || !MayBeBlock()) return;
  bool ok = false;
  dynamic_plugin_data_t* info = GetTopology(ok);
  if (ok && info && info->plugin_id == TOPOLOGY_PLUGIN_BLOCK && info->data) {
    const auto* blocks = static_cast<const abi::BlockTopology*>(info->data);
    for (uint32_t i = 0; i < blocks->record_count; ++i) {
      const abi::BlockRecord& r = blocks->records[i];
      if (abi::IsAggregated(r) || !r.name) continue;
      c.blocks.push_back({arena.StoreCString(r.name), arena.StoreCString(r.nodes)});
    }
  }
  FreeTopology(info);
#endif
}

void AssignNodeGroups(const NodeGroupCopy& c, const std::vector<uint32_t>& slot_of,
                      NodeSnapshot& snap) {
  if (c.nodesets.empty() && c.blocks.empty()) return;
  // Each list's hosts are walked and looked up by name, so the cost
  // follows what the lists name (a topology of 18-node blocks names each
  // node once): asking every node of every list would be nodes x lists,
  // seconds per collection at 10,000 nodes and 556 blocks
  // (docs/performance.md, "Topology labels"). A list naming more hosts
  // than kWalkFactor x the nodes (n[0-999999999] is one range) is asked
  // per node instead, of Slurm's own host list: its cost then follows the
  // nodes and the list's ranges, never the hosts it names.
  constexpr size_t kWalkFactor = 4;
  std::unordered_map<std::string_view, Node*> by_name;
  by_name.reserve(snap.nodes.size());
  for (Node& n : snap.nodes) by_name.emplace(n.name, &n);
  const size_t walk_limit = kWalkFactor * snap.nodes.size() + 64;
  const auto each_member = [&](std::string_view list, auto&& visit) {
    if (list.empty()) return;
    const std::string text(list);
#if SM_SLURM_AT_LEAST(23, 11)
    // nodespec_to_hostlist(): a NodeSet's Nodes=ALL is every node.
    if (strcasecmp(text.c_str(), "ALL") == 0) {
      for (Node& n : snap.nodes) visit(n);
      return;
    }
#endif
    auto hl = hostlist_create(text.c_str());
    if (!hl) return;
    const int hosts = hostlist_count(hl);
    auto it = hosts >= 0 && static_cast<size_t>(hosts) <= walk_limit
                  ? hostlist_iterator_create(hl)
                  : nullptr;
    if (it) {
      while (char* host = hostlist_next(it)) {  // strdup()ed: free()
        const auto found = by_name.find(std::string_view(host));
        free(host);
        if (found != by_name.end()) visit(*found->second);
      }
      hostlist_iterator_destroy(it);
    } else {
      std::string name;  // NUL-terminated for Slurm; one buffer for every node
      for (Node& n : snap.nodes) {
        name.assign(n.name);
        if (hostlist_find(hl, name.c_str()) >= 0) visit(n);
      }
    }
    hostlist_destroy(hl);
  };
  // slurm.conf order: a node in two NodeSet= lines takes the first one.
  for (size_t s = 0; s < c.nodesets.size(); ++s) {
    const NodeSetLine& l = c.nodesets[s];
    for (size_t i = 0; i < snap.nodes.size() && !c.feature_set_by_slot.empty(); ++i) {
      Node& n = snap.nodes[i];
      const size_t slot = slot_of[i];
      if (n.nodeset.empty() && slot < c.feature_set_by_slot.size() &&
          c.feature_set_by_slot[slot] == static_cast<int32_t>(s))
        n.nodeset = l.name;
    }
    each_member(l.nodes, [&](Node& n) {
      if (n.nodeset.empty()) n.nodeset = l.name;
    });
  }
  for (const BlockLine& b : c.blocks)
    each_member(b.nodes, [&](Node& n) {
      if (n.nvlink_instance_group.empty()) n.nvlink_instance_group = b.name;
    });
}

}  // namespace sm::slurm
