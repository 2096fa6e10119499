// SPDX-License-Identifier: GPL-2.0-or-later
#include "families/native/native_common.h"

#include <algorithm>
#include <iterator>
#include <utility>

namespace sm::native {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;

uint64_t NonNegative(int64_t v) { return v > 0 ? static_cast<uint64_t>(v) : 0; }

uint64_t Truncate(uint64_t v, Width w) {
  switch (w) {
    case Width::k16: return v & 0xffffu;
    case Width::k32: return v & 0xffffffffu;
    case Width::k64: return v;
  }
  return v;
}

}  // namespace

double Printed(uint64_t v, const Spec& spec, bool native_values) {
  if (native_values) return static_cast<double>(Truncate(v, spec.width));
  const double d = static_cast<double>(v);
  return spec.unit == Unit::kMiB ? d * kMiB : d;
}

FamilyDefs MakeDefs(const Spec& spec, std::string_view label) {
  const MetricType typed =
      spec.counter ? MetricType::kCounter : MetricType::kGauge;
  LabelNames labels;
  if (!label.empty()) labels.push_back(label);
  return {FamilyDef{spec.name, spec.help, typed, labels},
          FamilyDef{spec.name, spec.help, MetricType::kGauge, labels}};
}

std::vector<const FamilyDef*> TypedDefs(
    std::initializer_list<std::span<const FamilyDefs>> tables) {
  std::vector<const FamilyDef*> out;
  for (std::span<const FamilyDefs> table : tables)
    for (const FamilyDefs& defs : table) out.push_back(&defs.typed);
  return out;
}

Emitter::Emitter(MetricSet& set, const FamilyDefs& defs, const Spec& spec,
                 bool native_values)
    : spec_(&spec),
      native_(native_values),
      family_(&set.Add(native_values ? defs.gauge : defs.typed)) {}

void Emitter::Add(uint64_t value) {
  family_->Add(std::span<const std::string_view>(),
               Printed(value, *spec_, native_));
}

void Emitter::Add(std::string_view label, uint64_t value) {
  family_->Add({label}, Printed(value, *spec_, native_));
}

NodeView ViewNode(const Node& n, bool native_values) {
  NodeView v;
  v.node = &n;
  v.counted = n.statistics_base;
  v.cpus = NonNegative(n.cpus.value_or(0));
  v.cpus_alloc = NonNegative(n.alloc_cpus.value_or(0));
  v.cpus_efctv = NonNegative(n.effective_cpus.value_or(n.cpus.value_or(0)));
  // Slurm: uint16 idle = cpus_efctv - alloc_cpus, wrapping if the select
  // plugin ever reports more than the effective CPUs.
  v.cpus_idle = native_values ? (v.cpus_efctv - v.cpus_alloc) & 0xffffu
                : v.cpus_efctv > v.cpus_alloc ? v.cpus_efctv - v.cpus_alloc
                                              : 0;
  v.gpus = NonNegative(native_values ? n.gpus_tres : n.gpus_total);
  v.gpus_alloc = NonNegative(n.gpus_alloc);
  v.mem_alloc_mb = NonNegative(n.alloc_memory_mb.value_or(0));
  v.mem_total_mb = NonNegative(n.real_memory_mb.value_or(0));
  const uint64_t spec_mb = NonNegative(n.specialized_memory_mb.value_or(0));
  // Slurm subtracts in uint64; a specialization above RealMemory wraps.
  v.mem_avail_mb = native_values              ? v.mem_total_mb - spec_mb
                   : v.mem_total_mb > spec_mb ? v.mem_total_mb - spec_mb
                                              : 0;
  v.mem_free_mb = NonNegative(n.free_memory_mb.value_or(0));  // NO_VAL64: 0
  // The nodes path tests slurmctld's record, the partitions path the copy
  // whose base statistics_get_nodes() rewrote to its class.
  v.draining = IsDraining(n.stored_base, n.state.flags);
  v.draining_rewritten = IsDraining(n.statistics_base, n.state.flags);
  return v;
}

namespace {

using NodeCount = uint64_t NodeCounts::*;
using JobCount = uint64_t JobTotals::*;

// The count each base state adds to, by NodeBase (statistics_get_nodes()
// counts no other).
constexpr NodeCount kNodeByBase[] = {
    nullptr,               // kNone
    &NodeCounts::unknown,  // kUnknown
    &NodeCounts::down,     // kDown
    &NodeCounts::idle,     // kIdle
    &NodeCounts::alloc,    // kAllocated
    nullptr,               // kError
    &NodeCounts::mixed,    // kMixed
    &NodeCounts::future,   // kFuture
};
static_assert(std::size(kNodeByBase) == static_cast<size_t>(NodeBase::kFuture) + 1);

// The count each node flag adds to.
constexpr std::pair<uint32_t, NodeCount> kNodeByFlag[] = {
    {node_flag::kCompleting, &NodeCounts::cg},
    {node_flag::kBlocked, &NodeCounts::blocked},
    {node_flag::kCloud, &NodeCounts::cloud},
    {node_flag::kDynamicFuture, &NodeCounts::dyn_future},
    {node_flag::kDynamicNorm, &NodeCounts::dyn_normal},
    {node_flag::kExternal, &NodeCounts::external},
    {node_flag::kFail, &NodeCounts::fail},
    {node_flag::kInvalidReg, &NodeCounts::invalid_reg},
    {node_flag::kMaintenance, &NodeCounts::maint},
    {node_flag::kNotResponding, &NodeCounts::no_resp},
    {node_flag::kPlanned, &NodeCounts::planned},
    {node_flag::kPowerDown, &NodeCounts::power_down},
    {node_flag::kPowerUp, &NodeCounts::power_up},
    {node_flag::kPoweredDown, &NodeCounts::powered_down},
    {node_flag::kPoweringDown, &NodeCounts::powering_down},
    {node_flag::kPoweringUp, &NodeCounts::powering_up},
    {node_flag::kRebootIssued, &NodeCounts::reboot_issued},
    {node_flag::kRebootRequested, &NodeCounts::reboot_requested},
    {node_flag::kReserved, &NodeCounts::resv},
};

// The count each job base state adds a record to, by JobBase; pending
// counts an array's tasks instead (JobTotals::Add).
constexpr JobCount kJobByBase[] = {
    nullptr,                   // kPending
    &JobTotals::running,       // kRunning
    &JobTotals::suspended,     // kSuspended
    &JobTotals::completed,     // kCompleted
    &JobTotals::cancelled,     // kCancelled
    &JobTotals::failed,        // kFailed
    &JobTotals::timeout,       // kTimeout
    &JobTotals::node_failed,   // kNodeFail
    &JobTotals::preempted,     // kPreempted
    &JobTotals::bootfail,      // kBootFail
    &JobTotals::deadline,      // kDeadline
    &JobTotals::oom,           // kOutOfMemory
};
static_assert(std::size(kJobByBase) == static_cast<size_t>(JobBase::kOutOfMemory) + 1);

// The count each job flag adds to.
constexpr std::pair<uint32_t, JobCount> kJobByFlag[] = {
    {job_flag::kCompleting, &JobTotals::completing},
    {job_flag::kConfiguring, &JobTotals::configuring},
    {job_flag::kExpediting, &JobTotals::expediting},
    {job_flag::kRequeueFed, &JobTotals::fed_requeued},
    {job_flag::kPowerUpNode, &JobTotals::powerup_node},
    {job_flag::kRequeue, &JobTotals::requeued},
    {job_flag::kResizing, &JobTotals::resizing},
    {job_flag::kRevoked, &JobTotals::revoked},
    {job_flag::kSignaling, &JobTotals::signaling},
    {job_flag::kStageOut, &JobTotals::stageout},
};

}  // namespace

void NodeCounts::Add(const NodeView& v, bool rewritten) {
  const NodeState& s = v.node->state;
  ++nodes;
  if (const NodeCount base = kNodeByBase[static_cast<size_t>(v.counted)])
    ++(this->*base);
  // Slurm: `if DRAINING draining++ else if DRAIN drain++` and
  // `if DRAINED drained++`, DRAINED being DRAIN && !DRAINING: so drain and
  // drained always agree.
  const bool is_draining = rewritten ? v.draining_rewritten : v.draining;
  if (is_draining)
    ++draining;
  else if (s.has(node_flag::kDrain))
    ++drain;
  if (s.has(node_flag::kDrain) && !is_draining) ++drained;
  for (const auto& [flag, count] : kNodeByFlag) this->*count += s.has(flag);
  cpus_alloc += v.cpus_alloc;
  cpus_efctv += v.cpus_efctv;
  cpus_idle += v.cpus_idle;
  gpus += v.gpus;
  mem_alloc_mb += v.mem_alloc_mb;
  mem_avail_mb += v.mem_avail_mb;
  mem_free_mb += v.mem_free_mb;
  mem_total_mb += v.mem_total_mb;
}

std::vector<NodeView> ViewNodes(const NodeSnapshot& snap, bool native_values) {
  std::vector<NodeView> out;
  out.reserve(snap.nodes.size() + snap.unlisted_nodes.size());
  for (const Node& n : snap.nodes) out.push_back(ViewNode(n, native_values));
  for (const Node& n : snap.unlisted_nodes)
    out.push_back(ViewNode(n, native_values));
  return out;
}

void JobTotals::Add(const Job& j, bool native_values) {
  const bool is_pending = j.state == JobBase::kPending;
  const bool held = is_pending && j.held;
  // An array's pending meta record stands for its remaining tasks; only
  // the task-counting families multiply by it.
  const uint64_t cnt = j.array_pending_tasks ? j.array_pending_tasks : 1;
  tasks += cnt;
  ++records;
  if (const JobCount base = kJobByBase[static_cast<size_t>(j.state)])
    ++(this->*base);
  if (is_pending) {
    pending += cnt;
    if (held) hold += cnt;
  }
  const bool is_finished = IsFinished(j.state);
  for (const auto& [flag, count] : kJobByFlag)
    this->*count += (j.flags & flag) != 0;
  finished += is_finished;
  started += IsStarted(j.state);
  // IS_JOB_COMPLETED: finished and no longer completing.
  if (!is_finished || (j.flags & job_flag::kCompleting)) ++not_completed;

  // Slurm tests a bit of the reason (any reason with that bit, in any
  // state); the family means "waiting for the partition node limit".
  wait_part_node_limit += native_values ? j.reason_has_part_node_limit_bit
                                        : j.waits_part_node_limit;

  if (j.state == JobBase::kRunning || j.state == JobBase::kSuspended) {
    cpus_alloc += NonNegative(j.cpus_alloc);
    // Slurm sums the gres/gpu TRES, 0 unless AccountingStorageTRES has
    // it; by default the allocated GRES (docs/metrics-native.md).
    gpus_alloc += NonNegative(native_values ? j.gpus_tres : j.gpus_alloc);
    memory_alloc_mb += NonNegative(j.memory_alloc_mb);
    alloc_nodes_.insert(alloc_nodes_.end(), j.node_indices.begin(),
                        j.node_indices.end());
    record_nodes_ += j.node_indices.size();
  }

  if (is_pending) {
    // Slurm keeps min_nodes and MAX(max_nodes, min_nodes) in uint16 per
    // job before taking the maximum; max_nodes 0 means "no maximum".
    uint64_t jmin = j.min_nodes;
    if (native_values) jmin &= 0xffffu;
    uint64_t jmax = std::max<uint64_t>(j.max_nodes, jmin);
    if (native_values) jmax &= 0xffffu;
    max_job_nodes = std::max(max_job_nodes, jmax);
    min_job_nodes = std::max(min_job_nodes, jmin);
    if (!held) {
      max_job_nodes_nohold = std::max(max_job_nodes_nohold, jmax);
      min_job_nodes_nohold = std::max(min_job_nodes_nohold, jmin);
    }
  }
}

void JobTotals::Finish(bool per_record) {
  std::sort(alloc_nodes_.begin(), alloc_nodes_.end());
  nodes_alloc = per_record
                    ? record_nodes_
                    : static_cast<uint64_t>(
                          std::unique(alloc_nodes_.begin(), alloc_nodes_.end()) -
                          alloc_nodes_.begin());
  alloc_nodes_.clear();
}

}  // namespace sm::native
