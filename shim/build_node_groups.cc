// SPDX-License-Identifier: GPL-2.0-or-later
// The NodeSet= lines of slurm.conf and topology/block's base blocks, as
// the shim's inputs describe them (model.h, ClusterIn::nodesets and
// blocks), served to the plugin where slurmctld's read_config.c and its
// topology interface would (plugin/slurm/node_groups.cc reads them through
// slurm_conf_nodeset_array() and topology_g_get()). Without such inputs:
// no NodeSet= lines and no topology, as on a cluster without them.
#include <vector>

#include "builders.h"
#include "topology_block_abi.h"
#if SM_SLURM_AT_LEAST(23, 11)
extern "C" {
#include "src/interfaces/topology.h"
}
#endif

namespace shim {
namespace {

std::vector<slurm_conf_nodeset_t*> nodeset_lines;
std::vector<sm::slurm::abi::BlockRecord> block_records;

void Clear() {
  for (slurm_conf_nodeset_t* l : nodeset_lines) {
    xfree(l->name);
    xfree(l->nodes);
    xfree(l->feature);
    xfree(l);
  }
  nodeset_lines.clear();
  for (auto& b : block_records) {
    xfree(b.name);
    xfree(b.nodes);
  }
  block_records.clear();
}

}  // namespace

// Under WriteLockAll (LoadClusterState), as slurmctld changes both only
// under its write locks.
void BuildNodeGroups(const ClusterIn& in) {
  Clear();
  for (const NodeSetIn& s : in.nodesets) {
    auto* l = static_cast<slurm_conf_nodeset_t*>(xmalloc(sizeof(slurm_conf_nodeset_t)));
    l->name = Dup(s.name);
    l->nodes = Dup(s.nodes);
    l->feature = Dup(s.feature);
    nodeset_lines.push_back(l);
  }
  for (const BlockIn& b : in.blocks) {
    sm::slurm::abi::BlockRecord r{};
#if SM_SLURM_AT_LEAST(24, 11)
    r.aggregated = b.aggregated;
#else
    // 23.11 and 24.05's block plugin answers with base blocks only
    // (topology_block_abi.h).
    if (b.aggregated) continue;
#endif
    r.block_index = static_cast<uint16_t>(block_records.size());
    r.name = Dup(b.name);
    r.nodes = Dup(b.nodes);
    block_records.push_back(r);
  }
#if SM_SLURM_AT_LEAST(23, 11) && !SM_SLURM_AT_LEAST(25, 5)
  // Up to 24.11 the plugin asks topology_g_get() only when slurm.conf's
  // TopologyPlugin names topology/block (plugin/slurm/node_groups.cc,
  // MayBeBlock), as the slurm.conf of a cluster with blocks does.
  xfree(slurm_conf.topology_plugin);
  if (!block_records.empty()) slurm_conf.topology_plugin = xstrdup("topology/block");
#endif
}

}  // namespace shim

extern "C" int slurm_conf_nodeset_array(slurm_conf_nodeset_t** ptr_array[]) {
  *ptr_array = shim::nodeset_lines.empty() ? nullptr : shim::nodeset_lines.data();
  return static_cast<int>(shim::nodeset_lines.size());
}

#if SM_SLURM_AT_LEAST(23, 11)
namespace {

// A copy, as the block plugin makes one for each request.
int TopologyCopy(dynamic_plugin_data_t** info) {
  *info = nullptr;
  if (shim::block_records.empty()) return SLURM_ERROR;  // as with no topology
  auto* topo = static_cast<sm::slurm::abi::BlockTopology*>(
      xmalloc(sizeof(sm::slurm::abi::BlockTopology)));
  topo->record_count = static_cast<uint32_t>(shim::block_records.size());
  topo->records = static_cast<sm::slurm::abi::BlockRecord*>(
      xcalloc(topo->record_count, sizeof(sm::slurm::abi::BlockRecord)));
  for (uint32_t i = 0; i < topo->record_count; ++i) {
    topo->records[i] = shim::block_records[i];
    topo->records[i].name = xstrdup(shim::block_records[i].name);
    topo->records[i].nodes = xstrdup(shim::block_records[i].nodes);
  }
  *info = static_cast<dynamic_plugin_data_t*>(xmalloc(sizeof(dynamic_plugin_data_t)));
  (*info)->data = topo;
  (*info)->plugin_id = TOPOLOGY_PLUGIN_BLOCK;
  return SLURM_SUCCESS;
}

int TopologyFree(dynamic_plugin_data_t* info) {
  if (!info) return SLURM_SUCCESS;
  if (auto* topo = static_cast<sm::slurm::abi::BlockTopology*>(info->data)) {
    for (uint32_t i = 0; i < topo->record_count; ++i) {
      xfree(topo->records[i].name);
      xfree(topo->records[i].nodes);
    }
    xfree(topo->records);
    xfree(topo);
  }
  xfree(info);
  return SLURM_SUCCESS;
}

}  // namespace

extern "C" {
#if SM_SLURM_AT_LEAST(25, 5)
int topology_g_get(topology_data_t type, char*, void* data) {
  if (type != TOPO_DATA_TOPOLOGY_PTR) return SLURM_ERROR;
  return TopologyCopy(static_cast<dynamic_plugin_data_t**>(data));
}
#elif SM_SLURM_AT_LEAST(24, 5)
int topology_g_get(topology_data_t type, void* data) {
  if (type != TOPO_DATA_TOPOLOGY_PTR) return SLURM_ERROR;
  return TopologyCopy(static_cast<dynamic_plugin_data_t**>(data));
}
#else
int topology_g_topology_get(dynamic_plugin_data_t** info) { return TopologyCopy(info); }
#endif
#if SM_SLURM_AT_LEAST(25, 11)
int topology_g_topoinfo_free(dynamic_plugin_data_t* info) { return TopologyFree(info); }
#else
int topology_g_topology_free(dynamic_plugin_data_t* info) { return TopologyFree(info); }
#endif
}
#endif
