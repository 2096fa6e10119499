// SPDX-License-Identifier: GPL-2.0-or-later
// slurm_job_queue_wait_seconds: how long each job waited between submission
// and start, observed once per start, per partition it started in. Kept
// across collections like the node history (restarts with slurmctld).
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <unordered_map>

#include "exposition/exposition.h"
#include "model/snapshot.h"

namespace sm {

class QueueWaitHistory {
 public:
  // Applies one jobs collection. The first one only learns which jobs had
  // already started (their waits happened before we looked).
  void Observe(const JobSnapshot& jobs);

  // Views point into this object: do not Observe while the MetricSet is in
  // use.
  void AddFamilies(MetricSet& set) const;
  // The families AddFamilies adds.
  static std::span<const FamilyDef* const> Families();

 private:
  bool primed_ = false;
  std::unordered_map<uint32_t, int64_t> started_;  // job id -> start time
  std::map<std::string, HistogramValue> histogram_;  // by partition
};

// Bounds, seconds: 1 s, 5 s, 10 s, 30 s, 1 m, 5 m, 10 m, 30 m, 1 h, 2 h,
// 4 h, 8 h, 12 h, 1 d, 2 d, 7 d.
extern const double kQueueWaitBuckets[16];

}  // namespace sm
