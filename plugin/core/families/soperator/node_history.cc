// SPDX-License-Identifier: GPL-2.0-or-later
#include "families/soperator/node_history.h"

#include "families/family_rows.h"
#include "model/node_state.h"
#include "model/tres.h"

namespace sm {

const double kNodeEventBuckets[16] = {
    30,    60,    300,   600,    1800,   3600,   7200,    14400,
    28800, 43200, 86400, 172800, 259200, 604800, 1209600, 2592000};

namespace {

enum Def { kGpuSeconds, kFails, kUnavailability, kDraining };
const FamilyDef kDefs[] = {
    {"slurm_node_gpu_seconds_total",
     "Total GPU seconds on Slurm nodes",
     MetricType::kCounter,
     {"node_name", "state_base", "state_is_drain", "state_is_maintenance",
      "state_is_reserved"}},
    {"slurm_node_fails_total",
     "Total number of times a node has failed (went from not down/drain to "
     "down/drain state)",
     MetricType::kCounter,
     {"node_name", "state_base", "state_is_drain", "state_is_maintenance",
      "state_is_reserved", "reason"}},
    {"slurm_node_unavailability_duration_seconds",
     "Duration of completed node unavailability events (DOWN+* or "
     "IDLE+DRAIN+*)",
     MetricType::kHistogram,
     {"node_name"},
     kNodeEventBuckets},
    {"slurm_node_draining_duration_seconds",
     "Duration of completed node draining events (DRAIN+ALLOCATED or "
     "DRAIN+MIXED)",
     MetricType::kHistogram,
     {"node_name"},
     kNodeEventBuckets},
};
static_assert(std::size(kDefs) == kDraining + 1);

NodeHistory::StateKey MakeStateKey(const Node& n) {
  using namespace node_flag;
  return {std::string(n.name), std::string(NodeBaseName(n.state.base)),
          std::string(TrueFalse(n.state.has(kDrain))),
          std::string(TrueFalse(n.state.has(kMaintenance))),
          std::string(TrueFalse(n.state.has(kReserved)))};
}

std::string FailReason(std::string_view reason) {
  if (reason.size() <= kMaxFailReasonBytes) return std::string(reason);
  constexpr std::string_view kMarker = "...[truncated]";
  size_t keep = kMaxFailReasonBytes - kMarker.size();
  // Not inside a UTF-8 sequence (invalid input is repaired by the writer).
  while (keep > 0 && (static_cast<unsigned char>(reason[keep]) & 0xC0) == 0x80) --keep;
  return std::string(reason.substr(0, keep)) + std::string(kMarker);
}

}  // namespace

void NodeHistory::Track(Interval& iv, const std::string& name, bool current,
                        bool previous, double now) {
  if (current && !previous) {
    iv.start[name] = now;  // also overwrites a stale start of a vanished node
  } else if (!current && previous) {
    const auto it = iv.start.find(name);
    if (it == iv.start.end()) return;
    iv.histogram[name].Observe(kNodeEventBuckets, now - it->second);
    iv.start.erase(it);
  }
}

void NodeHistory::Observe(const NodeSnapshot& cur, double now) {
  // 1. Failures: only nodes already known, on a not-failed -> failed edge.
  for (const Node& n : cur.nodes) {
    const auto p = prev_.find(std::string(n.name));
    if (p == prev_.end()) continue;
    if (!IsFailed(p->second) && IsFailed(n.state)) {
      auto [name, base, drain, maint, resv] = MakeStateKey(n);
      FailKey key{name, base, drain, maint, resv, FailReason(n.reason)};
      if (!fails_.contains(key)) {
        int& series = fail_series_[name];
        if (series >= kMaxFailSeriesPerNode) {
          std::get<5>(key) = kOtherFailReasons;
          if (!fails_.contains(key)) ++series;  // one per state at most
        } else {
          ++series;
        }
      }
      fails_[key] += 1;
    }
  }
  // 2. Unavailability and draining intervals.
  for (const Node& n : cur.nodes) {
    const std::string name(n.name);
    const auto p = prev_.find(name);
    const bool known = p != prev_.end();
    Track(unavailable_, name, IsUnavailable(n.state),
          known && IsUnavailable(p->second), now);
    Track(draining_, name, IsDraining(n.state), known && IsDraining(p->second),
          now);
  }
  // 3. GPU-seconds: configured GPUs x time since the last successful
  // collection, credited to each node's state at the end of the interval.
  const double delta = now - last_gpu_update_;
  for (const Node& n : cur.nodes) {
    const auto tres = ParseTres(n.tres);
    if (!tres) continue;  // Soperator logs and skips the node
    // Slurm lists gres/gpu in a node's TRES only when AccountingStorageTRES
    // names it, which needs slurmdbd; without it we count the node's
    // configured GPUs instead of reporting none.
    const int64_t gpus = tres->has_gpus ? tres->gpus : n.gpus_total;
    gpu_seconds_[MakeStateKey(n)] += delta * static_cast<double>(gpus);
  }
  last_gpu_update_ = now;

  prev_.clear();
  for (const Node& n : cur.nodes) prev_[std::string(n.name)] = n.state;
}

std::span<const FamilyDef* const> NodeHistory::Families() {
  return FamilyList<kDefs>();
}

void NodeHistory::AddFamilies(MetricSet& set) const {
  const auto families = AddAll(set, kDefs);
  Family& gpu = *families[kGpuSeconds];
  for (const auto& [k, v] : gpu_seconds_) {
    const auto& [name, base, drain, maint, resv] = k;
    gpu.Add({name, base, drain, maint, resv}, v);
  }
  Family& fails = *families[kFails];
  for (const auto& [k, v] : fails_) {
    const auto& [name, base, drain, maint, resv, reason] = k;
    fails.Add({name, base, drain, maint, resv, reason}, v);
  }
  Family& unavailable = *families[kUnavailability];
  for (const auto& [name, h] : unavailable_.histogram) {
    const std::string_view labels[] = {name};
    unavailable.AddHistogram(labels, &h);
  }
  Family& draining = *families[kDraining];
  for (const auto& [name, h] : draining_.histogram) {
    const std::string_view labels[] = {name};
    draining.AddHistogram(labels, &h);
  }
}

}  // namespace sm
