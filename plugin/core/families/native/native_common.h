// SPDX-License-Identifier: GPL-2.0-or-later
// What the five paths of Slurm's own metrics/openmetrics plugin share:
// family tables that carry Slurm's printed integer widths, its empty-label
// rule, and its node and job classification (src/slurmctld/statistics.c at
// slurm-26-05-3-1; docs/native-semantics.md is the write-up). By default we
// print what the names promise (bytes, full-width sums, counters typed as
// counters); RenderOptions::native_values reproduces Slurm's own numbers.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <mutex>
#include <span>
#include <string_view>
#include <vector>

#include "base/immortal.h"
#include "exposition/exposition.h"
#include "model/snapshot.h"

namespace sm::native {

// The C type metrics/openmetrics hands its printer. Slurm sums CPUs and
// counts nodes in uint16 and prints some uint64 fields as UINT32, so its
// numbers wrap; under native_values we cut to this width too.
enum class Width : uint8_t { k16, k32, k64 };

// kMiB: Slurm's value is in MB although the name or HELP says bytes. We
// scale to bytes by default and keep MB under native_values.
enum class Unit : uint8_t { kNone, kMiB };

struct Spec {
  std::string_view name;
  std::string_view help;  // verbatim from openmetrics.c
  Width width = Width::k32;
  Unit unit = Unit::kNone;
  // Grows monotonically between resets: typed counter by default. Slurm
  // types every family gauge, and so do we under native_values.
  bool counter = false;
};

// A table row: a family and the member of `Of` (a node, a partition or
// totals of either) it prints.
template <typename Of, typename Value = uint64_t>
struct MemberRow {
  Spec spec;
  Value Of::*value;
};

// The value as printed: Slurm's width under native_values, else full and
// in bytes where the unit asks for it.
double Printed(uint64_t v, const Spec& spec, bool native_values);

// One Spec's FamilyDefs: as typed by default, and all-gauge for
// native_values. metrics/openmetrics drops a label whose value is empty or
// NULL (the sample's `slurm_account_jobs 6`); we print it with an empty
// value instead (`slurm_account_jobs{account=""} 6`): Prometheus stores
// both as the same series, and a family keeps one set of label names, as
// client_golang's registry requires.
struct FamilyDefs {
  FamilyDef typed;
  FamilyDef gauge;
};

FamilyDefs MakeDefs(const Spec& spec, std::string_view label);

// Fills one family of a MetricSet.
class Emitter {
 public:
  Emitter(MetricSet& set, const FamilyDefs& defs, const Spec& spec,
          bool native_values);
  void Add(uint64_t value);                          // unlabelled family
  void Add(std::string_view label, uint64_t value);

 private:
  const Spec* spec_;
  bool native_;
  Family* family_;
};

// A table of rows, each with a Spec (the member `spec` by default), and
// the label its families carry: one family per row. The FamilyDefs are
// built on first use and never freed (they must outlive every MetricSet
// that points at them; base/immortal.h). Constant-initialised, so a table
// may be a namespace-scope object.
template <typename Row>
class Table {
 public:
  template <size_t N>
  constexpr Table(const Row (&rows)[N], std::string_view label,
                  Spec Row::*spec = &Row::spec)
      : rows_(rows), label_(label), spec_(spec) {}

  std::span<const Row> rows() const { return rows_; }
  const Spec& spec(size_t i) const { return rows_[i].*spec_; }
  const std::vector<FamilyDefs>& defs() const {
    std::call_once(once_, [this] {
      std::vector<FamilyDefs> defs;
      for (size_t i = 0; i < rows_.size(); ++i)
        defs.push_back(MakeDefs(spec(i), label_));
      defs_ = &Immortal(std::move(defs));
    });
    return *defs_;
  }
  // An emitter for every row, in table order.
  std::vector<Emitter> Emitters(MetricSet& set, bool native_values) const {
    std::vector<Emitter> out;
    out.reserve(rows_.size());
    for (size_t i = 0; i < rows_.size(); ++i)
      out.emplace_back(set, defs()[i], spec(i), native_values);
    return out;
  }

 private:
  std::span<const Row> rows_;
  std::string_view label_;
  Spec Row::*spec_;
  mutable std::once_flag once_;
  mutable const std::vector<FamilyDefs>* defs_ = nullptr;
};

// The typed FamilyDef of every row of `tables`, in order, made once: what
// the family registry lists for a native group (family_registry.h).
std::vector<const FamilyDef*> TypedDefs(
    std::initializer_list<std::span<const FamilyDefs>> tables);
template <const auto&... tables>
std::span<const FamilyDef* const> FamiliesOf() {
  static const auto& kAll = Immortal(TypedDefs({tables.defs()...}));
  return kAll;
}

// ---- Nodes (statistics_get_nodes) -----------------------------------------

// One node as statistics_get_nodes() sees it.
struct NodeView {
  const Node* node = nullptr;
  NodeBase counted = NodeBase::kNone;  // Node::statistics_base
  uint64_t cpus = 0;
  uint64_t cpus_alloc = 0;
  uint64_t cpus_efctv = 0;
  uint64_t cpus_idle = 0;  // effective - allocated
  uint64_t gpus = 0;
  uint64_t gpus_alloc = 0;
  uint64_t mem_alloc_mb = 0;
  uint64_t mem_avail_mb = 0;  // real - specialized
  uint64_t mem_free_mb = 0;
  uint64_t mem_total_mb = 0;
  // IS_NODE_DRAINING on slurmctld's record (the nodes path) and on the
  // copy whose base was rewritten to MIXED (the partitions path).
  bool draining = false;
  bool draining_rewritten = false;
};

NodeView ViewNode(const Node& n, bool native_values);

// Node counts and sums, as the nodes path totals them for the cluster and
// the partitions path for each partition.
struct NodeCounts {
  uint64_t nodes = 0;
  uint64_t alloc = 0;
  uint64_t blocked = 0;
  uint64_t cg = 0;
  uint64_t cloud = 0;
  uint64_t down = 0;
  uint64_t drain = 0;
  uint64_t drained = 0;
  uint64_t draining = 0;
  uint64_t dyn_future = 0;
  uint64_t dyn_normal = 0;
  uint64_t external = 0;
  uint64_t fail = 0;
  uint64_t future = 0;
  uint64_t idle = 0;
  uint64_t invalid_reg = 0;
  uint64_t maint = 0;
  uint64_t mixed = 0;
  uint64_t no_resp = 0;
  uint64_t planned = 0;
  uint64_t power_down = 0;
  uint64_t power_up = 0;
  uint64_t powered_down = 0;
  uint64_t powering_down = 0;
  uint64_t powering_up = 0;
  uint64_t reboot_issued = 0;
  uint64_t reboot_requested = 0;
  uint64_t resv = 0;
  uint64_t unknown = 0;
  uint64_t cpus_alloc = 0;
  uint64_t cpus_efctv = 0;
  uint64_t cpus_idle = 0;
  uint64_t gpus = 0;
  uint64_t mem_alloc_mb = 0;
  uint64_t mem_avail_mb = 0;
  uint64_t mem_free_mb = 0;
  uint64_t mem_total_mb = 0;

  // `rewritten`: take the drain tests on the MIXED-rewritten copy, as the
  // partitions path does.
  void Add(const NodeView& v, bool rewritten);
};

// Every node record metrics/openmetrics walks: the listed nodes, then the
// ones clients do not list.
std::vector<NodeView> ViewNodes(const NodeSnapshot& snap, bool native_values);

// ---- Jobs (statistics_get_jobs) -------------------------------------------

// Aggregates of a set of job records (jobs_stats_t, plus the per-partition
// extras of partition_stats_t).
struct JobTotals {
  uint64_t tasks = 0;          // Σ array task count: slurm_jobs
  uint64_t records = 0;        // records: slurm_{user,account}_jobs
  uint64_t not_completed = 0;  // records: slurm_partition_jobs
  uint64_t bootfail = 0;
  uint64_t cancelled = 0;
  uint64_t completed = 0;
  uint64_t completing = 0;
  uint64_t configuring = 0;
  uint64_t cpus_alloc = 0;
  uint64_t deadline = 0;
  uint64_t expediting = 0;
  uint64_t failed = 0;
  uint64_t fed_requeued = 0;
  uint64_t finished = 0;
  uint64_t gpus_alloc = 0;
  uint64_t hold = 0;
  uint64_t memory_alloc_mb = 0;
  uint64_t node_failed = 0;
  // After Finish(): distinct nodes, or with `per_record` the sum over the
  // records (JobSnapshot::native_nodes_alloc_per_record).
  uint64_t nodes_alloc = 0;
  uint64_t oom = 0;
  uint64_t pending = 0;
  uint64_t powerup_node = 0;
  uint64_t preempted = 0;
  uint64_t requeued = 0;
  uint64_t resizing = 0;
  uint64_t revoked = 0;
  uint64_t running = 0;
  uint64_t signaling = 0;
  uint64_t stageout = 0;
  uint64_t started = 0;
  uint64_t suspended = 0;
  uint64_t timeout = 0;
  uint64_t wait_part_node_limit = 0;
  uint64_t max_job_nodes = 0;
  uint64_t max_job_nodes_nohold = 0;
  uint64_t min_job_nodes = 0;
  uint64_t min_job_nodes_nohold = 0;

  void Add(const Job& j, bool native_values);
  void Finish(bool per_record = false);

 private:
  std::vector<uint32_t> alloc_nodes_;
  uint64_t record_nodes_ = 0;
};

}  // namespace sm::native
