// SPDX-License-Identifier: GPL-2.0-or-later
// Self-monitoring (Soperator exporter spec, section 9): Soperator's nine
// families with the same
// semantics, plus our own lock, render and sanitising counters. Thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <span>
#include <string>
#include <string_view>

#include "model/accounting_snapshot.h"
#include "exposition/exposition.h"

namespace sm {

// Which build serves the metrics (slurm_exporter_build_info).
struct BuildInfo {
  std::string version;        // soperator-metrics' own, e.g. "0.1.0"
  std::string slurm_version;  // SLURM_VERSION_STRING of the tree built against
  std::string carrier;        // "job_submit/soperator" or "metrics/soperator"
};

class SelfMonitoring {
 public:
  // Set once, before the families are first served.
  void SetBuildInfo(BuildInfo info);
  void SetCollectionInterval(double seconds);
  void CollectorStarted(std::string_view collector, int inflight);
  void CollectorFinished(std::string_view collector, double seconds,
                         bool error, int inflight);
  void CollectorSkipped(std::string_view collector);
  // A run whose data was stored and is served from now on, at unix time
  // `unix_seconds`.
  void CollectorSucceeded(std::string_view collector, double unix_seconds);
  // Whether slurmctld is the controller in charge (Source::Active()) as of
  // the latest tick. Going to standby forgets the successes: a standby
  // serves no collected data.
  void ControllerActive(bool active);
  // A tick whose started sub-collectors have all finished.
  void CollectionFinished(double seconds, bool failed);
  // How long a collection waited for and then held slurmctld's locks.
  void LockUsed(std::string_view collector, double wait_seconds,
                double hold_seconds, double list_wait_seconds = 0);
  void Rendered(double seconds, const WriteStats& stats);
  // Bytes of the bodies (and their gzip forms) kept, and the most they
  // may hold together (docs/configuration.md, "Cached bodies").
  void CachedBodies(uint64_t bytes, uint64_t limit);
  // A request whose body did not fit under that limit: rendered for it
  // alone (`refused` false), or refused with 503 because another such
  // render was running.
  void UncachedRequest(bool refused);

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
    double last_success = 0;  // unix seconds; 0: none since the last standby
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
  uint64_t cached_limit_ = 0;
  uint64_t uncached_rendered_ = 0;
  uint64_t uncached_refused_ = 0;
  uint64_t duplicates_dropped_ = 0;
  uint64_t utf8_repaired_ = 0;
  uint64_t labels_truncated_ = 0;
  uint64_t families_copied_ = 0, families_written_ = 0;
  uint64_t gzip_pieces_copied_ = 0, gzip_pieces_compressed_ = 0;
  BuildInfo build_;
  double interval_ = 0;
  int active_ = -1;  // -1 before the first tick
};

// Every family SelfMonitoring::AddFamilies can add, and every family
// AddAccountingStatusFamilies can add: DisabledFamilies knows them
// (family_registry.h, ServedBeside).
std::span<const FamilyDef* const> SelfMonitoringFamilies();
std::span<const FamilyDef* const> AccountingStatusFamilies();

// How current slurmctld's association data is (docs/metrics.md,
// Self-monitoring): nothing without accounting_storage/slurmdbd.
void AddAccountingStatusFamilies(MetricSet& set, const AccountingStatus& s);

}  // namespace sm
