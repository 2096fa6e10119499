// SPDX-License-Identifier: GPL-2.0-or-later
#include "families/soperator/soperator_nodes.h"

#include <algorithm>
#include <array>
#include <optional>

#include "model/node_state.h"
#include "model/tres.h"
#include "base/utf8.h"
#include "families/family_rows.h"

namespace sm {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;

// Soperator trims reservation names so one long name cannot blow label
// limits downstream.
constexpr size_t kReservationNameMaxRunes = 50;

// Every family of this file, in the order they are added.
enum Def {
  kNvlinkGroup, kNodeInfo, kCpusTotal, kCpusAllocated, kCpusIdle, kCpusEffective,
  kMemoryTotal, kMemoryAllocated, kMemoryFree, kMemoryEffective, kPartition,
};
const FamilyDef kDefs[] = {
    // Soperator's NVLink mapping: for the nodes in a base block of
    // topology/block (node_groups.h; docs/metrics.md, "Where nodeset_name
    // and nvlink_instance_group come from").
    {"slurm_node_nvlink_instance_group",
     "Mapping between Slurm nodes and NVLink instance groups",
     MetricType::kGauge,
     {"node_name", "instance_id", "nvlink_instance_group", "nodeset_name"}},
    {"slurm_node_info",
     "Slurm node info",
     MetricType::kGauge,
     {"node_name", "instance_id", "state_base", "state_is_drain",
      "state_is_maintenance", "state_is_reserved", "state_is_completing",
      "state_is_fail", "state_is_planned", "state_is_not_responding",
      "state_is_invalid", "state_is_cloud", "state_is_power_down",
      "state_is_power_drain", "state_is_powered_down",
      "state_is_powering_down", "state_is_powering_up", "state_is_power_up",
      "is_unavailable", "reservation_name", "address", "reason", "comment"}},
    {"slurm_node_cpus_total", "Total CPUs on the node",
     MetricType::kGauge, {"node_name"}},
    {"slurm_node_cpus_allocated",
     "CPUs allocated on the node",
     MetricType::kGauge, {"node_name"}},
    {"slurm_node_cpus_idle", "Idle CPUs on the node",
     MetricType::kGauge, {"node_name"}},
    {"slurm_node_cpus_effective",
     "Effective CPUs on the node",
     MetricType::kGauge, {"node_name"}},
    {"slurm_node_memory_total_bytes",
     "Total memory on the node in bytes",
     MetricType::kGauge, {"node_name"}},
    {"slurm_node_memory_allocated_bytes",
     "Allocated memory on the node in bytes",
     MetricType::kGauge, {"node_name"}},
    {"slurm_node_memory_free_bytes",
     "Free memory on the node in bytes",
     MetricType::kGauge, {"node_name"}},
    {"slurm_node_memory_effective_bytes",
     "Effective memory on the node in bytes",
     MetricType::kGauge, {"node_name"}},
    {"slurm_node_partition",
     "Slurm node partition mapping", MetricType::kGauge,
     {"node_name", "partition"}},
};
static_assert(std::size(kDefs) == kPartition + 1);

// slurm_node_info as Soperator's open change to it has it: nodeset_name
// third (docs/soperator.md, "NodeInfoNodesetLabel"). The encoders sort
// label names, so its place matters only to AddInfo's values.
constexpr size_t kNodesetAt = 2;
constexpr FamilyDef WithNodeset(FamilyDef def) {
  LabelNames labels;
  for (size_t i = 0; i < def.labels.size(); ++i) {
    if (i == kNodesetAt) labels.push_back("nodeset_name");
    labels.push_back(def.labels[i]);
  }
  def.labels = labels;
  return def;
}
const FamilyDef kNodeInfoWithNodeset = WithNodeset(kDefs[kNodeInfo]);

// A family to fill, or a sink that keeps nothing when `skip` names it.
class Target {
 public:
  Target(MetricSet& set, const FamilyDef& def,
         std::span<const std::string_view> skip)
      : family_(std::find(skip.begin(), skip.end(), def.name) == skip.end()
                    ? &set.Add(def)
                    : nullptr) {}
  void Add(std::initializer_list<std::string_view> values, double value) {
    if (family_) family_->Add(values, value);
  }
  void Add(std::span<const std::string_view> values, double value) {
    if (family_) family_->Add(values, value);
  }
 private:
  Family* family_;
};

void AddInfo(Target& f, const Node& n, bool nodeset_label) {
  using namespace node_flag;
  const NodeState& s = n.state;
  std::array<std::string_view, 24> values = {n.name, n.instance_id, NodeBaseName(s.base),
         TrueFalse(s.has(kDrain)), TrueFalse(s.has(kMaintenance)),
         TrueFalse(s.has(kReserved)), TrueEmpty(s.has(kCompleting)),
         TrueEmpty(s.has(kFail)), TrueEmpty(s.has(kPlanned)),
         TrueEmpty(s.has(kNotResponding)), TrueEmpty(s.has(kInvalid)),
         TrueEmpty(s.has(kCloud)), TrueEmpty(s.has(kPowerDown)),
         TrueEmpty(s.has(kPowerDrain)), TrueEmpty(s.has(kPoweredDown)),
         TrueEmpty(s.has(kPoweringDown)), TrueEmpty(s.has(kPoweringUp)),
         TrueEmpty(s.has(kPowerUp)), TrueEmpty(IsUnavailable(s)),
         TruncateCodePoints(n.reservation, kReservationNameMaxRunes),
         n.address, n.reason, n.comment, {}};
  if (!nodeset_label) return f.Add(std::span(values).first(values.size() - 1), 1);
  std::move_backward(values.begin() + kNodesetAt, values.end() - 1, values.end());
  values[kNodesetAt] = n.nodeset;
  f.Add(values, 1);
}

}  // namespace

std::span<const FamilyDef* const> SoperatorNodeFamilies() {
  return FamilyList<kDefs>();
}

void AddSoperatorNodeFamilies(MetricSet& set, const NodeSnapshot& snap,
                              std::span<const std::string_view> skip, bool nodeset_label) {
  Target nvlink(set, kDefs[kNvlinkGroup], skip);
  Target info(set, nodeset_label ? kNodeInfoWithNodeset : kDefs[kNodeInfo], skip);
  Target cpus_total(set, kDefs[kCpusTotal], skip);
  Target cpus_allocated(set, kDefs[kCpusAllocated], skip);
  Target cpus_idle(set, kDefs[kCpusIdle], skip);
  Target cpus_effective(set, kDefs[kCpusEffective], skip);
  Target mem_total(set, kDefs[kMemoryTotal], skip);
  Target mem_allocated(set, kDefs[kMemoryAllocated], skip);
  Target mem_free(set, kDefs[kMemoryFree], skip);
  Target mem_effective(set, kDefs[kMemoryEffective], skip);
  Target partition(set, kDefs[kPartition], skip);

  for (const Node& n : snap.nodes) {
    const std::string_view name[] = {n.name};
    // The configured TRES is the fallback for CPU and memory totals.
    std::optional<Tres> tres;
    bool tres_parsed = false;
    auto fallback = [&]() -> const std::optional<Tres>& {
      if (!tres_parsed) tres = ParseTres(n.tres);
      tres_parsed = true;
      return tres;
    };

    if (!n.nvlink_instance_group.empty())
      nvlink.Add({n.name, n.instance_id, n.nvlink_instance_group, n.nodeset}, 1);
    AddInfo(info, n, nodeset_label);
    if (n.cpus) {
      cpus_total.Add(name, *n.cpus);
    } else if (fallback() && fallback()->cpus > 0) {
      cpus_total.Add(name, fallback()->cpus);
    }
    if (n.alloc_cpus) cpus_allocated.Add(name, *n.alloc_cpus);
    if (n.alloc_idle_cpus) cpus_idle.Add(name, *n.alloc_idle_cpus);
    if (n.effective_cpus) cpus_effective.Add(name, *n.effective_cpus);
    if (n.real_memory_mb) {
      mem_total.Add(name, *n.real_memory_mb * kMiB);
    } else if (fallback() && fallback()->memory_bytes > 0) {
      mem_total.Add(name, fallback()->memory_bytes);
    }
    if (n.alloc_memory_mb) mem_allocated.Add(name, *n.alloc_memory_mb * kMiB);
    if (n.free_memory_mb) mem_free.Add(name, *n.free_memory_mb * kMiB);
    if (n.real_memory_mb) {
      const int64_t effective = std::max<int64_t>(
          0, *n.real_memory_mb - n.specialized_memory_mb.value_or(0));
      mem_effective.Add(name, effective * kMiB);
    } else if (fallback() && fallback()->memory_bytes > 0) {
      mem_effective.Add(name, fallback()->memory_bytes);  // no spec. memory
    }
    for (std::string_view p : n.partitions) partition.Add({n.name, p}, 1);
  }
}

}  // namespace sm
