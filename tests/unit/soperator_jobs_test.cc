// SPDX-License-Identifier: GPL-2.0-or-later
// Soperator job families (spec 6.3, 8): labels, resource selection order,
// duration rules and node edges.
// Where a shim case (tests/shim/cases) feeds the plugin the same input,
// the expected lines are that case's (CaseFamily): written once, checked
// here on the core and there through the real plugin.
#include <gtest/gtest.h>

#include "shim_case_families.h"
#include "families/soperator/soperator_jobs.h"
#include "test_util.h"

namespace sm {
namespace {

using testing::CaseFamily;
using testing::Render;
using testing::Samples;
using V = std::vector<std::string>;

constexpr int64_t kNow = 1800000000;

std::string RenderJobs(Rows<Job> jobs) {
  JobSnapshot snap;
  snap.jobs = std::move(jobs);
  MetricSet set;
  AddSoperatorJobFamilies(set, snap, kNow);
  return Render(set);
}

Job Running() {
  Job j;
  j.id = 42;
  j.name = "train \"big\"";
  j.state = JobBase::kRunning;
  j.state_reason = "None";
  j.partition = "gpu";
  j.user_id = 1000;
  j.user_name = "alice";
  j.mail_user = "alice";
  j.std_err = "/home/alice/slurm-42.out";
  j.std_out = "/home/alice/slurm-42.out";
  j.nodes = "node[1-2]";
  j.node_count = 2;
  j.array_job_id = 0;
  j.submit_time = 1799990000;
  j.start_time = 1799999000;
  j.end_time = 1800003600;  // projected end (start + limit)
  j.tres_alloc = "cpu=4,mem=382712M,node=2,billing=4";
  j.tres_req = "cpu=4,mem=1G";
  j.cpus = 4;
  return j;
}

TEST(SoperatorJobs, RunningJobExactLines) {
  const std::string out = RenderJobs({Running()});
  EXPECT_EQ(Samples(out, "slurm_job_info"),
            CaseFamily("jobs_running", "slurm_job_info"));
  EXPECT_EQ(Samples(out, "slurm_job_cpus"),
            CaseFamily("jobs_running", "slurm_job_cpus"));
  EXPECT_EQ(Samples(out, "slurm_job_memory_bytes"),
            CaseFamily("jobs_running", "slurm_job_memory_bytes"));
  EXPECT_EQ(Samples(out, "slurm_job_duration_seconds"),
            CaseFamily("jobs_running", "slurm_job_duration_seconds"));
  EXPECT_EQ(Samples(out, "slurm_node_job"),
            CaseFamily("jobs_running", "slurm_node_job"));
}

TEST(SoperatorJobs, PendingArrayWithMailAndRequestedTres) {
  Job j;
  j.id = 10;
  j.state = JobBase::kPending;
  j.state_reason = "Priority";
  j.user_name = "bob";
  j.mail_user = "bob@example.org";
  j.array_job_id = 10;
  j.array_task_string = "1-5";
  j.submit_time = 1700000000;
  j.start_time = 0;
  j.end_time = 0;
  j.nodes = "None assigned";
  j.tres_req = "cpu=2,mem=1G";
  const std::string out = RenderJobs({j});
  EXPECT_EQ(Samples(out, "slurm_job_info"),
            V{"slurm_job_info{array_job_id=\"10\",array_task_id=\"1-5\","
              "end_time=\"\",finished_time=\"\",job_id=\"10\",job_name=\"\","
              "job_state=\"PENDING\",job_state_reason=\"Priority\","
              "slurm_partition=\"\",standard_error=\"\","
              "standard_output=\"\",start_time=\"\","
              "submit_time=\"1700000000\",user_id=\"\","
              "user_mail=\"bob@example.org\",user_name=\"bob\"} 1"});
  EXPECT_EQ(Samples(out, "slurm_job_cpus"),
            CaseFamily("jobs_pending_array", "slurm_job_cpus"));
  EXPECT_EQ(Samples(out, "slurm_job_memory_bytes"),
            CaseFamily("jobs_pending_array", "slurm_job_memory_bytes"));
  EXPECT_TRUE(Samples(out, "slurm_job_duration_seconds").empty());
  EXPECT_TRUE(Samples(out, "slurm_node_job").empty());
}

TEST(SoperatorJobs, ArrayTaskIdWinsOverTaskString) {
  Job j = Running();
  j.array_job_id = 7;
  j.array_task_id = 3;
  j.array_task_string = "1-5";
  const std::string out = RenderJobs({j});
  EXPECT_NE(out.find("array_job_id=\"7\",array_task_id=\"3\","), std::string::npos);
}

TEST(SoperatorJobs, MailNeedsAUserName) {
  Job j = Running();
  j.user_name = "";
  j.mail_user = "someone@x";
  EXPECT_NE(RenderJobs({j}).find("user_mail=\"\",user_name=\"\""),
            std::string::npos);
}

TEST(SoperatorJobs, FinishedJobs) {
  Job done = Running();
  done.id = 1;
  done.state = JobBase::kCompleted;
  done.end_time = 1799999600;
  Job cancelled_never_started = Running();
  cancelled_never_started.id = 2;
  cancelled_never_started.state = JobBase::kCancelled;
  cancelled_never_started.start_time = 0;
  cancelled_never_started.end_time = 1799999600;
  Job failed_no_end = Running();
  failed_no_end.id = 3;
  failed_no_end.state = JobBase::kFailed;
  failed_no_end.end_time = std::nullopt;
  const std::string out = RenderJobs({done, cancelled_never_started,
                                      failed_no_end});
  EXPECT_NE(out.find("end_time=\"1799999600\",finished_time=\"1799999600\","
                     "job_id=\"1\""),
            std::string::npos);
  EXPECT_NE(out.find("end_time=\"1799999600\",finished_time=\"1799999600\","
                     "job_id=\"2\""),
            std::string::npos);
  EXPECT_NE(out.find("end_time=\"\",finished_time=\"\",job_id=\"3\""),
            std::string::npos);
  EXPECT_EQ(Samples(out, "slurm_job_duration_seconds"),
            CaseFamily("jobs_finished", "slurm_job_duration_seconds"));
}

TEST(SoperatorJobs, DurationMustBePositive) {
  Job future = Running();
  future.id = 1;
  future.start_time = kNow + 100;  // backfill estimate in the future
  Job same_second = Running();
  same_second.id = 2;
  same_second.state = JobBase::kCompleted;
  same_second.end_time = same_second.start_time;
  Job pending_past_estimate = Running();
  pending_past_estimate.id = 3;
  pending_past_estimate.state = JobBase::kPending;
  pending_past_estimate.start_time = kNow - 5;
  const std::string out = RenderJobs({future, same_second,
                                      pending_past_estimate});
  EXPECT_EQ(Samples(out, "slurm_job_duration_seconds"),
            V{"slurm_job_duration_seconds{job_id=\"3\"} 5"});
}

TEST(SoperatorJobs, ResourceSelectionOrder) {
  Job partial;  // alloc gives cpu, req fills memory
  partial.id = 1;
  partial.tres_alloc = "cpu=3";
  partial.tres_req = "cpu=8,mem=2G";
  Job bad_alloc;  // unparsable alloc is ignored, req used
  bad_alloc.id = 2;
  bad_alloc.tres_alloc = "cpu=x";
  bad_alloc.tres_req = "cpu=5,mem=1M";
  Job counts;  // no TRES: cpus (even 0) and memory per node x node count
  counts.id = 3;
  counts.cpus = 0;
  counts.memory_per_node_mb = 100;
  counts.node_count = 2;
  Job no_node_count;  // memory per node without a node count: no memory
  no_node_count.id = 4;
  no_node_count.memory_per_node_mb = 100;
  Job zero_tres;  // zero values in TRES do not count as found
  zero_tres.id = 5;
  zero_tres.tres_alloc = "cpu=0,mem=0";
  zero_tres.cpus = 7;
  const std::string out =
      RenderJobs({partial, bad_alloc, counts, no_node_count, zero_tres});
  EXPECT_EQ(Samples(out, "slurm_job_cpus"),
            (V{"slurm_job_cpus{job_id=\"1\"} 3", "slurm_job_cpus{job_id=\"2\"} 5",
               "slurm_job_cpus{job_id=\"3\"} 0", "slurm_job_cpus{job_id=\"5\"} 7"}));
  EXPECT_EQ(Samples(out, "slurm_job_memory_bytes"),
            CaseFamily("jobs_resources", "slurm_job_memory_bytes"));
}

TEST(SoperatorJobs, BadHostListDropsOnlyTheEdges) {
  Job j = Running();
  j.nodes = "gpu[abc]";
  Job k = Running();
  k.id = 43;
  k.nodes = " (null) ";
  Job dup = Running();
  dup.id = 44;
  dup.nodes = "node1,node1";
  const std::string out = RenderJobs({j, k, dup});
  EXPECT_EQ(Samples(out, "slurm_job_info").size(), 3u);
  EXPECT_EQ(Samples(out, "slurm_node_job"),
            CaseFamily("jobs_bad_hostlist", "slurm_node_job"));
}

TEST(SoperatorJobs, SeriesSortAsStrings) {
  Job a = Running(), b = Running();
  a.id = 9;
  b.id = 10;
  EXPECT_EQ(Samples(RenderJobs({a, b}), "slurm_job_cpus"),
            (V{"slurm_job_cpus{job_id=\"10\"} 4", "slurm_job_cpus{job_id=\"9\"} 4"}));
}

TEST(SoperatorJobs, TerminalSet) {
  EXPECT_FALSE(IsFinished(JobBase::kPending));
  EXPECT_FALSE(IsFinished(JobBase::kRunning));
  EXPECT_FALSE(IsFinished(JobBase::kSuspended));
  for (JobBase b : {JobBase::kCompleted, JobBase::kCancelled, JobBase::kFailed,
                    JobBase::kTimeout, JobBase::kNodeFail, JobBase::kPreempted,
                    JobBase::kBootFail, JobBase::kDeadline,
                    JobBase::kOutOfMemory})
    EXPECT_TRUE(IsFinished(b)) << JobBaseName(b);
}

}  // namespace
}  // namespace sm
