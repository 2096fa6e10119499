// SPDX-License-Identifier: GPL-2.0-or-later
#include "families/soperator/self_monitoring.h"

#include "families/family_rows.h"

namespace sm {
namespace {

// One table per list the registry reads (family_registry.cc), in the
// order of the enum that names its rows: each family is named once.
enum Monitoring {
  kCollectionDuration,
  kCollectionAttempts,
  kCollectionFailures,
  kCollectorDuration,
  kCollectorErrors,
  kCollectorInflight,
  kCollectorSkipped,
  kRequests,
  kExported,
  kLockWait,
  kLockHold,
  kListWait,
  kLockHoldTotal,
  kRenderDuration,
  kCachedBytes,
  kCachedLimit,
  kUncached,
  kRenderFamilies,
  kGzipPieces,
  kSeriesDropped,
  kUtf8Repaired,
  kLabelsTruncated,
  kBuildInfo,
  kInterval,
  kControllerActive,
  kLastSuccess,
};
const FamilyDef kSelf[] = {
    {"slurm_exporter_collection_duration_seconds",
     "Duration of the most recent metrics collection from SLURM APIs",
     MetricType::kGauge, {}},
    {"slurm_exporter_collection_attempts_total",
     "Total number of metrics collection attempts", MetricType::kCounter, {}},
    {"slurm_exporter_collection_failures_total",
     "Total number of failed metrics collection attempts", MetricType::kCounter,
     {}},
    {"slurm_exporter_collector_duration_seconds",
     "Duration of the most recent sub-collector run, labeled by collector",
     MetricType::kGauge, {"collector"}},
    {"slurm_exporter_collector_errors_total",
     "Total number of errors per sub-collector during metrics collection, "
     "labeled by collector",
     MetricType::kCounter, {"collector"}},
    {"slurm_exporter_collector_inflight",
     "Number of sub-collector runs currently in progress, labeled by collector",
     MetricType::kGauge, {"collector"}},
    {"slurm_exporter_collector_skipped_total",
     "Total number of skipped sub-collector runs because the in-flight limit "
     "was reached, labeled by collector",
     MetricType::kCounter, {"collector"}},
    {"slurm_exporter_metrics_requests_total",
     "Total number of requests to /metrics endpoint", MetricType::kCounter, {}},
    {"slurm_exporter_metrics_exported",
     "Number of metrics exported in the last scrape", MetricType::kGauge, {}},
    // Ours: what Soperator cannot know from outside the controller.
    {"slurm_exporter_controller_lock_wait_seconds",
     "Time the most recent collection waited for slurmctld locks, labeled by "
     "collector",
     MetricType::kGauge, {"collector"}},
    // Not ..._lock_hold_seconds: OpenMetrics names the counter below that.
    {"slurm_exporter_controller_last_lock_hold_seconds",
     "Time the most recent collection held slurmctld read locks, labeled by "
     "collector",
     MetricType::kGauge, {"collector"}},
    {"slurm_exporter_controller_list_wait_seconds",
     "Part of the most recent lock hold spent waiting for job_list's own lock, "
     "labeled by collector",
     MetricType::kGauge, {"collector"}},
    {"slurm_exporter_controller_lock_hold_seconds_total",
     "Total time collections held slurmctld read locks, labeled by collector",
     MetricType::kCounter, {"collector"}},
    {"slurm_exporter_render_duration_seconds",
     "Duration of the most recent rendering of the cached metric bodies",
     MetricType::kGauge, {}},
    {"slurm_exporter_cached_body_bytes",
     "Bytes of the metric bodies (plain and gzip) kept rendered after each "
     "collection: those asked for lately",
     MetricType::kGauge, {}},
    {"slurm_exporter_cached_body_limit_bytes",
     "Most bytes the cached metric bodies (plain and gzip) may hold together",
     MetricType::kGauge, {}},
    {"slurm_exporter_uncached_requests_total",
     "Requests whose body did not fit under the cached body limit: rendered "
     "for that request alone (outcome=rendered) or refused with 503 "
     "(outcome=refused)",
     MetricType::kCounter, {"outcome"}},
    {"slurm_exporter_render_families_total",
     "Families the renders of the cached bodies copied from the body they "
     "replace, their rows unchanged (outcome=copied), or wrote "
     "(outcome=written)",
     MetricType::kCounter, {"outcome"}},
    {"slurm_exporter_gzip_pieces_total",
     "Pieces of the cached bodies' gzip forms copied from the form of the body "
     "they replace (outcome=copied) or compressed (outcome=compressed)",
     MetricType::kCounter, {"outcome"}},
    {"slurm_exporter_duplicate_series_dropped_total",
     "Series dropped because another series of the family had the same labels",
     MetricType::kCounter, {}},
    {"slurm_exporter_label_values_repaired_total",
     "Label values whose invalid UTF-8 was replaced by U+FFFD",
     MetricType::kCounter, {}},
    {"slurm_exporter_label_values_truncated_total",
     "Label values longer than 4096 bytes, cut and marked ...[truncated]",
     MetricType::kCounter, {}},
    {"slurm_exporter_build_info",
     "A metric with a constant '1' value labeled by the plugin's version, the "
     "Slurm release it was built for and the slurm.conf plugin that loaded it",
     MetricType::kGauge, {"carrier", "slurm_version", "version"}},
    {"slurm_exporter_collection_interval_seconds",
     "CollectionInterval: how often the collector copies slurmctld's state",
     MetricType::kGauge, {}},
    {"slurm_exporter_controller_active",
     "1 while this slurmctld is the controller in charge and its data is "
     "collected; 0 while it is a standby backup or has not loaded its state",
     MetricType::kGauge, {}},
    {"slurm_exporter_collector_last_success_timestamp_seconds",
     "When the data of the sub-collector now served was collected, seconds "
     "since the Unix epoch, labeled by collector",
     MetricType::kGauge, {"collector"}},
};
static_assert(std::size(kSelf) == kLastSuccess + 1);

// How current slurmctld's association data is: a table of its own, read
// under the collector's lock (AddAccountingStatusFamilies).
enum Accounting {
  kSlurmdbdConnected,
  kFromStateFile,
  kLastDecay,
};
const FamilyDef kStatus[] = {
    {"slurm_exporter_slurmdbd_connected",
     "1 while slurmctld's connection to slurmdbd is open; association, QoS "
     "and fairshare data do not change while it is 0",
     MetricType::kGauge, {}},
    {"slurm_exporter_accounting_from_state_file",
     "1 while slurmctld runs on the association state it saved because "
     "slurmdbd was unreachable when it started",
     MetricType::kGauge, {}},
    {"slurm_exporter_fairshare_last_decay_timestamp_seconds",
     "When slurmctld last recomputed decayed usage and fairshare "
     "(priority/multifactor), seconds since the Unix epoch",
     MetricType::kGauge, {}},
};
static_assert(std::size(kStatus) == kLastDecay + 1);

constexpr std::span<const std::string_view> kNoLabels{};

}  // namespace

std::span<const FamilyDef* const> SelfMonitoringFamilies() {
  return FamilyList<kSelf>();
}

std::span<const FamilyDef* const> AccountingStatusFamilies() {
  return FamilyList<kStatus>();
}

void SelfMonitoring::SetBuildInfo(BuildInfo info) {
  std::lock_guard lock(mu_);
  build_ = std::move(info);
}

void SelfMonitoring::SetCollectionInterval(double seconds) {
  std::lock_guard lock(mu_);
  interval_ = seconds;
}

void SelfMonitoring::CollectorSucceeded(std::string_view collector,
                                        double unix_seconds) {
  std::lock_guard lock(mu_);
  collectors_[std::string(collector)].last_success = unix_seconds;
}

void SelfMonitoring::ControllerActive(bool active) {
  std::lock_guard lock(mu_);
  active_ = active ? 1 : 0;
  if (!active) {
    for (auto& entry : collectors_) entry.second.last_success = 0;
  }
}

void SelfMonitoring::CollectorStarted(std::string_view collector,
                                      int inflight) {
  std::lock_guard lock(mu_);
  PerCollector& c = collectors_[std::string(collector)];
  c.started = true;
  c.inflight = inflight;
}

void SelfMonitoring::CollectorFinished(std::string_view collector,
                                       double seconds, bool error,
                                       int inflight) {
  std::lock_guard lock(mu_);
  PerCollector& c = collectors_[std::string(collector)];
  c.ran = true;
  c.duration = seconds;
  c.inflight = inflight;
  if (error) ++c.errors;
}

void SelfMonitoring::CollectorSkipped(std::string_view collector) {
  std::lock_guard lock(mu_);
  ++collectors_[std::string(collector)].skipped;
}

void SelfMonitoring::CollectionFinished(double seconds, bool failed) {
  std::lock_guard lock(mu_);
  collection_duration_ = seconds;
  ++attempts_;
  if (failed) ++failures_;
}

void SelfMonitoring::LockUsed(std::string_view collector, double wait_seconds,
                              double hold_seconds, double list_wait_seconds) {
  std::lock_guard lock(mu_);
  PerCollector& c = collectors_[std::string(collector)];
  c.locked = true;
  c.lock_wait = wait_seconds;
  c.lock_hold = hold_seconds;
  c.lock_hold_total += hold_seconds;
  c.list_wait = list_wait_seconds;
}

void SelfMonitoring::Rendered(double seconds, const WriteStats& stats) {
  std::lock_guard lock(mu_);
  render_duration_ = seconds;
  duplicates_dropped_ += stats.duplicates_dropped;
  utf8_repaired_ += stats.utf8_repaired;
  labels_truncated_ += stats.labels_truncated;
  families_copied_ += stats.families_reused;
  families_written_ += stats.families_written;
  gzip_pieces_copied_ += stats.gzip_pieces_reused;
  gzip_pieces_compressed_ += stats.gzip_pieces_compressed;
}

void SelfMonitoring::CachedBodies(uint64_t bytes, uint64_t limit) {
  std::lock_guard lock(mu_);
  cached_bytes_ = bytes;
  cached_limit_ = limit;
}

void SelfMonitoring::UncachedRequest(bool refused) {
  std::lock_guard lock(mu_);
  ++(refused ? uncached_refused_ : uncached_rendered_);
}

void SelfMonitoring::MetricsRequest(uint64_t exported) {
  std::lock_guard lock(mu_);
  ++requests_;
  exported_ = exported;
}

void SelfMonitoring::AddFamilies(MetricSet& set) const {
  std::lock_guard lock(mu_);
  Arena& arena = set.arena();
  set.Add(kSelf[kCollectionDuration]).Add(kNoLabels, collection_duration_);
  set.Add(kSelf[kCollectionAttempts]).Add(kNoLabels, attempts_);
  set.Add(kSelf[kCollectionFailures]).Add(kNoLabels, failures_);
  set.Add(kSelf[kRequests]).Add(kNoLabels, requests_);
  set.Add(kSelf[kExported]).Add(kNoLabels, exported_);
  set.Add(kSelf[kRenderDuration]).Add(kNoLabels, render_duration_);
  set.Add(kSelf[kCachedBytes]).Add(kNoLabels, cached_bytes_);
  if (cached_limit_) set.Add(kSelf[kCachedLimit]).Add(kNoLabels, cached_limit_);
  {
    Family& uncached = set.Add(kSelf[kUncached]);
    const std::string_view rendered[] = {"rendered"};
    const std::string_view refused[] = {"refused"};
    uncached.Add(rendered, uncached_rendered_);
    uncached.Add(refused, uncached_refused_);
  }
  {
    Family& families = set.Add(kSelf[kRenderFamilies]);
    const std::string_view copied[] = {"copied"};
    const std::string_view written[] = {"written"};
    families.Add(copied, families_copied_);
    families.Add(written, families_written_);
    Family& pieces = set.Add(kSelf[kGzipPieces]);
    const std::string_view compressed[] = {"compressed"};
    pieces.Add(copied, gzip_pieces_copied_);
    pieces.Add(compressed, gzip_pieces_compressed_);
  }
  set.Add(kSelf[kSeriesDropped]).Add(kNoLabels, duplicates_dropped_);
  set.Add(kSelf[kUtf8Repaired]).Add(kNoLabels, utf8_repaired_);
  set.Add(kSelf[kLabelsTruncated]).Add(kNoLabels, labels_truncated_);
  if (!build_.version.empty()) {
    const std::string_view build[] = {arena.Store(build_.carrier),
                                      arena.Store(build_.slurm_version),
                                      arena.Store(build_.version)};
    set.Add(kSelf[kBuildInfo]).Add(build, 1);
  }
  if (interval_ > 0) set.Add(kSelf[kInterval]).Add(kNoLabels, interval_);
  if (active_ >= 0) set.Add(kSelf[kControllerActive]).Add(kNoLabels, active_);
  Family& last_success = set.Add(kSelf[kLastSuccess]);
  Family& duration = set.Add(kSelf[kCollectorDuration]);
  Family& errors = set.Add(kSelf[kCollectorErrors]);
  Family& inflight = set.Add(kSelf[kCollectorInflight]);
  Family& skipped = set.Add(kSelf[kCollectorSkipped]);
  Family& lock_wait = set.Add(kSelf[kLockWait]);
  Family& lock_hold = set.Add(kSelf[kLockHold]);
  Family& lock_hold_total = set.Add(kSelf[kLockHoldTotal]);
  Family& list_wait = set.Add(kSelf[kListWait]);
  for (const auto& [name, c] : collectors_) {
    const std::string_view label[] = {arena.Store(name)};
    if (c.ran) duration.Add(label, c.duration);
    if (c.errors) errors.Add(label, c.errors);
    if (c.started) inflight.Add(label, c.inflight);
    if (c.skipped) skipped.Add(label, c.skipped);
    if (c.last_success > 0) last_success.Add(label, c.last_success);
    if (c.locked) {
      lock_wait.Add(label, c.lock_wait);
      lock_hold.Add(label, c.lock_hold);
      lock_hold_total.Add(label, c.lock_hold_total);
      list_wait.Add(label, c.list_wait);
    }
  }
}

void AddAccountingStatusFamilies(MetricSet& set, const AccountingStatus& s) {
  if (s.slurmdbd) {
    set.Add(kStatus[kSlurmdbdConnected]).Add(kNoLabels, s.connected ? 1 : 0);
    set.Add(kStatus[kFromStateFile]).Add(kNoLabels, s.from_state_file ? 1 : 0);
  }
  if (s.last_decay)
    set.Add(kStatus[kLastDecay])
        .Add(kNoLabels, static_cast<double>(*s.last_decay));
}

}  // namespace sm
