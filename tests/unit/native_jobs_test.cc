// SPDX-License-Identifier: GPL-2.0-or-later
// Slurm's /metrics/jobs families: the real 26.05.3 response reproduced from
// the sample cluster, Slurm's counting rules, and our corrected defaults.
#include "families/native/native_jobs.h"

#include <gtest/gtest.h>

#include "native_sample.h"
#include "families/soperator/node_history.h"
#include "test_util.h"

namespace sm {
namespace {

using testing::ParseExposition;
using testing::Render;

constexpr double kMiB = 1048576;

testing::Exposition RenderJobs(const JobSnapshot& snap, bool native_values,
                               std::string* text = nullptr) {
  MetricSet set;
  AddNativeJobFamilies(set, snap, {0, native_values});
  const std::string out = Render(set);
  if (text) *text = out;
  return ParseExposition(out, false);
}

TEST(NativeJobs, ReproducesSlurmResponse) {
  const auto ours = RenderJobs(testing::SampleJobs(), true);
  const auto sample = testing::Sample("jobs");
  EXPECT_EQ(sample.series.size(), 30u);
  testing::ExpectSameSeries(sample, ours);
  testing::ExpectSameComments(sample, ours);
  // Tasks vs records: 1+1+1+1+1+3.
  EXPECT_EQ(ours.series.at("slurm_jobs"), 8);
}

TEST(NativeJobs, EndpointAddsSoperatorFamilies) {
  auto jobs = std::make_shared<const JobSnapshot>(testing::SampleJobs());
  NodeHistory history(0);
  MetricSet set;
  AddEndpointFamilies(set, Endpoint::kJobs, {nullptr, jobs, nullptr}, history,
                      {0, true});
  const std::string out = Render(set);
  const auto ours = ParseExposition(out, false);
  for (const auto& [key, value] : testing::Sample("jobs").series)
    EXPECT_EQ(ours.series.at(key), value) << key;
  EXPECT_NE(out.find("slurm_job_info{"), std::string::npos);
  // Soperator's own endpoint stays Soperator-only.
  MetricSet soperator;
  AddEndpointFamilies(soperator, Endpoint::kSoperator, {nullptr, jobs, nullptr},
                      history, {0, true});
  EXPECT_EQ(Render(soperator).find("slurm_jobs_pending"), std::string::npos);
}

Job Running(uint32_t id, int64_t cpus, std::vector<uint32_t> nodes) {
  Job j = testing::SampleJob(id, JobBase::kRunning, "None", "main");
  j.cpus_alloc = cpus;
  j.node_indices = std::move(nodes);
  return j;
}

TEST(NativeJobs, CountingRules) {
  using namespace job_flag;
  JobSnapshot snap;
  snap.jobs.push_back(Running(1, 4, {0, 1}));
  snap.jobs.push_back(Running(2, 4, {1, 2}));  // shares node 1
  Job suspended = Running(3, 8, {5});
  suspended.state = JobBase::kSuspended;
  suspended.memory_alloc_mb = 1000;
  suspended.gpus_alloc = 2;  // its allocated GRES
  suspended.gpus_tres = 2;   // and gres/gpu in its TRES, which native values count
  snap.jobs.push_back(suspended);
  // Held by the admin (reason WAIT_HELD, as the adapter decides).
  Job held = testing::SampleJob(4, JobBase::kPending, "JobHeldAdmin", "main");
  held.held = true;
  held.array_pending_tasks = 10;
  snap.jobs.push_back(held);
  snap.jobs.push_back(
      testing::SampleJob(5, JobBase::kPending, "Dependency", "main"));
  Job completing = testing::SampleJob(6, JobBase::kCompleted, "None", "main");
  completing.flags = kCompleting;
  completing.node_indices = {7};  // not RUNNING/SUSPENDED: no nodes counted
  snap.jobs.push_back(completing);
  Job oom = testing::SampleJob(7, JobBase::kOutOfMemory, "OutOfMemory", "main");
  oom.flags = kRequeue | kExpediting;
  snap.jobs.push_back(oom);
  snap.jobs.push_back(testing::SampleJob(8, JobBase::kBootFail, "None", "main"));

  const auto ours = RenderJobs(snap, true);
  EXPECT_EQ(ours.series.at("slurm_jobs"), 1 + 1 + 1 + 10 + 1 + 1 + 1 + 1);
  EXPECT_EQ(ours.series.at("slurm_jobs_pending"), 11);
  EXPECT_EQ(ours.series.at("slurm_jobs_hold"), 10);
  EXPECT_EQ(ours.series.at("slurm_jobs_running"), 2);
  EXPECT_EQ(ours.series.at("slurm_jobs_suspended"), 1);
  EXPECT_EQ(ours.series.at("slurm_jobs_started"), 6);
  EXPECT_EQ(ours.series.at("slurm_jobs_finished"), 3);
  EXPECT_EQ(ours.series.at("slurm_jobs_completed"), 1);
  EXPECT_EQ(ours.series.at("slurm_jobs_completing"), 1);
  EXPECT_EQ(ours.series.at("slurm_jobs_outofmemory"), 1);
  EXPECT_EQ(ours.series.at("slurm_jobs_bootfail"), 1);
  EXPECT_EQ(ours.series.at("slurm_jobs_requeued"), 1);
  EXPECT_EQ(ours.series.at("slurm_jobs_expediting"), 1);
  EXPECT_EQ(ours.series.at("slurm_jobs_cpus_alloc"), 16);
  EXPECT_EQ(ours.series.at("slurm_jobs_nodes_alloc"), 4);  // 0, 1, 2, 5
  EXPECT_EQ(ours.series.at("slurm_jobs_memory_alloc"), 1000);
  EXPECT_EQ(ours.series.at("slurm_jobs_gpus_alloc"), 2);
}

// 25.11.0 to 26.05.1 add up each record's nodes (docs/native-semantics.md,
// section 4); 25.11.7's own /metrics/jobs printed 2 for two one-node jobs on
// one node (tests/integration/test_native_fidelity.py). Our default counts
// the node once, whatever the release.
TEST(NativeJobs, NodesAllocPerRecordOnReleasesThatSumThem) {
  JobSnapshot snap;
  snap.jobs.push_back(Running(1, 1, {0}));
  snap.jobs.push_back(Running(2, 1, {0}));
  snap.jobs.push_back(Running(3, 2, {0, 1}));
  snap.native_nodes_alloc_per_record = true;
  EXPECT_EQ(RenderJobs(snap, true).series.at("slurm_jobs_nodes_alloc"), 4);
  EXPECT_EQ(RenderJobs(snap, false).series.at("slurm_jobs_nodes_alloc"), 2);
  snap.native_nodes_alloc_per_record = false;
  EXPECT_EQ(RenderJobs(snap, true).series.at("slurm_jobs_nodes_alloc"), 2);
}

TEST(NativeJobs, DefaultsBytesAndNoWrap) {
  JobSnapshot snap;
  // One 70,000-CPU job: Slurm keeps total_cpus in a uint16 per job.
  Job big = Running(1, 70000, {0});
  big.memory_alloc_mb = 3000;
  snap.jobs = {big, Running(2, 100, {1})};
  std::string text;
  const auto ours = RenderJobs(snap, false, &text);
  EXPECT_EQ(ours.series.at("slurm_jobs_cpus_alloc"), 70100);
  EXPECT_EQ(ours.series.at("slurm_jobs_memory_alloc"), 3000 * kMiB);
  EXPECT_NE(text.find("# TYPE slurm_jobs_cpus_alloc gauge\n"),
            std::string::npos);
  const auto native = RenderJobs(snap, true);
  EXPECT_EQ(native.series.at("slurm_jobs_cpus_alloc"), 70100 - 65536);
  EXPECT_EQ(native.series.at("slurm_jobs_memory_alloc"), 3000);
}

TEST(NativeJobs, NoJobsAllZero) {
  const JobSnapshot empty;
  const auto ours = RenderJobs(empty, false);
  EXPECT_EQ(ours.series.size(), 30u);
  for (const auto& [key, value] : ours.series) EXPECT_EQ(value, 0) << key;
}

}  // namespace
}  // namespace sm
