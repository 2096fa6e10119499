// SPDX-License-Identifier: GPL-2.0-or-later
// slurm_job_queue_wait_seconds: one observation per start, across
// collections.
#include <gtest/gtest.h>

#include "families/ours/queue_wait.h"
#include "test_util.h"

namespace sm {
namespace {

using testing::Render;
using testing::Samples;
using V = std::vector<std::string>;

Job J(uint32_t id, JobBase state, std::string_view part, int64_t submit,
      std::optional<int64_t> start, std::string_view nodes) {
  Job j;
  j.id = id;
  j.state = state;
  j.partition = part;
  j.statistics_partition = part;
  j.submit_time = submit;
  j.start_time = start;
  j.nodes = nodes;
  return j;
}

std::string Body(const QueueWaitHistory& h) {
  MetricSet set;
  h.AddFamilies(set);
  return Render(set);
}

TEST(QueueWait, FirstCollectionOnlyLearns) {
  JobSnapshot s;
  s.jobs.push_back(J(1, JobBase::kRunning, "debug", 100, 160, "vm"));
  QueueWaitHistory h;
  h.Observe(s);
  EXPECT_EQ(Body(h), "");
}

TEST(QueueWait, EachStartOnce) {
  QueueWaitHistory h;
  JobSnapshot first;
  first.jobs.push_back(J(1, JobBase::kRunning, "debug", 100, 160, "vm"));
  first.jobs.push_back(J(2, JobBase::kPending, "debug", 100, 5000, ""));
  first.jobs.push_back(J(3, JobBase::kRunning, "batch", 100, 200, "vm"));
  h.Observe(first);

  JobSnapshot second;
  second.jobs.push_back(J(1, JobBase::kRunning, "debug", 100, 160, "vm"));  // seen
  second.jobs.push_back(J(2, JobBase::kCompleted, "debug", 100, 145, "vm"));  // 45 s
  second.jobs.push_back(J(3, JobBase::kRunning, "batch", 100, 900, "vm"));  // requeued: 800 s
  second.jobs.push_back(J(4, JobBase::kCancelled, "debug", 100, 300, ""));  // never ran
  Job multi = J(5, JobBase::kRunning, "", 1000, 1000, "vm");  // no wait
  multi.partition = "debug,batch";
  multi.statistics_partition = "debug";
  second.jobs.push_back(multi);
  h.Observe(second);
  h.Observe(second);  // the same starts again: nothing new

  const std::string out = Body(h);
  EXPECT_EQ(Samples(out, "slurm_job_queue_wait_seconds_count"),
            (V{"slurm_job_queue_wait_seconds_count{partition=\"batch\"} 1",
               "slurm_job_queue_wait_seconds_count{partition=\"debug\"} 2"}));
  EXPECT_EQ(Samples(out, "slurm_job_queue_wait_seconds_sum"),
            (V{"slurm_job_queue_wait_seconds_sum{partition=\"batch\"} 800",
               "slurm_job_queue_wait_seconds_sum{partition=\"debug\"} 45"}));
  const V debug_buckets = {
      "slurm_job_queue_wait_seconds_bucket{partition=\"debug\",le=\"1\"} 1",
      "slurm_job_queue_wait_seconds_bucket{partition=\"debug\",le=\"5\"} 1",
      "slurm_job_queue_wait_seconds_bucket{partition=\"debug\",le=\"10\"} 1",
      "slurm_job_queue_wait_seconds_bucket{partition=\"debug\",le=\"30\"} 1",
      "slurm_job_queue_wait_seconds_bucket{partition=\"debug\",le=\"60\"} 2",
  };
  const V all = Samples(out, "slurm_job_queue_wait_seconds_bucket");
  EXPECT_EQ(V(all.begin() + 17, all.begin() + 22), debug_buckets);
  EXPECT_EQ(all.back(),
            "slurm_job_queue_wait_seconds_bucket{partition=\"debug\",le=\"+Inf\"} 2");
  EXPECT_NE(out.find("# TYPE slurm_job_queue_wait_seconds histogram\n"),
            std::string::npos);
}

}  // namespace
}  // namespace sm
