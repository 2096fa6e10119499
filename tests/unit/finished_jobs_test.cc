// SPDX-License-Identifier: GPL-2.0-or-later
// JobSource=accounting (docs/configuration.md, "Finished jobs"): finished
// jobs stay in the per-job families after slurmctld purged them, for the
// lookback after their end, within the count and byte bounds, oldest-ended
// evicted first; labels as Soperator's accounting source prints them
// (Soperator exporter spec, section 11); JobSource=controller unchanged.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "collector.h"
#include "model/finished_jobs.h"
#include "families/soperator/soperator_jobs.h"
#include "test_util.h"

namespace sm {
namespace {

using testing::Render;
using testing::Samples;
using V = std::vector<std::string>;

constexpr int64_t kNow = 1800000000;

// A job that ended `ago` seconds before kNow in `state`.
Job Ended(uint32_t id, JobBase state, int64_t ago) {
  Job j;
  j.id = id;
  j.name = "job";
  j.state = state;
  j.state_reason = state == JobBase::kFailed ? "NonZeroExitCode" : "None";
  j.partition = "main";
  j.user_id = 1000;
  j.user_name = "alice";
  j.mail_user = "alice@example.org";
  j.std_err = "/home/alice/err";
  j.std_out = "/home/alice/out";
  j.nodes = "n[1-2]";
  j.node_count = 2;
  j.array_job_id = 0;
  j.submit_time = kNow - ago - 100;
  j.start_time = kNow - ago - 60;
  j.end_time = kNow - ago;
  j.tres_alloc = "cpu=2,mem=1G";
  return j;
}

Job Running(uint32_t id) {
  Job j = Ended(id, JobBase::kRunning, -3600);  // end: projected
  j.start_time = kNow - 10;
  return j;
}

JobSnapshot Snap(Rows<Job> jobs) {
  JobSnapshot s;
  s.jobs = std::move(jobs);
  return s;
}

std::string RenderWith(const JobSnapshot& s, const FinishedJobsView* view,
                       int64_t now = kNow) {
  MetricSet set;
  AddSoperatorJobFamilies(set, s, now, view);
  return Render(set);
}

// job_id label values of slurm_job_info, sorted.
V Ids(const std::string& body) {
  V out;
  for (const std::string& line : Samples(body, "slurm_job_info")) {
    // After a comma: array_job_id="..." sorts first and contains job_id=".
    const size_t at = line.find(",job_id=\"") + 9;
    out.push_back(line.substr(at, line.find('"', at) - at));
  }
  std::sort(out.begin(), out.end());
  return out;
}

FinishedJobLimits Limits(int64_t lookback = 3600) {
  FinishedJobLimits l;
  l.lookback_seconds = lookback;
  return l;
}

// A failed, a cancelled and a completed job outlive slurmctld's purge.
TEST(FinishedJobs, PurgedJobsStayServed) {
  FinishedJobs kept(Limits());
  const JobSnapshot first = Snap({Running(1), Ended(2, JobBase::kFailed, 5),
                                  Ended(3, JobBase::kCancelled, 5),
                                  Ended(4, JobBase::kCompleted, 5)});
  auto view = kept.Observe(first, kNow);
  EXPECT_TRUE(view->purged.empty());  // slurmctld still holds them
  EXPECT_EQ(Ids(RenderWith(first, view.get())), (V{"1", "2", "3", "4"}));

  // MinJobAge later: slurmctld holds only the running job.
  const JobSnapshot later = Snap({Running(1)});
  view = kept.Observe(later, kNow + 300);
  EXPECT_EQ(view->purged.size(), 3u);
  const std::string out = RenderWith(later, view.get(), kNow + 300);
  EXPECT_EQ(Ids(out), (V{"1", "2", "3", "4"}));
  EXPECT_NE(out.find("job_id=\"2\",job_name=\"job\",job_state=\"FAILED\","
                     "job_state_reason=\"NonZeroExitCode\""),
            std::string::npos)
      << out;
  // The purged job keeps its other families: cpus, memory, duration, edges.
  EXPECT_EQ(Samples(out, "slurm_job_cpus").size(), 4u);
  EXPECT_EQ(Samples(out, "slurm_job_memory_bytes").size(), 4u);
  EXPECT_NE(out.find("slurm_job_duration_seconds{job_id=\"3\"} 60"), std::string::npos);
  EXPECT_NE(out.find("slurm_node_job{job_id=\"4\",node_name=\"n2\""), std::string::npos);
}

// The rule: served while end_time >= now - lookback, then gone, whether
// slurmctld still holds the job or not.
TEST(FinishedJobs, ExpireByEndTimePlusLookback) {
  FinishedJobs kept(Limits(600));
  kept.Observe(Snap({Ended(2, JobBase::kFailed, 0), Ended(3, JobBase::kCompleted, 300)}),
               kNow);
  const JobSnapshot none;
  auto view = kept.Observe(none, kNow + 300);
  EXPECT_EQ(Ids(RenderWith(none, view.get())), (V{"2", "3"}));
  // Job 3 ended at kNow - 300: at kNow + 300 it is exactly lookback old.
  view = kept.Observe(none, kNow + 301);
  EXPECT_EQ(Ids(RenderWith(none, view.get())), (V{"2"}));
  EXPECT_EQ(kept.size(), 1u);
  view = kept.Observe(none, kNow + 600);
  EXPECT_EQ(Ids(RenderWith(none, view.get())), (V{"2"}));
  view = kept.Observe(none, kNow + 601);
  EXPECT_EQ(Ids(RenderWith(none, view.get())), V{});
  EXPECT_EQ(kept.size(), 0u);
  EXPECT_EQ(kept.bytes(), 0u);

  // slurmctld still holding a job older than the lookback (MinJobAge
  // longer than it): not served either, as slurmdbd would not list it.
  const JobSnapshot held = Snap({Running(1), Ended(5, JobBase::kTimeout, 700)});
  view = kept.Observe(held, kNow);
  EXPECT_EQ(Ids(RenderWith(held, view.get())), (V{"1"}));
}

TEST(FinishedJobs, CountBoundEvictsOldestEndedFirst) {
  FinishedJobLimits l = Limits();
  l.max_jobs = 2;
  FinishedJobs kept(l);
  kept.Observe(Snap({Ended(7, JobBase::kCompleted, 10), Ended(8, JobBase::kCompleted, 30),
                     Ended(9, JobBase::kFailed, 20)}),
               kNow);
  EXPECT_EQ(kept.size(), 2u);
  const JobSnapshot none;
  auto view = kept.Observe(none, kNow + 1);
  EXPECT_EQ(Ids(RenderWith(none, view.get())), (V{"7", "9"}));  // 8 ended first
}

TEST(FinishedJobs, ByteBoundEvictsOldestEndedFirst) {
  FinishedJobs probe(Limits());
  probe.Observe(Snap({Ended(1, JobBase::kCompleted, 1)}), kNow);
  const size_t one = probe.bytes();
  ASSERT_GT(one, 100u);

  FinishedJobLimits l = Limits();
  l.max_bytes = 2 * one + one / 2;  // room for two
  FinishedJobs kept(l);
  kept.Observe(Snap({Ended(1, JobBase::kCompleted, 40), Ended(2, JobBase::kCompleted, 30),
                     Ended(3, JobBase::kCompleted, 20)}),
               kNow);
  EXPECT_LE(kept.bytes(), l.max_bytes);
  const JobSnapshot none;
  auto view = kept.Observe(none, kNow);
  EXPECT_EQ(Ids(RenderWith(none, view.get())), (V{"2", "3"}));

  // A long name costs its bytes: one such job pushes out an older one.
  Job big = Ended(4, JobBase::kFailed, 10);
  const std::string name(one, 'x');
  big.name = name;
  kept.Observe(Snap({big}), kNow);
  view = kept.Observe(none, kNow);
  EXPECT_EQ(Ids(RenderWith(none, view.get())), (V{"4"}));
}

// The copy owns its strings: the collection's arena may go.
TEST(FinishedJobs, CopyOutlivesTheCollection) {
  FinishedJobs kept(Limits());
  {
    std::string name = "short-lived";
    Job j = Ended(5, JobBase::kOutOfMemory, 1);
    j.name = name;
    kept.Observe(Snap({j}), kNow);
    name.assign(name.size(), '#');
  }
  const JobSnapshot none;
  const auto view = kept.Observe(none, kNow);
  const std::string out = RenderWith(none, view.get());
  EXPECT_NE(out.find("job_name=\"short-lived\",job_state=\"OUT_OF_MEMORY\""),
            std::string::npos)
      << out;
}

// A requeued job keeps its id and runs again: the controller's record is
// served, never a remembered copy beside it.
TEST(FinishedJobs, RequeuedJobIsNotDuplicated) {
  FinishedJobs kept(Limits());
  kept.Observe(Snap({Ended(6, JobBase::kNodeFail, 5)}), kNow);
  const JobSnapshot again = Snap({Running(6)});
  const auto view = kept.Observe(again, kNow + 10);
  EXPECT_TRUE(view->purged.empty());
  EXPECT_EQ(kept.size(), 0u);
  const std::string out = RenderWith(again, view.get());
  EXPECT_EQ(Samples(out, "slurm_job_info").size(), 1u);
  EXPECT_NE(out.find("job_state=\"RUNNING\""), std::string::npos);
}

// What the controller last showed wins: a job still completing on a node
// then done.
TEST(FinishedJobs, LastSightWins) {
  FinishedJobs kept(Limits());
  Job completing = Ended(9, JobBase::kCompleted, 1);
  completing.nodes = "n2";
  kept.Observe(Snap({completing}), kNow);
  kept.Observe(Snap({Ended(9, JobBase::kCompleted, 1)}), kNow + 1);
  const JobSnapshot none;
  const auto view = kept.Observe(none, kNow + 2);
  EXPECT_EQ(Samples(RenderWith(none, view.get()), "slurm_node_job").size(), 2u);
}

// Soperator's accounting rows carry no uid and no mail (spec section 11).
TEST(FinishedJobs, AccountingLabelsHaveNoUidNorMail) {
  const JobSnapshot s = Snap({Running(1)});
  FinishedJobs kept(Limits());
  const auto view = kept.Observe(s, kNow);
  const std::string acct = RenderWith(s, view.get());
  EXPECT_NE(acct.find("user_id=\"\",user_mail=\"\",user_name=\"alice\""),
            std::string::npos)
      << acct;
  const std::string ctl = RenderWith(s, nullptr);
  EXPECT_NE(ctl.find("user_id=\"1000\",user_mail=\"alice@example.org\""),
            std::string::npos)
      << ctl;
}

// slurmdbd's allocation_nodes is 0 while pending: no memory from
// memory-per-node x nodes there, as in Soperator's accounting source.
TEST(FinishedJobs, AccountingPendingJobHasNoPerNodeMemory) {
  Job p;
  p.id = 11;
  p.state = JobBase::kPending;
  p.node_count = 2;
  p.memory_per_node_mb = 1024;
  const JobSnapshot s = Snap({p});
  FinishedJobs kept(Limits());
  const auto view = kept.Observe(s, kNow);
  EXPECT_EQ(Samples(RenderWith(s, view.get()), "slurm_job_memory_bytes"), V{});
  EXPECT_EQ(Samples(RenderWith(s, nullptr), "slurm_job_memory_bytes"),
            V{"slurm_job_memory_bytes{job_id=\"11\"} 2.147483648e+09"});
}

// JobSource=controller: the same bytes as before, finished jobs older than
// any lookback included (slurmctld decides with MinJobAge).
TEST(FinishedJobs, ControllerModeRendersEveryHeldJobUnchanged) {
  const JobSnapshot s = Snap({Running(1), Ended(2, JobBase::kFailed, 100000)});
  MetricSet a;
  AddSoperatorJobFamilies(a, s, kNow);
  const std::string out = Render(a);
  EXPECT_EQ(Ids(out), (V{"1", "2"}));
  EXPECT_NE(out.find("user_id=\"1000\",user_mail=\"alice@example.org\""),
            std::string::npos);
}

// Through the collector: jobs 2 (failed) then gone from slurmctld.
class PurgingSource : public Source {
 public:
  std::shared_ptr<NodeSnapshot> CollectNodes(LockTiming&, std::string&) override {
    return testing::OneIdleNode();
  }
  std::shared_ptr<JobSnapshot> CollectJobs(LockTiming&, std::string&) override {
    auto s = std::make_shared<JobSnapshot>();
    s->jobs.push_back(Running(1));
    if (!purged) s->jobs.push_back(Ended(2, JobBase::kFailed, 5));
    return s;
  }
  std::shared_ptr<DiagSnapshot> CollectDiag(LockTiming&, std::string&) override {
    return std::make_shared<DiagSnapshot>();
  }
  bool purged = false;
};

std::string Collect(std::optional<FinishedJobLimits> finished, int64_t* now) {
  PurgingSource src;
  SelfMonitoring mon;
  CollectorOptions o;
  o.endpoints = {Endpoint::kSoperator};
  o.unix_now = [now] { return *now; };
  o.finished_jobs = finished;
  Collector c(src, o, mon);
  c.CollectOnce();
  src.purged = true;
  *now += 60;
  c.CollectOnce();
  return c.Get(Endpoint::kSoperator, Format::kText, View::kFull)->text();
}

TEST(FinishedJobs, CollectorServesPurgedJobOnlyWithAccounting) {
  int64_t now = kNow;
  EXPECT_EQ(Ids(Collect(std::nullopt, &now)), (V{"1"}));
  now = kNow;
  EXPECT_EQ(Ids(Collect(Limits(), &now)), (V{"1", "2"}));
  now = kNow;
  EXPECT_EQ(Ids(Collect(Limits(30), &now)), (V{"1"}));  // ended 65 s ago
}

}  // namespace
}  // namespace sm
