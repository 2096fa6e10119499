// SPDX-License-Identifier: GPL-2.0-or-later
// GPUs per job and per cluster, user, account and partition
// (docs/metrics.md "GPUs per job", docs/metrics-native.md "GPUs"): the
// allocated GRES count by default, whether or not gres/gpu is an accounted
// TRES; Slurm's TRES-based count only with NativeValues=yes.
#include <gtest/gtest.h>

#include "families/ours/job_gpus.h"
#include "families/native/native_jobs.h"
#include "families/native/native_partitions.h"
#include "native_sample.h"
#include "families/native/native_users_accounts.h"
#include "test_util.h"

namespace sm {
namespace {

using testing::Render;
using testing::Samples;
using V = std::vector<std::string>;

Job WithGpus(uint32_t id, JobBase state, std::string_view user,
             std::string_view account, int64_t gpus, int64_t tres) {
  Job j = testing::SampleJob(id, state, "None", "gpu");
  j.user_name = user;
  j.account = account;
  j.gpus_alloc = gpus;
  j.gpus_tres = tres;
  return j;
}

// gres/gpu not in AccountingStorageTRES: the TRES count is 0 on every job,
// the allocated GRES are not.
JobSnapshot NoGpuTres() {
  JobSnapshot snap;
  // --gres=gpu:a100:2 and --gpus-per-node=1 on two nodes, running.
  snap.jobs.push_back(WithGpus(10, JobBase::kRunning, "alice", "chem", 2, 0));
  snap.jobs.push_back(WithGpus(11, JobBase::kRunning, "bob", "phys", 2, 0));
  // Suspended: still holds its GPU (counted, as Slurm counts it).
  snap.jobs.push_back(WithGpus(12, JobBase::kSuspended, "alice", "chem", 1, 0));
  // Pending: nothing allocated yet.
  snap.jobs.push_back(WithGpus(13, JobBase::kPending, "bob", "phys", 0, 0));
  // Completed: keeps its allocation until purged (its own series), but is
  // no longer counted in the totals.
  snap.jobs.push_back(WithGpus(14, JobBase::kCompleted, "bob", "phys", 4, 0));
  // No GPUs at all.
  snap.jobs.push_back(WithGpus(15, JobBase::kRunning, "carol", "chem", 0, 0));
  return snap;
}

std::string RenderAll(const JobSnapshot& jobs, bool native_values) {
  NodeSnapshot nodes;
  Partition gpu;
  gpu.name = "gpu";
  nodes.partitions.push_back(gpu);
  MetricSet set;
  AddJobGpuFamilies(set, jobs);
  AddNativeJobFamilies(set, jobs, {0, native_values});
  AddNativeUserAccountFamilies(set, jobs, {0, native_values});
  AddNativePartitionFamilies(set, nodes, &jobs, {0, native_values});
  return Render(set);
}

TEST(JobGpus, OneSeriesPerJobHoldingGpus) {
  const std::string out = RenderAll(NoGpuTres(), false);
  EXPECT_EQ(Samples(out, "slurm_job_gpus"),
            (V{"slurm_job_gpus{job_id=\"10\"} 2",
               "slurm_job_gpus{job_id=\"11\"} 2",
               "slurm_job_gpus{job_id=\"12\"} 1",
               "slurm_job_gpus{job_id=\"14\"} 4"}));
  // The same with NativeValues=yes: a family of ours, not Slurm's.
  EXPECT_EQ(Samples(RenderAll(NoGpuTres(), true), "slurm_job_gpus"),
            Samples(out, "slurm_job_gpus"));
}

TEST(JobGpus, TotalsFromAllocatedGresWithoutGpuTres) {
  const std::string out = RenderAll(NoGpuTres(), false);
  EXPECT_EQ(Samples(out, "slurm_jobs_gpus_alloc"),
            (V{"slurm_jobs_gpus_alloc 5"}));
  EXPECT_EQ(Samples(out, "slurm_user_jobs_gpus_alloc"),
            (V{"slurm_user_jobs_gpus_alloc{username=\"alice\"} 3",
               "slurm_user_jobs_gpus_alloc{username=\"bob\"} 2",
               "slurm_user_jobs_gpus_alloc{username=\"carol\"} 0"}));
  EXPECT_EQ(Samples(out, "slurm_account_jobs_gpus_alloc"),
            (V{"slurm_account_jobs_gpus_alloc{account=\"chem\"} 3",
               "slurm_account_jobs_gpus_alloc{account=\"phys\"} 2"}));
  EXPECT_EQ(Samples(out, "slurm_partition_jobs_gpus_alloc"),
            (V{"slurm_partition_jobs_gpus_alloc{partition=\"gpu\"} 5"}));
}

// NativeValues=yes keeps Slurm's numbers: 0 without gres/gpu in
// AccountingStorageTRES (docs/native-semantics.md, defect 10).
TEST(JobGpus, NativeValuesKeepSlurmsTresCount) {
  const std::string out = RenderAll(NoGpuTres(), true);
  EXPECT_EQ(Samples(out, "slurm_jobs_gpus_alloc"),
            (V{"slurm_jobs_gpus_alloc 0"}));
  EXPECT_EQ(Samples(out, "slurm_user_jobs_gpus_alloc"),
            (V{"slurm_user_jobs_gpus_alloc{username=\"alice\"} 0",
               "slurm_user_jobs_gpus_alloc{username=\"bob\"} 0",
               "slurm_user_jobs_gpus_alloc{username=\"carol\"} 0"}));
  EXPECT_EQ(Samples(out, "slurm_partition_jobs_gpus_alloc"),
            (V{"slurm_partition_jobs_gpus_alloc{partition=\"gpu\"} 0"}));
}

// With gres/gpu accounted both counts agree, and so do both modes.
TEST(JobGpus, GpuTresAgreesWithGres) {
  JobSnapshot snap = NoGpuTres();
  for (Job& j : snap.jobs) j.gpus_tres = j.gpus_alloc;
  for (bool native : {false, true}) {
    const std::string out = RenderAll(snap, native);
    EXPECT_EQ(Samples(out, "slurm_jobs_gpus_alloc"),
              (V{"slurm_jobs_gpus_alloc 5"}))
        << native;
    EXPECT_EQ(Samples(out, "slurm_account_jobs_gpus_alloc"),
              (V{"slurm_account_jobs_gpus_alloc{account=\"chem\"} 3",
                 "slurm_account_jobs_gpus_alloc{account=\"phys\"} 2"}))
        << native;
  }
}

}  // namespace
}  // namespace sm
