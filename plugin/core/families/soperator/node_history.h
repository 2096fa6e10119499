// SPDX-License-Identifier: GPL-2.0-or-later
// Soperator's stateful node families (Soperator exporter spec, section 7):
// failure counter,
// unavailability/draining duration histograms and GPU-seconds, updated once
// per successful nodes collection. Series are never deleted, like Soperator.
#pragma once

#include <map>
#include <span>
#include <string>
#include <tuple>
#include <unordered_map>

#include "exposition/exposition.h"
#include "model/snapshot.h"

namespace sm {

class NodeHistory {
 public:
  // `start` is the monotonic time (seconds) the collector was created: the
  // first GPU-seconds interval is measured from it, as in Soperator.
  explicit NodeHistory(double start) : last_gpu_update_(start) {}

  // Applies one nodes collection taken at monotonic time `now`.
  void Observe(const NodeSnapshot& cur, double now);

  // Families 12-15. Views point into this object: do not Observe while
  // the MetricSet is in use.
  void AddFamilies(MetricSet& set) const;
  // The families AddFamilies adds.
  static std::span<const FamilyDef* const> Families();

  // Label values Soperator repeats on the counters.
  using StateKey = std::tuple<std::string, std::string, std::string,
                              std::string, std::string>;
  using FailKey = std::tuple<std::string, std::string, std::string,
                             std::string, std::string, std::string>;

 private:
  struct Interval {
    std::unordered_map<std::string, double> start;  // open events by node
    std::map<std::string, HistogramValue> histogram;
  };
  void Track(Interval& iv, const std::string& name, bool current,
             bool previous, double now);

  std::unordered_map<std::string, NodeState> prev_;
  std::map<FailKey, double> fails_;
  // Series of fails_ per node: bounded, since each one lives forever.
  std::unordered_map<std::string, int> fail_series_;
  Interval unavailable_;
  Interval draining_;
  std::map<StateKey, double> gpu_seconds_;
  double last_gpu_update_;
};

// slurm_node_fails_total keeps a series per node, state and reason for the
// life of slurmctld, and the reason is any text an admin typed: bounded,
// unlike Soperator. A reason is cut to kMaxFailReasonBytes (marked
// ...[truncated]); past kMaxFailSeriesPerNode series of one node, a failure
// with a new reason is counted under kOtherFailReasons.
inline constexpr size_t kMaxFailReasonBytes = 256;
inline constexpr int kMaxFailSeriesPerNode = 10;
inline constexpr std::string_view kOtherFailReasons = "[other reasons]";

// Soperator's histogram bounds, seconds: 30 s ... 30 d.
extern const double kNodeEventBuckets[16];

}  // namespace sm
