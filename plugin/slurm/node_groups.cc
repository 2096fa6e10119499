// SPDX-License-Identifier: GPL-2.0-or-later
#include "node_groups.h"

#include <string>
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
dynamic_plugin_data_t* GetTopology() {
  dynamic_plugin_data_t* info = nullptr;
#if SM_SLURM_AT_LEAST(25, 5)
  if (topology_g_get(TOPO_DATA_TOPOLOGY_PTR, nullptr, &info) != SLURM_SUCCESS) info = nullptr;
#elif SM_SLURM_AT_LEAST(24, 5)
  if (topology_g_get(TOPO_DATA_TOPOLOGY_PTR, &info) != SLURM_SUCCESS) info = nullptr;
#else
  if (topology_g_topology_get(&info) != SLURM_SUCCESS) info = nullptr;
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
  if (!MayBeBlock()) return;
  slurmctld_lock_t locks = {};
  locks.node = READ_LOCK;  // what _slurm_rpc_get_topo() holds
  TimedLock lock(locks, timing);
  // Shutdown frees the topology plugin after the node table (controller.c
  // calls topology_g_fini() before our fini()): once it began, no call.
  if (slurmctld_config.shutdown_time) return;
  dynamic_plugin_data_t* info = GetTopology();
  if (info && info->plugin_id == TOPOLOGY_PLUGIN_BLOCK && info->data) {
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
  std::unordered_map<std::string_view, Node*> by_name;
  by_name.reserve(snap.nodes.size());
  for (Node& n : snap.nodes) by_name.emplace(n.name, &n);
  // A host list may name far more hosts than exist (n[0-99999999]): walk at
  // most this many of each, which covers every node of this slurmctld.
  const size_t walk_limit = 2 * snap.nodes.size() + 1024;
  const auto each_host = [&](std::string_view list, auto&& visit) {
    if (list.empty()) return;
    const std::string text(list);
    auto hl = hostlist_create(text.c_str());
    if (!hl) return;
    char* host;
    for (size_t n = 0; n < walk_limit && (host = hostlist_shift(hl)); ++n) {
      const auto it = by_name.find(host);
      if (it != by_name.end()) visit(*it->second);
      free(host);
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
    each_host(l.nodes, [&](Node& n) {
      if (n.nodeset.empty()) n.nodeset = l.name;
    });
  }
  for (const BlockLine& b : c.blocks)
    each_host(b.nodes, [&](Node& n) {
      if (n.nvlink_instance_group.empty()) n.nvlink_instance_group = b.name;
    });
}

}  // namespace sm::slurm
