// SPDX-License-Identifier: GPL-2.0-or-later
// Self-monitoring families (spec section 9).
#include <gtest/gtest.h>

#include "families/soperator/self_monitoring.h"
#include "test_util.h"

namespace sm {
namespace {

using testing::Render;
using testing::Samples;
using V = std::vector<std::string>;

TEST(SelfMonitoring, PresentFromStartup) {
  SelfMonitoring m;
  const std::string out = testing::RenderMonitoring(m);
  EXPECT_EQ(Samples(out, "slurm_exporter_collection_duration_seconds"),
            V{"slurm_exporter_collection_duration_seconds 0"});
  EXPECT_EQ(Samples(out, "slurm_exporter_collection_attempts_total"),
            V{"slurm_exporter_collection_attempts_total 0"});
  EXPECT_EQ(Samples(out, "slurm_exporter_collection_failures_total"),
            V{"slurm_exporter_collection_failures_total 0"});
  EXPECT_EQ(Samples(out, "slurm_exporter_metrics_requests_total"),
            V{"slurm_exporter_metrics_requests_total 0"});
  EXPECT_EQ(Samples(out, "slurm_exporter_metrics_exported"),
            V{"slurm_exporter_metrics_exported 0"});
  for (const char* absent :
       {"slurm_exporter_collector_duration_seconds",
        "slurm_exporter_collector_errors_total",
        "slurm_exporter_collector_inflight",
        "slurm_exporter_collector_skipped_total"})
    EXPECT_TRUE(Samples(out, absent).empty()) << absent;
}

TEST(SelfMonitoring, CollectorLifecycle) {
  SelfMonitoring m;
  m.CollectorStarted("nodes", 1);
  m.CollectorStarted("diag", 1);
  m.CollectorFinished("nodes", 0.25, false, 0);
  m.CollectorFinished("diag", 0.5, true, 0);
  m.CollectorSkipped("jobs");
  m.CollectionFinished(0.5, true);
  m.MetricsRequest(42);
  m.MetricsRequest(43);
  const std::string out = testing::RenderMonitoring(m);
  EXPECT_EQ(Samples(out, "slurm_exporter_collector_duration_seconds"),
            (V{"slurm_exporter_collector_duration_seconds{collector=\"diag\"} 0.5",
               "slurm_exporter_collector_duration_seconds{collector=\"nodes\"} 0.25"}));
  EXPECT_EQ(Samples(out, "slurm_exporter_collector_errors_total"),
            V{"slurm_exporter_collector_errors_total{collector=\"diag\"} 1"});
  EXPECT_EQ(Samples(out, "slurm_exporter_collector_inflight"),
            (V{"slurm_exporter_collector_inflight{collector=\"diag\"} 0",
               "slurm_exporter_collector_inflight{collector=\"nodes\"} 0"}));
  EXPECT_EQ(Samples(out, "slurm_exporter_collector_skipped_total"),
            V{"slurm_exporter_collector_skipped_total{collector=\"jobs\"} 1"});
  EXPECT_EQ(Samples(out, "slurm_exporter_collection_attempts_total"),
            V{"slurm_exporter_collection_attempts_total 1"});
  EXPECT_EQ(Samples(out, "slurm_exporter_collection_failures_total"),
            V{"slurm_exporter_collection_failures_total 1"});
  EXPECT_EQ(Samples(out, "slurm_exporter_metrics_requests_total"),
            V{"slurm_exporter_metrics_requests_total 2"});
  EXPECT_EQ(Samples(out, "slurm_exporter_metrics_exported"),
            V{"slurm_exporter_metrics_exported 43"});
  EXPECT_NE(out.find("# HELP slurm_exporter_collector_skipped_total Total "
                     "number of skipped sub-collector runs because the "
                     "in-flight limit was reached, labeled by collector\n"),
            std::string::npos);
}

// On the monitoring port with Accept: application/openmetrics-text, the
// gauge ..._lock_hold_seconds and the counter ..._lock_hold_seconds_total
// named one OpenMetrics family: an invalid body. Every family is distinct.
TEST(SelfMonitoring, OpenMetricsFamiliesAreDistinct) {
  SelfMonitoring m;
  m.CollectorStarted("nodes", 1);
  m.CollectorFinished("nodes", 0.25, true, 0);
  m.CollectorSkipped("nodes");
  m.LockUsed("nodes", 0.001, 0.002);
  m.LockUsed("nodes", 0.001, 0.003);
  MetricSet set;
  m.AddFamilies(set);
  set.Seal();
  EXPECT_EQ(set.stats().families_refused, 0u);
  std::string om;
  set.Write(Format::kOpenMetrics, om);
  EXPECT_NE(om.find("# TYPE slurm_exporter_controller_last_lock_hold_seconds gauge\n"
                    "slurm_exporter_controller_last_lock_hold_seconds{collector=\"nodes\"} 0.003\n"),
            std::string::npos);
  EXPECT_NE(om.find("# TYPE slurm_exporter_controller_lock_hold_seconds counter\n"
                    "slurm_exporter_controller_lock_hold_seconds_total{collector=\"nodes\"} 0.005\n"),
            std::string::npos);
  EXPECT_NE(om.find("# TYPE slurm_exporter_label_values_truncated counter\n"
                    "slurm_exporter_label_values_truncated_total 0.0\n"),
            std::string::npos);
}

// A hold that waited for job_list behind a native walk says how much of it
// was that wait; the hold itself stays whole, as the uprobe trace sees it.
TEST(SelfMonitoring, ListWaitIsReportedApartFromTheHold) {
  SelfMonitoring m;
  m.LockUsed("jobs", 0.0001, 0.5375, 0.5312);
  m.LockUsed("nodes", 0.0002, 0.004);
  const std::string text = testing::RenderMonitoring(m);
  EXPECT_EQ(testing::Samples(text, "slurm_exporter_controller_list_wait_seconds"),
            (std::vector<std::string>{
                "slurm_exporter_controller_list_wait_seconds{collector=\"jobs\"} 0.5312",
                "slurm_exporter_controller_list_wait_seconds{collector=\"nodes\"} 0"}));
  EXPECT_EQ(testing::Samples(text, "slurm_exporter_controller_last_lock_hold_seconds"),
            (std::vector<std::string>{
                "slurm_exporter_controller_last_lock_hold_seconds{collector=\"jobs\"} 0.5375",
                "slurm_exporter_controller_last_lock_hold_seconds{collector=\"nodes\"} 0.004"}));
}

// What renders copied and what they wrote, summed over render passes
// (docs/metrics.md; tests/shim/incremental_render.py reads them).
TEST(SelfMonitoring, RenderReuseCounters) {
  SelfMonitoring m;
  WriteStats first;
  first.families_written = 20;
  first.gzip_pieces_compressed = 7;
  WriteStats second;
  second.families_reused = 19;
  second.families_written = 1;
  second.gzip_pieces_reused = 6;
  second.gzip_pieces_compressed = 1;
  m.Rendered(0.5, first);
  m.Rendered(0.1, second);
  MetricSet set;
  m.AddFamilies(set);
  set.Seal();
  std::string out;
  set.Write(Format::kText, out);
  EXPECT_EQ(Samples(out, "slurm_exporter_render_families_total"),
            (V{"slurm_exporter_render_families_total{outcome=\"copied\"} 19",
               "slurm_exporter_render_families_total{outcome=\"written\"} 21"}));
  EXPECT_EQ(Samples(out, "slurm_exporter_gzip_pieces_total"),
            (V{"slurm_exporter_gzip_pieces_total{outcome=\"compressed\"} 8",
               "slurm_exporter_gzip_pieces_total{outcome=\"copied\"} 6"}));
}

}  // namespace
}  // namespace sm
