// SPDX-License-Identifier: GPL-2.0-or-later
// Self-monitoring (spec section 9): Soperator's nine families with the same
// semantics, plus our own lock, render and sanitising counters. Thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>

#include "accounting_snapshot.h"
#include "exposition.h"

namespace sm {

class SelfMonitoring {
 public:
  void CollectorStarted(std::string_view collector, int inflight);
  void CollectorFinished(std::string_view collector, double seconds,
                         bool error, int inflight);
  void CollectorSkipped(std::string_view collector);
  // A tick whose started sub-collectors have all finished.
  void CollectionFinished(double seconds, bool failed);
  // How long a collection waited for and then held slurmctld's locks.
  void LockUsed(std::string_view collector, double wait_seconds,
                double hold_seconds, double list_wait_seconds = 0);
  void Rendered(double seconds, const WriteStats& stats);
  // Bytes of the bodies (and their gzip forms) a tick keeps rendering.
  void CachedBodies(uint64_t bytes);

  // One request to the main /metrics; `exported` is the series count of
  // the body served.
  void MetricsRequest(uint64_t exported);

  void AddFamilies(MetricSet& set) const;

 private:
  struct PerCollector {
    bool ran = false;
    double duration = 0;
    bool started = false;
    int inflight = 0;
    uint64_t errors = 0;
    uint64_t skipped = 0;
    bool locked = false;
    double lock_wait = 0;
    double lock_hold = 0;
    double lock_hold_total = 0;
    double list_wait = 0;
  };
  mutable std::mutex mu_;
  std::map<std::string, PerCollector, std::less<>> collectors_;
  double collection_duration_ = 0;
  uint64_t attempts_ = 0;
  uint64_t failures_ = 0;
  uint64_t requests_ = 0;
  uint64_t exported_ = 0;
  double render_duration_ = 0;
  uint64_t cached_bytes_ = 0;
  uint64_t duplicates_dropped_ = 0;
  uint64_t utf8_repaired_ = 0;
  uint64_t labels_truncated_ = 0;
};

// How current slurmctld's association data is (docs/metrics.md,
// Self-monitoring): nothing without accounting_storage/slurmdbd.
void AddAccountingStatusFamilies(MetricSet& set, const AccountingStatus& s);

}  // namespace sm
