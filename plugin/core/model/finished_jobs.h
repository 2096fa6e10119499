// SPDX-License-Identifier: GPL-2.0-or-later
// JobSource=accounting inside slurmctld (docs/configuration.md, "Finished
// jobs"): Soperator's accounting source lists every job that ended less
// than AccountingJobsLookback ago (Soperator exporter spec, section 11),
// while slurmctld forgets a job MinJobAge after it ends. This remembers
// each job the controller showed in a finished state and hands back the
// ones slurmctld has since purged, until their end time is older than the
// lookback. The one rule, in one place: a finished job is served while
// end_time >= now - lookback. Kept in memory only: a restart of slurmctld
// (or a takeover) starts the window again.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <set>
#include <unordered_map>
#include <utility>
#include <vector>

#include "model/snapshot.h"

namespace sm {

struct FinishedJobLimits {
  int64_t lookback_seconds = 3600;  // AccountingJobsLookback
  size_t max_jobs = 100000;         // AccountingJobsMax
  size_t max_bytes = size_t{128} << 20;  // AccountingJobsMaxBytes
};

// A finished job's copy; its strings live in `text`, which it owns.
struct KeptJob {
  Job job;
  std::unique_ptr<char[]> text;
  size_t bytes = 0;  // what it counts against max_bytes
};

// What one render needs: which of the controller's jobs to serve, and the
// remembered jobs slurmctld no longer holds. Immutable once made, so a
// render may hold it while the next collection is observed.
struct FinishedJobsView {
  int64_t oldest_end = 0;  // now - lookback when it was made
  std::vector<std::shared_ptr<const KeptJob>> purged;

  // Whether a job of the controller's list is served: unfinished jobs
  // always, finished ones while they are inside the lookback.
  bool Serves(const Job& j) const { return !Expired(j, oldest_end); }
  // The rule itself: a finished job with an end time older than
  // `oldest_end` is out of the window. A finished job without an end time
  // (none seen in practice) stays, as slurmdbd keeps end=0 rows.
  static bool Expired(const Job& j, int64_t oldest_end) {
    return IsFinished(j.state) && j.end_time && *j.end_time > 0 &&
           *j.end_time < oldest_end;
  }
};

class FinishedJobs {
 public:
  explicit FinishedJobs(FinishedJobLimits limits) : limits_(limits) {}

  // One jobs collection, taken at unix time `now`: remembers its finished
  // jobs, forgets the expired ones and, over a bound, the oldest-ended
  // first; returns what the next renders serve.
  std::shared_ptr<const FinishedJobsView> Observe(const JobSnapshot& current,
                                                  int64_t now);

  size_t size() const { return kept_.size(); }
  size_t bytes() const { return bytes_; }
  const FinishedJobLimits& limits() const { return limits_; }

 private:
  struct Entry {
    std::shared_ptr<const KeptJob> kept;
    uint64_t seen = 0;  // the last Observe whose list held this id
  };
  void Remember(const Job& j);
  void Forget(uint32_t id);

  FinishedJobLimits limits_;
  std::unordered_map<uint32_t, Entry> kept_;
  std::set<std::pair<int64_t, uint32_t>> by_end_;  // eviction order
  size_t bytes_ = 0;
  uint64_t generation_ = 0;
};

}  // namespace sm
