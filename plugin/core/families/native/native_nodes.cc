// SPDX-License-Identifier: GPL-2.0-or-later
#include "families/native/native_nodes.h"

#include <algorithm>

#include "families/native/native_common.h"

namespace sm {
namespace {

using native::NodeCounts;
using native::NodeView;
using native::Spec;
using native::Unit;
using native::Width;

using PerNode = native::MemberRow<NodeView>;

// Every node record, FUTURE and unlisted ones included.
const PerNode kPerNode[] = {
    {{"slurm_node_cpus", "Total number of cpus in the node", Width::k16},
     &NodeView::cpus},
    {{"slurm_node_cpus_alloc", "Allocated cpus in the node", Width::k16},
     &NodeView::cpus_alloc},
    {{"slurm_node_cpus_effective",
      "CPUs allocatable to jobs not reserved for system usage", Width::k16},
     &NodeView::cpus_efctv},
    {{"slurm_node_cpus_idle", "Idle cpus in the node", Width::k16},
     &NodeView::cpus_idle},
    {{"slurm_node_gpus", "Total number of GPUs in the node", Width::k64},
     &NodeView::gpus},
    {{"slurm_node_gpus_alloc",
      "Number of GPUs currently allocated by jobs on the node", Width::k64},
     &NodeView::gpus_alloc},
    // Slurm prints these four in MB despite their names.
    {{"slurm_node_memory_alloc_bytes", "Bytes allocated to jobs in the node",
      Width::k64, Unit::kMiB},
     &NodeView::mem_alloc_mb},
    {{"slurm_node_memory_effective_bytes",
      "Memory allocatable to jobs not reserved for system usage", Width::k64,
      Unit::kMiB},
     &NodeView::mem_avail_mb},
    {{"slurm_node_memory_free_bytes", "Free memory in bytes of the node",
      Width::k64, Unit::kMiB},
     &NodeView::mem_free_mb},
    {{"slurm_node_memory_bytes", "Total memory in bytes of the node",
      Width::k64, Unit::kMiB},
     &NodeView::mem_total_mb},
};

struct Total {
  Spec spec;
  uint64_t NodeCounts::*value;
  // What metrics/openmetrics prints instead, where it reads the wrong field.
  uint64_t NodeCounts::*native_value = nullptr;
};

// All uint16 in Slurm (nodes_stats_t and the local total_node_cnt).
const Total kTotals[] = {
    {{"slurm_nodes", "Total number of nodes", Width::k16}, &NodeCounts::nodes},
    {{"slurm_nodes_alloc", "Number of nodes in Allocated state", Width::k16},
     &NodeCounts::alloc},
    {{"slurm_nodes_blocked", "Number of nodes in Blocked state", Width::k16},
     &NodeCounts::blocked},
    {{"slurm_nodes_completing", "Number of nodes with Completing flag",
      Width::k16},
     &NodeCounts::cg},
    {{"slurm_nodes_cloud", "Number of Cloud nodes", Width::k16},
     &NodeCounts::cloud},
    {{"slurm_nodes_down", "Number of nodes in Down state", Width::k16},
     &NodeCounts::down},
    {{"slurm_nodes_drain", "Number of nodes with Drain flag", Width::k16},
     &NodeCounts::drain},
    {{"slurm_nodes_drained", "Number of drained nodes", Width::k16},
     &NodeCounts::drained},
    {{"slurm_nodes_draining",
      "Number of nodes in draining condition (Drain state with active jobs)",
      Width::k16},
     &NodeCounts::draining},
    {{"slurm_nodes_dyn_future", "Number of future dynamic nodes", Width::k16},
     &NodeCounts::dyn_future},
    {{"slurm_nodes_dyn_normal", "Number of dynamic nodes", Width::k16},
     &NodeCounts::dyn_normal},
    {{"slurm_nodes_external", "Number of external nodes", Width::k16},
     &NodeCounts::external},
    {{"slurm_nodes_fail", "Number of nodes with Fail flag", Width::k16},
     &NodeCounts::fail},
    {{"slurm_nodes_future", "Number of nodes in Future state", Width::k16},
     &NodeCounts::future},
    {{"slurm_nodes_idle", "Number of nodes in Idle state", Width::k16},
     &NodeCounts::idle},
    {{"slurm_nodes_invalid_reg",
      "Number of nodes with Invalid Registration flag", Width::k16},
     &NodeCounts::invalid_reg},
    {{"slurm_nodes_maint", "Number of nodes with Maintenance flag", Width::k16},
     &NodeCounts::maint},
    {{"slurm_nodes_mixed", "Number of nodes in Mixed state", Width::k16},
     &NodeCounts::mixed},
    {{"slurm_nodes_noresp", "Number of nodes with Not Responding flag",
      Width::k16},
     &NodeCounts::no_resp},
    {{"slurm_nodes_planned", "Number of nodes with Planned flag", Width::k16},
     &NodeCounts::planned},
    {{"slurm_nodes_power_down", "Number of nodes marked to be powered down",
      Width::k16},
     &NodeCounts::power_down},
    {{"slurm_nodes_power_up", "Number of nodes marked to be powered up",
      Width::k16},
     &NodeCounts::power_up},
    {{"slurm_nodes_powered_down", "Number of nodes powered down", Width::k16},
     &NodeCounts::powered_down},
    // openmetrics.c feeds this from the POWERING_DOWN count; the real
    // powering-up count is never printed by Slurm.
    {{"slurm_nodes_powering_up", "Number of nodes powering up", Width::k16},
     &NodeCounts::powering_up,
     &NodeCounts::powering_down},
    {{"slurm_nodes_reboot_issued", "Number of nodes with Reboot Issued flag",
      Width::k16},
     &NodeCounts::reboot_issued},
    {{"slurm_nodes_reboot_req", "Number of nodes with Reboot Requested flag",
      Width::k16},
     &NodeCounts::reboot_requested},
    {{"slurm_nodes_resv", "Number of nodes with Reserved flag", Width::k16},
     &NodeCounts::resv},
    {{"slurm_nodes_unknown", "Number of nodes in Unknown state", Width::k16},
     &NodeCounts::unknown},
};

constinit const native::Table<PerNode> kPerNodeTable(kPerNode, "node");
constinit const native::Table<Total> kTotalTable(kTotals, "");

}  // namespace

std::span<const FamilyDef* const> NativeNodeFamilies() {
  return native::FamiliesOf<kPerNodeTable, kTotalTable>();
}

void AddNativeNodeFamilies(MetricSet& set, const NodeSnapshot& snap,
                           const RenderOptions& opts,
                           std::span<const std::string_view> skip) {
  const auto& kPerNodeDefs = kPerNodeTable.defs();
  const auto& kTotalDefs = kTotalTable.defs();
  const bool nv = opts.native_values;
  auto skipped = [&](std::string_view name) {
    return std::find(skip.begin(), skip.end(), name) != skip.end();
  };

  const std::vector<NodeView> views = native::ViewNodes(snap, nv);
  // The per-node families this body carries, as indices into kPerNode.
  std::vector<size_t> rows;
  std::vector<native::Emitter> per_node;
  for (size_t i = 0; i < std::size(kPerNode); ++i) {
    if (skipped(kPerNode[i].spec.name)) continue;
    rows.push_back(i);
    per_node.emplace_back(set, kPerNodeDefs[i], kPerNode[i].spec, nv);
  }
  NodeCounts counts;
  for (const NodeView& v : views) {
    for (size_t k = 0; k < rows.size(); ++k)
      per_node[k].Add(v.node->name, v.*kPerNode[rows[k]].value);
    counts.Add(v, /*rewritten=*/false);
  }
  for (size_t i = 0; i < std::size(kTotals); ++i) {
    const Total& t = kTotals[i];
    if (skipped(t.spec.name)) continue;
    native::Emitter(set, kTotalDefs[i], t.spec, nv)
        .Add(counts.*(nv && t.native_value ? t.native_value : t.value));
  }
}

}  // namespace sm
