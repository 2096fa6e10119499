// SPDX-License-Identifier: GPL-2.0-or-later
#include "families/ours/queue_wait.h"

#include <algorithm>

#include "families/family_rows.h"

namespace sm {

const double kQueueWaitBuckets[16] = {1,    5,     10,    30,    60,    300,
                                      600,  1800,  3600,  7200,  14400, 28800,
                                      43200, 86400, 172800, 604800};

namespace {

const FamilyDef kDefs[] = {
    {"slurm_job_queue_wait_seconds",
     "Time from submission to start of the jobs that started, by the "
     "partition they started in (each start observed once)",
     MetricType::kHistogram,
     {"partition"},
     kQueueWaitBuckets},
};

// A job ran (or runs) when it left PENDING with a start time and nodes; a
// job cancelled while pending gets a start time too (Start=End in sacct)
// but never had nodes.
bool Started(const Job& j) {
  return j.state != JobBase::kPending && j.start_time && *j.start_time > 0 &&
         !j.nodes.empty();
}

}  // namespace

void QueueWaitHistory::Observe(const JobSnapshot& jobs) {
  std::unordered_map<uint32_t, int64_t> started;
  started.reserve(started_.size() + 64);
  for (const Job& j : jobs.jobs) {
    if (!Started(j)) continue;
    const int64_t start = *j.start_time;
    started[j.id] = start;
    const auto seen = started_.find(j.id);
    // A requeued job that starts again has a new start time: a new start.
    if (!primed_ || (seen != started_.end() && seen->second == start)) continue;
    const std::string_view part = j.statistics_partition;
    const int64_t wait = j.submit_time ? start - *j.submit_time : 0;
    histogram_[std::string(part)].Observe(
        kQueueWaitBuckets, static_cast<double>(std::max<int64_t>(wait, 0)));
  }
  // Jobs purged from slurmctld are forgotten; their series stay.
  started_ = std::move(started);
  primed_ = true;
}

std::span<const FamilyDef* const> QueueWaitHistory::Families() {
  return FamilyList<kDefs>();
}

void QueueWaitHistory::AddFamilies(MetricSet& set) const {
  Family& f = *AddAll(set, kDefs)[0];
  for (const auto& [partition, h] : histogram_) {
    const std::string_view labels[] = {partition};
    f.AddHistogram(labels, &h);
  }
}

}  // namespace sm
