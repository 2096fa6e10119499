// SPDX-License-Identifier: GPL-2.0-or-later
// Slurm's /metrics/jobs-users-accts families: the real 26.05.3 response
// reproduced from the sample cluster, keys and labels, and our corrected
// defaults (bytes, no 32-bit truncation).
#include "families/native/native_users_accounts.h"

#include <gtest/gtest.h>

#include "native_sample.h"
#include "families/soperator/node_history.h"
#include "test_util.h"

namespace sm {
namespace {

using testing::ParseExposition;
using testing::Render;
using testing::Samples;
using V = std::vector<std::string>;

constexpr double kMiB = 1048576;

testing::Exposition RenderUa(const JobSnapshot& snap, bool native_values,
                             std::string* text = nullptr) {
  MetricSet set;
  AddNativeUserAccountFamilies(set, snap, {0, native_values});
  const std::string out = Render(set);
  if (text) *text = out;
  return ParseExposition(out, false);
}

TEST(NativeUsersAccounts, ReproducesSlurmResponse) {
  std::string text;
  const auto ours = RenderUa(testing::SampleJobs(), true, &text);
  const auto sample = testing::Sample("jobs-users-accts");
  EXPECT_EQ(sample.series.size(), 60u);
  testing::ExpectSameSeries(sample, ours);
  testing::ExpectSameComments(sample, ours);
  // Records, where slurm_jobs counts 8 tasks; the empty account keeps its
  // label, empty (Slurm drops it: the same stored series).
  EXPECT_EQ(Samples(text, "slurm_user_jobs"),
            V{"slurm_user_jobs{username=\"root\"} 6"});
  EXPECT_EQ(Samples(text, "slurm_account_jobs"),
            V{"slurm_account_jobs{account=\"\"} 6"});
}

TEST(NativeUsersAccounts, EndpointIsNativeOnly) {
  auto jobs = std::make_shared<const JobSnapshot>(testing::SampleJobs());
  NodeHistory history(0);
  MetricSet set;
  AddEndpointFamilies(set, Endpoint::kJobsUsersAccts, {nullptr, jobs, nullptr},
                      history, {0, true});
  testing::ExpectSameSeries(testing::Sample("jobs-users-accts"),
                            ParseExposition(Render(set), false));
}

Job UserJob(uint32_t id, std::string_view user, std::string_view account) {
  Job j = testing::SampleJob(id, JobBase::kRunning, "None", "main");
  j.user_name = user;
  j.account = account;
  return j;
}

TEST(NativeUsersAccounts, KeysAndTotals) {
  JobSnapshot snap;
  Job a = UserJob(1, "alice", "physics");
  a.cpus_alloc = 4;
  a.node_indices = {0, 1};
  Job b = UserJob(2, "alice", "chemistry");
  b.cpus_alloc = 2;
  b.node_indices = {1};
  Job c = UserJob(3, "bob", "physics");
  c.state = JobBase::kPending;
  c.array_pending_tasks = 5;
  Job d = UserJob(4, "", "physics");  // uid that does not resolve
  d.state = JobBase::kCompleted;
  snap.jobs = {a, b, c, d};
  std::string text;
  const auto ours = RenderUa(snap, true, &text);
  EXPECT_EQ(Samples(text, "slurm_user_jobs"),
            (V{"slurm_user_jobs{username=\"\"} 1",
               "slurm_user_jobs{username=\"alice\"} 2",
               "slurm_user_jobs{username=\"bob\"} 1"}));
  EXPECT_EQ(Samples(text, "slurm_account_jobs_pending"),
            (V{"slurm_account_jobs_pending{account=\"chemistry\"} 0",
               "slurm_account_jobs_pending{account=\"physics\"} 5"}));
  EXPECT_EQ(ours.series.at("slurm_user_jobs_cpus_alloc{username=\"alice\"}"),
            6);
  EXPECT_EQ(ours.series.at("slurm_user_jobs_nodes_alloc{username=\"alice\"}"),
            2);
  EXPECT_EQ(ours.series.at("slurm_account_jobs{account=\"physics\"}"), 3);
  EXPECT_EQ(ours.series.at("slurm_account_jobs_finished{account=\"physics\"}"),
            1);
  EXPECT_EQ(ours.series.at("slurm_user_jobs_completed{username=\"\"}"), 1);
}

// As /metrics/jobs: 25.11.0 to 26.05.1 add up the records' nodes per key
// (native_jobs_test.cc, NodesAllocPerRecordOnReleasesThatSumThem).
TEST(NativeUsersAccounts, NodesAllocPerRecord) {
  JobSnapshot snap;
  Job a = UserJob(1, "alice", "physics");
  a.node_indices = {0, 1};
  Job b = UserJob(2, "alice", "physics");
  b.node_indices = {1};
  snap.jobs = {a, b};
  snap.native_nodes_alloc_per_record = true;
  const auto ours = RenderUa(snap, true);
  EXPECT_EQ(ours.series.at("slurm_user_jobs_nodes_alloc{username=\"alice\"}"), 3);
  EXPECT_EQ(ours.series.at("slurm_account_jobs_nodes_alloc{account=\"physics\"}"), 3);
  EXPECT_EQ(RenderUa(snap, false).series.at(
                "slurm_user_jobs_nodes_alloc{username=\"alice\"}"),
            2);
}

TEST(NativeUsersAccounts, DefaultsBytesAndNoTruncation) {
  JobSnapshot snap;
  // 2^32 + 1000 MB: Slurm prints the low 32 bits of the uint64 MB sum.
  Job big = UserJob(1, "alice", "physics");
  big.memory_alloc_mb = (int64_t{1} << 32) + 1000;
  big.cpus_alloc = 70000;
  snap.jobs = {big};
  std::string text;
  const auto ours = RenderUa(snap, false, &text);
  EXPECT_EQ(ours.series.at("slurm_user_jobs_memory_alloc{username=\"alice\"}"),
            (4294967296.0 + 1000) * kMiB);
  EXPECT_EQ(
      ours.series.at("slurm_account_jobs_memory_alloc{account=\"physics\"}"),
      (4294967296.0 + 1000) * kMiB);
  EXPECT_EQ(ours.series.at("slurm_user_jobs_cpus_alloc{username=\"alice\"}"),
            70000);
  EXPECT_NE(text.find("# TYPE slurm_user_jobs gauge\n"), std::string::npos);
  const auto native = RenderUa(snap, true);
  EXPECT_EQ(
      native.series.at("slurm_user_jobs_memory_alloc{username=\"alice\"}"),
      1000);
  EXPECT_EQ(native.series.at("slurm_user_jobs_cpus_alloc{username=\"alice\"}"),
            4464);
}

TEST(NativeUsersAccounts, NoJobsEmptyBody) {
  const JobSnapshot empty;
  std::string text;
  RenderUa(empty, false, &text);
  EXPECT_EQ(text, "");
}

}  // namespace
}  // namespace sm
