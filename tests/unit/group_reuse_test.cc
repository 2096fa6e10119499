// SPDX-License-Identifier: GPL-2.0-or-later
// Groups of families taken from the body a render replaces while what they
// follow from is unchanged (render/group_reuse.h, GroupReuse): the
// jobs' and nodes' content fingerprints see every field, a render that
// takes groups gives a full render's bytes, and a group is built again as
// soon as its inputs move (docs/performance.md, "Render cost that follows
// change").
#include <gtest/gtest.h>

#include <array>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "native_sample.h"
#include "render/group_reuse.h"
#include "serving/endpoints.h"
#include "serving/family_registry.h"

namespace sm {
namespace {

// One job with every field set to something other than its default.
Job FullJob() {
  Job j = testing::SampleJob(7, JobBase::kRunning, "None", "main");
  j.name = "train";
  j.flags = 1;
  j.user_id = 1000;
  j.user_name = "alice";
  j.mail_user = "alice@example.org";
  j.std_err = "/home/alice/err";
  j.std_out = "/home/alice/out";
  j.nodes = "n[1-2]";
  j.node_count = 2;
  j.array_job_id = 6;
  j.array_task_id = 1;
  j.array_task_string = "2-3";
  j.submit_time = 100;
  j.start_time = 200;
  j.end_time = 300;
  j.tres_alloc = "cpu=4";
  j.tres_req = "cpu=4";
  j.cpus = 4;
  j.memory_per_node_mb = 1024;
  j.account = "physics";
  j.statistics_partition = "main";
  j.squeue_reason = "Resources";
  j.cpus_alloc = 4;
  j.memory_alloc_mb = 2048;
  j.gpus_alloc = 2;
  j.gpus_tres = 2;
  j.min_nodes = 1;
  j.max_nodes = 2;
  j.array_pending_tasks = 2;
  j.node_indices = {0, 1};
  return j;
}

struct JobsContents {
  Fingerprint all, besides_times;
};

JobsContents ContentOf(const Job& j, bool per_record = false) {
  JobSnapshot s;
  s.jobs.push_back(j);
  s.native_nodes_alloc_per_record = per_record;
  return {s.Content(), s.ContentBesidesTimes()};
}

bool IsTime(std::string_view field) {
  return field.starts_with("start_time") || field.starts_with("end_time");
}

// Each field of Job, changed alone, changes the content: a field the
// fingerprint missed would let a taken group serve stale rows. (The
// structured binding of Fields(const Job&) in snapshot.h stops the build
// when Job gains a field.) Each but the start and end times also changes the content
// besides the times, and those two do not.
TEST(JobsContent, EveryFieldCounts) {
  const JobsContents base = ContentOf(FullJob());
  EXPECT_EQ(ContentOf(FullJob()).all, base.all);
  EXPECT_EQ(ContentOf(FullJob()).besides_times, base.besides_times);
  EXPECT_NE(ContentOf(FullJob(), true).all, base.all);
  EXPECT_NE(ContentOf(FullJob(), true).besides_times, base.besides_times);
  const std::vector<std::pair<const char*, std::function<void(Job&)>>> changes = {
      {"id", [](Job& j) { j.id = 8; }},
      {"name", [](Job& j) { j.name = "trains"; }},
      {"state", [](Job& j) { j.state = JobBase::kPending; }},
      {"flags", [](Job& j) { j.flags = 3; }},
      {"state_reason", [](Job& j) { j.state_reason = "Priority"; }},
      {"partition", [](Job& j) { j.partition = "gpu"; }},
      {"user_id", [](Job& j) { j.user_id = 1001; }},
      {"user_id unset", [](Job& j) { j.user_id.reset(); }},
      {"user_name", [](Job& j) { j.user_name = "bob"; }},
      {"mail_user", [](Job& j) { j.mail_user = "bob@example.org"; }},
      {"std_err", [](Job& j) { j.std_err = "/err"; }},
      {"std_out", [](Job& j) { j.std_out = "/out"; }},
      {"nodes", [](Job& j) { j.nodes = "n[1-3]"; }},
      {"node_count", [](Job& j) { j.node_count = 3; }},
      {"array_job_id", [](Job& j) { j.array_job_id = 5; }},
      {"array_task_id", [](Job& j) { j.array_task_id = 2; }},
      {"array_task_id unset", [](Job& j) { j.array_task_id.reset(); }},
      {"array_task_string", [](Job& j) { j.array_task_string = "2-4"; }},
      {"submit_time", [](Job& j) { j.submit_time = 101; }},
      {"start_time", [](Job& j) { j.start_time = 201; }},
      {"end_time", [](Job& j) { j.end_time = 301; }},
      {"end_time 0", [](Job& j) { j.end_time = 0; }},
      {"start_time unset", [](Job& j) { j.start_time.reset(); }},
      {"end_time unset", [](Job& j) { j.end_time.reset(); }},
      {"tres_alloc", [](Job& j) { j.tres_alloc = "cpu=8"; }},
      {"tres_req", [](Job& j) { j.tres_req = "cpu=8"; }},
      {"cpus", [](Job& j) { j.cpus = 8; }},
      {"memory_per_node_mb", [](Job& j) { j.memory_per_node_mb.reset(); }},
      {"account", [](Job& j) { j.account = "chemistry"; }},
      {"statistics_partition", [](Job& j) { j.statistics_partition = "gpu"; }},
      {"squeue_pending", [](Job& j) { j.squeue_pending = !j.squeue_pending; }},
      {"squeue_reason", [](Job& j) { j.squeue_reason = "Priority"; }},
      {"held", [](Job& j) { j.held = !j.held; }},
      {"waits_part_node_limit", [](Job& j) { j.waits_part_node_limit = !j.waits_part_node_limit; }},
      {"reason_has_part_node_limit_bit",
       [](Job& j) { j.reason_has_part_node_limit_bit = !j.reason_has_part_node_limit_bit; }},
      {"cpus_alloc", [](Job& j) { j.cpus_alloc = 8; }},
      {"memory_alloc_mb", [](Job& j) { j.memory_alloc_mb = 4096; }},
      {"gpus_alloc", [](Job& j) { j.gpus_alloc = 1; }},
      {"gpus_tres", [](Job& j) { j.gpus_tres = 1; }},
      {"min_nodes", [](Job& j) { j.min_nodes = 2; }},
      {"max_nodes", [](Job& j) { j.max_nodes = 3; }},
      {"array_pending_tasks", [](Job& j) { j.array_pending_tasks = 1; }},
      {"node_indices", [](Job& j) { j.node_indices = {0, 2}; }},
      {"node_indices shorter", [](Job& j) { j.node_indices = {0}; }},
  };
  for (const auto& [field, change] : changes) {
    Job j = FullJob();
    change(j);
    const JobsContents changed = ContentOf(j);
    EXPECT_NE(changed.all, base.all) << field;
    if (IsTime(field)) {
      EXPECT_EQ(changed.besides_times, base.besides_times) << field;
    } else {
      EXPECT_NE(changed.besides_times, base.besides_times) << field;
    }
  }
}

// One node with every field set to something other than its default.
Node FullNode() {
  Node n = testing::SampleNode("n1", NodeBase::kMixed, node_flag::kDrain);
  n.instance_id = "i-1";
  n.address = "10.0.0.1";
  n.comment = "rack 4";
  n.reason = "maintenance";
  n.reservation = "weekly";
  n.tres = "cpu=16";
  n.stored_base = NodeBase::kAllocated;
  n.statistics_base = NodeBase::kMixed;
  n.partitions = {"main", "gpu"};
  n.cpus = 16;
  n.alloc_cpus = 8;
  n.alloc_idle_cpus = 8;
  n.effective_cpus = 16;
  n.real_memory_mb = 1024;
  n.alloc_memory_mb = 512;
  n.free_memory_mb = 256;
  n.specialized_memory_mb = 64;
  n.gres_configured = {{"gpu:h100", 4}};
  n.gres_used = {{"gpu:h100", 2}};
  n.state_long = "mixed";
  n.gpus_total = 4;
  n.gpus_alloc = 2;
  n.gpus_tres = 2;
  return n;
}

Partition FullPartition() {
  Partition p;
  p.name = "main";
  p.node_indices = {0};
  p.total_cpus = 16;
  p.total_nodes = 1;
  p.max_nodes = 4;
  p.unlisted_node_indices = {0};
  return p;
}

Fingerprint ContentOf(const Node& n, const Partition& p, bool unlisted = false) {
  NodeSnapshot s;
  s.nodes.push_back(n);
  s.partitions.push_back(p);
  if (unlisted) s.unlisted_nodes.push_back(n);
  return s.Content();
}

TEST(NodesContent, EveryFieldCounts) {
  const Fingerprint base = ContentOf(FullNode(), FullPartition());
  EXPECT_EQ(ContentOf(FullNode(), FullPartition()), base);
  EXPECT_NE(ContentOf(FullNode(), FullPartition(), true), base);
  const std::vector<std::pair<const char*, std::function<void(Node&)>>> nodes = {
      {"name", [](Node& n) { n.name = "n2"; }},
      {"instance_id", [](Node& n) { n.instance_id = "i-2"; }},
      {"address", [](Node& n) { n.address = "10.0.0.2"; }},
      {"comment", [](Node& n) { n.comment = "rack 5"; }},
      {"reason", [](Node& n) { n.reason = ""; }},
      {"reservation", [](Node& n) { n.reservation = "daily"; }},
      {"tres", [](Node& n) { n.tres = "cpu=32"; }},
      {"state.base", [](Node& n) { n.state.base = NodeBase::kIdle; }},
      {"state.flags", [](Node& n) { n.state.flags = 0; }},
      {"stored_base", [](Node& n) { n.stored_base = NodeBase::kIdle; }},
      {"statistics_base", [](Node& n) { n.statistics_base = NodeBase::kIdle; }},
      {"partitions", [](Node& n) { n.partitions = {"main"}; }},
      {"cpus", [](Node& n) { n.cpus = 32; }},
      {"alloc_cpus", [](Node& n) { n.alloc_cpus = 4; }},
      {"alloc_idle_cpus", [](Node& n) { n.alloc_idle_cpus = 4; }},
      {"effective_cpus", [](Node& n) { n.effective_cpus.reset(); }},
      {"real_memory_mb", [](Node& n) { n.real_memory_mb = 2048; }},
      {"alloc_memory_mb", [](Node& n) { n.alloc_memory_mb = 0; }},
      {"free_memory_mb", [](Node& n) { n.free_memory_mb = 255; }},
      {"specialized_memory_mb", [](Node& n) { n.specialized_memory_mb = 0; }},
      {"gres_configured", [](Node& n) { n.gres_configured[0].count = 8; }},
      {"gres_used", [](Node& n) { n.gres_used[0].type = "gpu"; }},
      {"state_long", [](Node& n) { n.state_long = "mixed*"; }},
      {"gpus_total", [](Node& n) { n.gpus_total = 8; }},
      {"gpus_alloc", [](Node& n) { n.gpus_alloc = 3; }},
      {"gpus_tres", [](Node& n) { n.gpus_tres = 0; }},
  };
  for (const auto& [field, change] : nodes) {
    Node n = FullNode();
    change(n);
    EXPECT_NE(ContentOf(n, FullPartition()), base) << field;
  }
  const std::vector<std::pair<const char*, std::function<void(Partition&)>>> parts = {
      {"name", [](Partition& p) { p.name = "gpu"; }},
      {"node_indices", [](Partition& p) { p.node_indices = {1}; }},
      {"total_cpus", [](Partition& p) { p.total_cpus = 8; }},
      {"total_nodes", [](Partition& p) { p.total_nodes = 2; }},
      {"max_nodes", [](Partition& p) { p.max_nodes = 5; }},
      {"unlisted_node_indices", [](Partition& p) { p.unlisted_node_indices.clear(); }},
  };
  for (const auto& [field, change] : parts) {
    Partition p = FullPartition();
    change(p);
    EXPECT_NE(ContentOf(FullNode(), p), base) << "partition " << field;
  }
}

ClusterState StateWith(JobSnapshot jobs) {
  ClusterState s;
  s.nodes = std::make_shared<const NodeSnapshot>(testing::SampleNodes());
  s.jobs = std::make_shared<const JobSnapshot>(std::move(jobs));
  s.diag = std::make_shared<const DiagSnapshot>(testing::SampleDiag());
  return s;
}

struct Rendered {
  std::string text;
  std::vector<FamilyRecord> families;
  std::vector<GroupKey> keys;
  size_t taken = 0;
  bool copy_failed = false;
};

size_t FormatIndex(Format f) { return f == Format::kOpenMetrics ? 1 : 0; }

// What the collector does for one body: with `earlier`, groups whose keys
// it kept are taken and the rest copied where the rows are the same.
Rendered Render(const ClusterState& s, Endpoint e, Format f, const RenderOptions& opts,
                const Rendered* earlier, PrivateData hidden = 0,
                const std::vector<std::string>* disabled = nullptr) {
  NodeHistory history(0);
  QueueWaitHistory queue_wait;
  MetricSet set(disabled, hidden);
  EarlierBody from{};
  std::array<const EarlierBody*, 2> by_format{};
  std::array<bool, 2> formats{};
  formats[FormatIndex(f)] = true;
  if (earlier) {
    from = {earlier->text, earlier->families, earlier->keys};
    by_format[FormatIndex(f)] = &from;
  }
  GroupReuse reuse({e, &s, opts, GroupReuse::Filters(disabled, hidden)}, formats, by_format);
  AddEndpointFamilies(set, e, s, history, opts, &queue_wait, reuse.Hook(set));
  Rendered out;
  out.copy_failed = !reuse.Finish(set);
  set.Seal();
  std::vector<WrittenFamily> written;
  set.Write(f, out.text, &written);
  out.families = reuse.Records(written);
  out.keys = reuse.keys();
  out.taken = reuse.groups_taken();
  return out;
}

std::string FullRender(const ClusterState& s, Endpoint e, Format f,
                       const RenderOptions& opts, PrivateData hidden = 0,
                       const std::vector<std::string>* disabled = nullptr) {
  NodeHistory history(0);
  QueueWaitHistory queue_wait;
  MetricSet set(disabled, hidden);
  AddEndpointFamilies(set, e, s, history, opts, &queue_wait);
  set.Seal();
  std::string text;
  set.Write(f, text);
  return text;
}

// Groups served on `e` that follow from the nodes or jobs alone, and of
// them those that do not follow from `moved`.
size_t Keyed(Endpoint e, StateParts moved = 0) {
  size_t n = 0;
  for (const FamilyGroup& g : FamilyGroups())
    n += g.follows != 0 && Contains(g.endpoints, e) && !(g.follows & moved);
  return n;
}

TEST(GroupReuse, UnchangedPartsAreTakenAndTheBytesAreAFullRenders) {
  const RenderOptions opts{1795100000, false};
  for (Endpoint e : {Endpoint::kSoperator, Endpoint::kJobs, Endpoint::kJobsUsersAccts,
                     Endpoint::kEverything, Endpoint::kNodes, Endpoint::kPartitions}) {
    for (Format f : {Format::kText, Format::kOpenMetrics}) {
      const std::string where = std::string(EndpointPath(e)) +
                                (f == Format::kText ? " text" : " openmetrics");
      const Rendered first = Render(StateWith(testing::SampleJobs()), e, f, opts, nullptr);
      EXPECT_EQ(first.taken, 0u);
      // New snapshots with the same content, 30 s later.
      const RenderOptions later{opts.now + 30, false};
      const ClusterState same = StateWith(testing::SampleJobs());
      const Rendered second = Render(same, e, f, later, &first);
      EXPECT_FALSE(second.copy_failed);
      EXPECT_EQ(second.taken, Keyed(e)) << where;
      EXPECT_EQ(second.text, FullRender(same, e, f, later)) << where;
      // One job renamed: what follows from the jobs is built again.
      JobSnapshot renamed = testing::SampleJobs();
      renamed.jobs[0].name = "renamed";
      const ClusterState moved = StateWith(std::move(renamed));
      const Rendered third = Render(moved, e, f, later, &second);
      EXPECT_EQ(third.taken, Keyed(e, state_part::kJobs)) << where;
      EXPECT_EQ(third.text, FullRender(moved, e, f, later)) << where;
      // One node drained: what follows from the nodes.
      ClusterState drained = moved;
      NodeSnapshot nodes = testing::SampleNodes();
      nodes.nodes[0].state.flags |= node_flag::kDrain;
      nodes.nodes[0].reason = "maintenance";
      drained.nodes = std::make_shared<const NodeSnapshot>(std::move(nodes));
      const Rendered fourth = Render(drained, e, f, later, &third);
      EXPECT_EQ(fourth.taken, Keyed(e, state_part::kNodes)) << where;
      EXPECT_EQ(fourth.text, FullRender(drained, e, f, later)) << where;
      // Other options: built again.
      const RenderOptions native{later.now, true};
      const Rendered fifth = Render(drained, e, f, native, &fourth);
      EXPECT_EQ(fifth.taken, 0u) << where;
      EXPECT_EQ(fifth.text, FullRender(drained, e, f, native)) << where;
    }
  }
}

// A group may build another definition of a name than the one it lists:
// without QueueUserLabel, slurm_queue_pending has no user label and so is
// served to a scraper from whom users are hidden. Taken, it must still be.
JobSnapshot QueuedJobs() {
  JobSnapshot jobs = testing::SampleJobs();
  for (Job& j : jobs.jobs) {
    j.squeue_pending = j.state == JobBase::kPending;
    if (j.squeue_pending) j.squeue_reason = j.state_reason;
  }
  return jobs;
}

TEST(GroupReuse, WhatAPublicViewWasServedIsTaken) {
  const RenderOptions no_user{1795100000, false, false};
  const PrivateData views[] = {0, private_data::kUsers,
                               private_data::kUsers | private_data::kJobs};
  for (PrivateData hidden : views) {
    for (Endpoint e : {Endpoint::kJobs, Endpoint::kSoperator, Endpoint::kEverything}) {
      const ClusterState s = StateWith(QueuedJobs());
      const Rendered first = Render(s, e, Format::kText, no_user, nullptr, hidden);
      const Rendered second = Render(StateWith(QueuedJobs()), e, Format::kText,
                                     no_user, &first, hidden);
      EXPECT_GT(second.taken, 0u);
      EXPECT_FALSE(second.copy_failed);
      EXPECT_EQ(second.text, FullRender(s, e, Format::kText, no_user, hidden))
          << EndpointPath(e) << " hidden " << hidden;
      if (hidden == private_data::kUsers) {
        EXPECT_NE(second.text.find("slurm_queue_pending{"), std::string::npos);
      }
    }
  }
}

// A pending job whose estimated start has passed shows each collection's
// time as its start (and its end moves with it): only the groups that read
// job times (state_part::kJobTimes) are built again.
TEST(GroupReuse, APassedStartEstimateRebuildsOnlyWhatReadsJobTimes) {
  const auto with_estimate = [](int64_t now) {
    JobSnapshot jobs = testing::SampleJobs();
    for (Job& j : jobs.jobs) {
      if (j.state != JobBase::kPending) continue;
      j.start_time = now;
      j.end_time = now + 3600;
    }
    return StateWith(std::move(jobs));
  };
  for (Endpoint e : {Endpoint::kSoperator, Endpoint::kJobs, Endpoint::kJobsUsersAccts,
                     Endpoint::kEverything}) {
    for (Format f : {Format::kText, Format::kOpenMetrics}) {
      const RenderOptions opts{1795100000, false};
      const Rendered first = Render(with_estimate(opts.now), e, f, opts, nullptr);
      const RenderOptions later{opts.now + 30, false};
      const ClusterState moved = with_estimate(later.now);
      const Rendered second = Render(moved, e, f, later, &first);
      EXPECT_FALSE(second.copy_failed);
      EXPECT_EQ(second.taken, Keyed(e, state_part::kJobTimes))
          << EndpointPath(e) << " " << static_cast<int>(f);
      EXPECT_EQ(second.text, FullRender(moved, e, f, later))
          << EndpointPath(e) << " " << static_cast<int>(f);
    }
  }
}

// Whatever else a group's bytes depend on is in its key: a render whose
// filters or options differ from the earlier body's takes nothing (the
// collector keeps one body per view and format under fixed options, so
// this guards the key itself).
TEST(GroupReuse, FiltersAndOptionsAreInTheKey) {
  const RenderOptions opts{1795100000, false, true};
  const std::vector<std::string> no_node_job{"slurm_node_job", "slurm_queue_pending"};
  struct Variant {
    const char* what;
    RenderOptions opts;
    PrivateData hidden;
    const std::vector<std::string>* disabled;
  };
  const Variant variants[] = {
      {"users hidden", opts, private_data::kUsers, nullptr},
      {"jobs hidden", opts, private_data::kJobs, nullptr},
      {"families disabled", opts, 0, &no_node_job},
      {"QueueUserLabel=no", {opts.now, false, false}, 0, nullptr},
      {"NativeValues=yes", {opts.now, true, true}, 0, nullptr},
  };
  for (Endpoint e : {Endpoint::kJobs, Endpoint::kSoperator, Endpoint::kEverything,
                     Endpoint::kJobsUsersAccts}) {
    const ClusterState s = StateWith(QueuedJobs());
    const Rendered first = Render(s, e, Format::kText, opts, nullptr);
    for (const Variant& v : variants) {
      const Rendered second =
          Render(s, e, Format::kText, v.opts, &first, v.hidden, v.disabled);
      EXPECT_EQ(second.taken, 0u) << EndpointPath(e) << " " << v.what;
      EXPECT_EQ(second.text, FullRender(s, e, Format::kText, v.opts, v.hidden, v.disabled))
          << EndpointPath(e) << " " << v.what;
    }
  }
}

// JobSource=accounting: the finished jobs served follow the clock (the
// lookback), not the jobs' content, so the group serving them is built
// every time; a finished job that left the window leaves the body.
TEST(GroupReuse, TheFinishedJobsWindowIsNeverTaken) {
  JobSnapshot jobs = testing::SampleJobs();
  jobs.jobs[1].state = JobBase::kCompleted;
  jobs.jobs[1].end_time = 1795099000;
  ClusterState s = StateWith(std::move(jobs));
  auto inside = std::make_shared<FinishedJobsView>();
  inside->oldest_end = 1795099000 - 10;
  auto past = std::make_shared<FinishedJobsView>();
  past->oldest_end = 1795099000 + 10;
  const RenderOptions opts{1795100000, false};
  for (Endpoint e : {Endpoint::kJobs, Endpoint::kSoperator, Endpoint::kEverything}) {
    s.finished_jobs = inside;
    const Rendered first = Render(s, e, Format::kText, opts, nullptr);
    EXPECT_NE(first.text.find("job_id=\"2\""), std::string::npos) << EndpointPath(e);
    s.finished_jobs = past;
    const Rendered second = Render(s, e, Format::kText, opts, &first);
    EXPECT_GT(second.taken, 0u) << EndpointPath(e);
    EXPECT_EQ(second.text, FullRender(s, e, Format::kText, opts)) << EndpointPath(e);
  }
}

// Durations follow the clock: a running job's moves while every other
// family of the jobs is taken.
TEST(GroupReuse, ARunningJobsDurationFollowsTheClock) {
  JobSnapshot jobs = testing::SampleJobs();
  ASSERT_EQ(jobs.jobs[0].state, JobBase::kRunning);
  jobs.jobs[0].start_time = 1795099000;
  const ClusterState s = StateWith(std::move(jobs));
  const RenderOptions opts{1795100000, false};
  const Rendered first = Render(s, Endpoint::kSoperator, Format::kText, opts, nullptr);
  const RenderOptions later{opts.now + 30, false};
  const Rendered second = Render(s, Endpoint::kSoperator, Format::kText, later, &first);
  EXPECT_GT(second.taken, 0u);
  EXPECT_EQ(second.text, FullRender(s, Endpoint::kSoperator, Format::kText, later));
  EXPECT_NE(second.text.find("slurm_job_duration_seconds{job_id=\"1\"} 1030\n"),
            std::string::npos);
  EXPECT_NE(first.text.find("slurm_job_duration_seconds{job_id=\"1\"} 1000\n"),
            std::string::npos);
}

const FamilyDef kA{"test_a", "A", MetricType::kGauge, {"x"}};
const FamilyDef kB{"test_b", "B", MetricType::kGauge, {"x"}};
const FamilyDef kA2{"test_a", "A again", MetricType::kGauge, {"y"}};

// A body of families outside the registry, with its records.
Rendered Written(const std::function<void(MetricSet&)>& add) {
  MetricSet set;
  add(set);
  GroupReuse reuse({}, {true, false}, {});
  reuse.Finish(set);
  set.Seal();
  Rendered r;
  std::vector<WrittenFamily> written;
  set.Write(Format::kText, r.text, &written);
  r.families = reuse.Records(written);
  return r;
}

TEST(GroupReuseTake, ATakenFamilyIsCopiedAndAnAbsentOneStaysAbsent) {
  const Rendered before = Written([](MetricSet& s) { s.Add(kA).Add({"1"}, 1); });
  const EarlierBody from{before.text, before.families, {}};
  MetricSet set;
  GroupReuse reuse({}, {true, false}, {&from, nullptr});
  reuse.TakeFamily(set, kA);
  reuse.TakeFamily(set, kB);  // had no rows: not in the earlier body
  EXPECT_TRUE(reuse.Finish(set));
  set.Seal();
  std::string out;
  set.Write(Format::kText, out);
  EXPECT_EQ(out, before.text);
  EXPECT_EQ(set.stats().series, 1u);
}

TEST(GroupReuseTake, WhatCannotBeCopiedIsSaid) {
  const Rendered before = Written([](MetricSet& s) { s.Add(kA).Add({"1"}, 1); });
  const EarlierBody from{before.text, before.families, {}};
  {  // No earlier body at all.
    MetricSet set;
    GroupReuse reuse({}, {true, false}, {});
    reuse.TakeFamily(set, kA);
    EXPECT_FALSE(reuse.Finish(set));
  }
  {  // A missing earlier body for one of the formats written.
    MetricSet set;
    GroupReuse reuse({}, {true, true}, {&from, nullptr});
    reuse.TakeFamily(set, kA);
    EXPECT_FALSE(reuse.Finish(set));
  }
  {  // A name shared with a family that was built.
    MetricSet set;
    GroupReuse reuse({}, {true, false}, {&from, nullptr});
    reuse.TakeFamily(set, kA);
    set.Add(kA2).Add({"2"}, 2);
    EXPECT_FALSE(reuse.Finish(set));
  }
  {  // Two bodies, one of which lacks it.
    const Rendered other = Written([](MetricSet& s) { s.Add(kB).Add({"1"}, 1); });
    const EarlierBody from2{other.text, other.families, {}};
    MetricSet set;
    GroupReuse reuse({}, {true, true}, {&from, &from2});
    reuse.TakeFamily(set, kA);
    EXPECT_FALSE(reuse.Finish(set));
  }
  {  // Two bodies that say it followed from different rows.
    std::vector<FamilyRecord> moved(before.families.begin(), before.families.end());
    moved[0].input.a ^= 1;
    const EarlierBody from2{before.text, moved, {}};
    MetricSet set;
    GroupReuse reuse({}, {true, true}, {&from, &from2});
    reuse.TakeFamily(set, kA);
    EXPECT_FALSE(reuse.Finish(set));
  }
  {  // A record that does not fit the earlier text is not "had no rows".
    std::vector<FamilyRecord> broken(before.families.begin(), before.families.end());
    broken[0].offset = before.text.size() + 1;
    const EarlierBody bad{before.text, broken, {}};
    MetricSet set;
    GroupReuse reuse({}, {true, false}, {&bad, nullptr});
    reuse.TakeFamily(set, kA);
    EXPECT_FALSE(reuse.Finish(set));
  }
  {  // Every body has it: nothing to say.
    MetricSet set;
    GroupReuse reuse({}, {true, true}, {&from, &from});
    reuse.TakeFamily(set, kA);
    EXPECT_TRUE(reuse.Finish(set));
  }
}

}  // namespace
}  // namespace sm
