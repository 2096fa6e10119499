// SPDX-License-Identifier: GPL-2.0-or-later
// Slurm's /metrics/scheduler families: the real 26.05.3 response
// reproduced from the sample's sdiag, and our corrected defaults
// (counters, no 32-bit truncation of schedule_cycle_tot).
#include "families/native/native_scheduler.h"

#include <gtest/gtest.h>

#include "native_sample.h"
#include "families/soperator/node_history.h"
#include "test_util.h"

namespace sm {
namespace {

using testing::Exception;
using testing::ParseExposition;
using testing::Render;

std::string RenderSched(const DiagSnapshot& d, bool native_values,
                        Format f = Format::kText) {
  MetricSet set;
  AddNativeSchedulerFamilies(set, d, {0, native_values});
  return Render(set, f);
}

// docs/native-semantics.md §3 and §7: sdiag.json was taken 12 s after the
// scrape. Its req_time is our collection stamp, and its
// server_thread_count counts the sdiag RPC itself, which Slurm's HTTP
// scrape does not.
const std::vector<Exception> kSchedulerExceptions = {
    {"slurm_server_thread_cnt", 0, 1},
    {"slurm_sched_stats_timestamp", 1795977603, 1795977615}};

TEST(NativeScheduler, ReproducesSlurmResponse) {
  const auto ours =
      ParseExposition(RenderSched(testing::SampleDiag(), true), false);
  const auto sample = testing::Sample("scheduler");
  EXPECT_EQ(sample.series.size(), 58u);
  testing::ExpectSameSeries(sample, ours, kSchedulerExceptions);
  testing::ExpectSameComments(sample, ours);
  EXPECT_EQ(ours.series.at("slurm_sched_mean_cycle"), 2832);  // 8498 / 3
}

TEST(NativeScheduler, EndpointAddsSoperatorFamilies) {
  auto diag = std::make_shared<const DiagSnapshot>(testing::SampleDiag());
  NodeHistory history(0);
  MetricSet set;
  AddEndpointFamilies(set, Endpoint::kScheduler, {nullptr, nullptr, diag},
                      history, {0, true});
  const std::string out = Render(set);
  const auto ours = ParseExposition(out, false);
  for (const auto& [key, value] : testing::Sample("scheduler").series) {
    ASSERT_TRUE(ours.series.count(key)) << key;
  }
  EXPECT_EQ(ours.series.at("slurm_controller_server_thread_count"), 1);
  // Everything path: Soperator's and all native families together.
  auto nodes = std::make_shared<const NodeSnapshot>(testing::SampleNodes());
  auto jobs = std::make_shared<const JobSnapshot>(testing::SampleJobs());
  MetricSet all;
  AddEndpointFamilies(all, Endpoint::kEverything, {nodes, jobs, diag}, history,
                      {0, false});
  const auto everything = ParseExposition(Render(all), false);
  for (const char* key :
       {"slurm_bf_cycle_cnt", "slurm_nodes", "slurm_jobs", "slurm_partitions",
        "slurm_user_jobs{username=\"root\"}",
        "slurm_controller_server_thread_count",
        "slurm_node_cpus_total{node_name=\"vm\"}"}) {
    EXPECT_TRUE(everything.series.count(key)) << key;
  }
}

TEST(NativeScheduler, DefaultsCountersAndFullWidth) {
  DiagSnapshot d = testing::SampleDiag();
  // 5e9 µs: Slurm prints schedule_cycle_sum as UINT32.
  d.sched.schedule_cycle_sum = 5000000000;
  d.sched.schedule_cycle_counter = 1000;
  d.sched.bf_cycle_sum = 6000000000;
  d.sched.bf_cycle_counter = 3;
  d.sched.bf_depth_sum = 10;
  d.sched.bf_exit = {.end_job_queue = 1,
                     .bf_max_job_start = 2,
                     .bf_max_job_test = 3,
                     .state_changed = 4,
                     .bf_node_space_size = 5,
                     .bf_max_time = 6};
  const std::string text = RenderSched(d, false);
  const auto ours = ParseExposition(text, false);
  EXPECT_EQ(ours.series.at("slurm_schedule_cycle_tot"), 5000000000.0);
  EXPECT_EQ(ours.series.at("slurm_sched_mean_cycle"), 5000000);
  EXPECT_EQ(ours.series.at("slurm_bf_cycle_tot"), 6000000000.0);
  EXPECT_EQ(ours.series.at("slurm_bf_mean_cycle"), 2000000000);
  EXPECT_EQ(ours.series.at("slurm_bf_depth_mean"), 3);  // 10 / 3, truncated
  EXPECT_EQ(ours.series.at("slurm_bf_exit_timeout"), 6);
  EXPECT_EQ(ours.series.at("slurm_bf_exit_state_changed"), 4);
  for (const char* counter :
       {"slurm_bf_cycle_cnt", "slurm_bf_cycle_tot", "slurm_schedule_cycle_tot",
        "slurm_sdiag_jobs_submitted", "slurm_sched_exit_end",
        "slurm_bf_exit_timeout", "slurm_backfilled_jobs",
        "slurm_last_backfilled_jobs"}) {
    EXPECT_NE(text.find("# TYPE " + std::string(counter) + " counter\n"),
              std::string::npos)
        << counter;
  }
  for (const char* gauge :
       {"slurm_bf_cycle_last", "slurm_sdiag_jobs_pending", "slurm_bf_active",
        "slurm_sched_mean_cycle", "slurm_sched_stats_timestamp"}) {
    EXPECT_NE(text.find("# TYPE " + std::string(gauge) + " gauge\n"),
              std::string::npos)
        << gauge;
  }
  // OpenMetrics wants _total on counters; we keep Slurm's names instead.
  EXPECT_NE(RenderSched(d, false, Format::kOpenMetrics)
                .find("# TYPE slurm_bf_cycle_cnt unknown\n"),
            std::string::npos);

  const std::string native_text = RenderSched(d, true);
  const auto native = ParseExposition(native_text, false);
  EXPECT_EQ(native.series.at("slurm_schedule_cycle_tot"),
            705032704);  // 5e9 mod 2^32
  EXPECT_EQ(native.series.at("slurm_sched_mean_cycle"), 5000000);
  EXPECT_EQ(native.series.at("slurm_bf_cycle_tot"), 6000000000.0);  // UINT64
  EXPECT_EQ(native_text.find(" counter\n"), std::string::npos);
}

TEST(NativeScheduler, MissingExitArraysReadZero) {
  DiagSnapshot d;  // e.g. 22.05, which has no schedule_exit/bf_exit
  const auto ours = ParseExposition(RenderSched(d, false), false);
  EXPECT_EQ(ours.series.size(), 58u);
  EXPECT_EQ(ours.series.at("slurm_sched_exit_timeout"), 0);
  EXPECT_EQ(ours.series.at("slurm_server_thread_cnt"), 0);
}

}  // namespace
}  // namespace sm
