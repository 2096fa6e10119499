// SPDX-License-Identifier: GPL-2.0-or-later
// The collector and HTTP side with a fake Source: Soperator's sub-collector
// semantics (spec sections 1 and 9) and our listener's behaviour.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <thread>

#include "collector.h"
#include "exporter.h"
#include "base/log.h"
#include "test_util.h"

namespace sm {
namespace {

using namespace std::chrono_literals;
using testing::Gunzip;
using testing::Samples;
using V = std::vector<std::string>;

class FakeSource : public Source {
 public:
  std::shared_ptr<NodeSnapshot> CollectNodes(LockTiming& t, std::string& err) override {
    const std::string name = Enter();
    t.used = true;
    t.wait_seconds = 0.001;
    t.hold_seconds = 0.002;
    if (fail_nodes) {
      err = "boom";
      return nullptr;
    }
    return testing::OneIdleNode(name);
  }
  std::shared_ptr<JobSnapshot> CollectJobs(LockTiming&, std::string&) override {
    return testing::OneRunningJob();
  }
  std::shared_ptr<DiagSnapshot> CollectDiag(LockTiming&, std::string& err) override {
    if (!fail_diag) return std::make_shared<DiagSnapshot>();
    err = "no statistics";
    return nullptr;
  }
  bool Active() override { return active; }
  PrivateData HiddenFromUsers() override {
    std::unique_lock lock(mu);
    ++hidden_asked;
    cv.notify_all();
    cv.wait(lock, [&] { return !block_hidden; });
    return hidden;
  }
  void StopTakingLocks() override { stopped_taking_locks = true; }

  // One nodes call: counts it, waits while `block` is set or it is the
  // held call, and returns the node name it reports.
  std::string Enter() {
    std::unique_lock lock(mu);
    const int call = ++entered;
    cv.notify_all();
    cv.wait(lock, [&] { return !block && call != hold_call; });
    return name_by_call ? "call-" + std::to_string(call) : node_name;
  }
  void Release() {
    std::lock_guard lock(mu);
    block = false;
    hold_call = 0;
    cv.notify_all();
  }
  void WaitEntered(int n) {
    std::unique_lock lock(mu);
    cv.wait(lock, [&] { return entered >= n; });
  }

  std::atomic<bool> fail_nodes{false};
  std::atomic<bool> fail_diag{true};
  std::atomic<bool> active{true};
  std::atomic<PrivateData> hidden{0};
  std::string node_name = "n1";  // change only while no collection runs
  std::mutex mu;
  std::condition_variable cv;
  bool block = false;      // hold every nodes call until Release()
  int hold_call = 0;       // hold this nodes call (1, 2, ...) until Release()
  bool name_by_call = false;  // report node "call-<n>" instead of node_name
  int entered = 0;
  bool block_hidden = false;  // hold HiddenFromUsers() (a tick) until released
  int hidden_asked = 0;
  std::atomic<bool> stopped_taking_locks{false};
};

// Runs c.Stop() on a thread of its own and says whether it returned within
// `bound`: a Stop() that waits for a collection held in the Source (as one
// waiting for slurmctld's locks the stopping thread holds would be) fails
// the test instead of hanging it.
struct StopInBackground {
  explicit StopInBackground(Collector& c)
      : thread([this, &c] {
          busy = c.Stop();
          returned = true;
        }) {}
  bool ReturnedWithin(std::chrono::milliseconds bound) {
    for (auto waited = 0ms; waited < bound && !returned; waited += 10ms)
      std::this_thread::sleep_for(10ms);
    return returned;
  }
  ~StopInBackground() {
    if (thread.joinable()) thread.join();
  }
  std::atomic<int> busy{-1};
  std::atomic<bool> returned{false};
  std::thread thread;
};

CollectorOptions Options() {
  CollectorOptions o;
  o.endpoints = {Endpoint::kSoperator};
  o.unix_now = [] { return int64_t{1000}; };
  return o;
}

TEST(Collector, EmptyBeforeFirstCollectionThenCached) {
  FakeSource src;
  SelfMonitoring mon;
  Collector c(src, Options(), mon);
  EXPECT_EQ(c.Get(Endpoint::kSoperator, Format::kText, View::kFull)->text(), "");
  EXPECT_FALSE(c.Ready());
  c.CollectOnce();
  EXPECT_TRUE(c.Ready());
  auto body = c.Get(Endpoint::kSoperator, Format::kText, View::kFull);
  EXPECT_EQ(Samples(body->text(), "slurm_node_cpus_total"),
            V{"slurm_node_cpus_total{node_name=\"n1\"} 4"});
  EXPECT_EQ(Samples(body->text(), "slurm_job_info").size(), 1u);
  // The same object until the next collection: a scrape is a copy.
  EXPECT_EQ(body.get(), c.Get(Endpoint::kSoperator, Format::kText, View::kFull).get());
}

// slurm.conf PrivateData=jobs: the public view has the node families and
// none of the job families; the full view has both. Without PrivateData
// both views are one body.
TEST(Collector, PublicViewLeavesOutWhatPrivateDataHides) {
  FakeSource src;
  SelfMonitoring mon;
  Collector c(src, Options(), mon);
  c.CollectOnce();
  auto full = c.Get(Endpoint::kSoperator, Format::kText, View::kFull);
  EXPECT_EQ(full.get(), c.Get(Endpoint::kSoperator, Format::kText, View::kPublic).get());
  EXPECT_EQ(Samples(full->text(), "slurm_job_info").size(), 1u);

  src.hidden = private_data::kJobs;
  c.CollectOnce();
  EXPECT_EQ(c.hidden(), private_data::kJobs);
  full = c.Get(Endpoint::kSoperator, Format::kText, View::kFull);
  const auto pub = c.Get(Endpoint::kSoperator, Format::kText, View::kPublic);
  EXPECT_EQ(Samples(full->text(), "slurm_job_info").size(), 1u);
  EXPECT_NE(full->text().find("job_id=\"7\""), std::string::npos);
  EXPECT_EQ(pub->text().find("slurm_job_"), std::string::npos) << pub->text();
  EXPECT_EQ(pub->text().find("job_id"), std::string::npos) << pub->text();
  EXPECT_EQ(Samples(pub->text(), "slurm_node_cpus_total"),
            V{"slurm_node_cpus_total{node_name=\"n1\"} 4"});
  // Kept fresh by later collections, like every body asked for once.
  src.node_name = "n2";
  c.CollectOnce();
  EXPECT_EQ(Samples(c.Get(Endpoint::kSoperator, Format::kText, View::kPublic)->text(),
                    "slurm_node_cpus_total"),
            V{"slurm_node_cpus_total{node_name=\"n2\"} 4"});

  // Back to no PrivateData: public is full again.
  src.hidden = 0;
  c.CollectOnce();
  EXPECT_EQ(c.Get(Endpoint::kSoperator, Format::kText, View::kPublic).get(),
            c.Get(Endpoint::kSoperator, Format::kText, View::kFull).get());
}

// A render of a public body that began before a tick changed PrivateData
// must not be kept or served: it was made with the old mask. The tick
// (another thread) changes the mask while this request's render runs,
// reached through the render's call of the clock.
TEST(Collector, PublicBodyOfAnOldPrivateDataIsNeverServed) {
  FakeSource src;
  src.hidden = private_data::kJobs;
  SelfMonitoring mon;
  CollectorOptions o = Options();
  std::atomic<bool> armed{false};
  std::function<void()> during_render;
  const std::thread::id me = std::this_thread::get_id();
  o.unix_now = [&] {
    if (std::this_thread::get_id() == me && armed.exchange(false)) during_render();
    return int64_t{1000};
  };
  Collector c(src, o, mon);
  c.CollectOnce();
  ASSERT_EQ(c.hidden(), private_data::kJobs);
  std::thread tick;
  during_render = [&] {
    src.hidden = private_data::kNodes;
    tick = std::thread([&] { c.CollectOnce(); });
    for (int i = 0; i < 500 && c.hidden() != private_data::kNodes; ++i)
      std::this_thread::sleep_for(10ms);
  };
  armed = true;
  // Never asked for yet: rendered for this request, with the jobs hidden.
  const Collector::Served served =
      c.Serve(Endpoint::kSoperator, Format::kOpenMetrics, View::kPublic, false, 0ms);
  tick.join();
  ASSERT_EQ(c.hidden(), private_data::kNodes);
  if (served.body) {
    EXPECT_TRUE(Samples(served.body->text(), "slurm_node_cpus_total").empty())
        << "a body made while the jobs were hidden was served after the nodes were";
  } else {
    EXPECT_EQ(served.status, Collector::Served::Status::kBusy);
  }
  const auto now = c.Get(Endpoint::kSoperator, Format::kOpenMetrics, View::kPublic);
  EXPECT_TRUE(Samples(now->text(), "slurm_node_cpus_total").empty()) << now->text();
  EXPECT_EQ(Samples(now->text(), "slurm_job_info").size(), 1u) << now->text();
}

TEST(Collector, IgnorePrivateDataServesEverythingToEveryone) {
  FakeSource src;
  src.hidden = private_data::kJobs | private_data::kUsers;
  SelfMonitoring mon;
  CollectorOptions o = Options();
  o.ignore_private_data = true;
  Collector c(src, o, mon);
  c.CollectOnce();
  EXPECT_EQ(c.hidden(), 0);
  const auto pub = c.Get(Endpoint::kSoperator, Format::kText, View::kPublic);
  EXPECT_EQ(Samples(pub->text(), "slurm_job_info").size(), 1u);
}

TEST(Collector, FailedSubCollectorKeepsLastGoodData) {
  FakeSource src;
  SelfMonitoring mon;
  Collector c(src, Options(), mon);
  c.CollectOnce();
  src.fail_nodes = true;
  src.node_name = "n2";
  c.CollectOnce();
  const std::string text = c.Get(Endpoint::kSoperator, Format::kText, View::kFull)->text();
  EXPECT_EQ(Samples(text, "slurm_node_cpus_total"),
            V{"slurm_node_cpus_total{node_name=\"n1\"} 4"});
  const std::string m = testing::RenderMonitoring(mon);
  EXPECT_EQ(Samples(m, "slurm_exporter_collection_attempts_total"),
            V{"slurm_exporter_collection_attempts_total 2"});
  // diag fails every time, nodes once.
  EXPECT_EQ(Samples(m, "slurm_exporter_collection_failures_total"),
            V{"slurm_exporter_collection_failures_total 2"});
  EXPECT_EQ(Samples(m, "slurm_exporter_collector_errors_total"),
            (V{"slurm_exporter_collector_errors_total{collector=\"diag\"} 2",
               "slurm_exporter_collector_errors_total{collector=\"nodes\"} 1"}));
  EXPECT_EQ(Samples(m, "slurm_exporter_controller_last_lock_hold_seconds"),
            V{"slurm_exporter_controller_last_lock_hold_seconds{collector=\"nodes\"} 0.002"});
  // No diag ever succeeded: no controller families at all.
  EXPECT_TRUE(Samples(text, "slurm_controller_rpc_calls_total").empty());
}

TEST(Collector, BusySubCollectorIsSkipped) {
  FakeSource src;
  src.block = true;
  SelfMonitoring mon;
  CollectorOptions o = Options();
  o.interval = 50ms;
  Collector c(src, o, mon);
  c.Start();
  src.WaitEntered(1);
  std::this_thread::sleep_for(300ms);  // several ticks while nodes is stuck
  const V idle_but_nodes{"slurm_exporter_collector_inflight{collector=\"accounting\"} 0",
                         "slurm_exporter_collector_inflight{collector=\"associations\"} 0",
                         "slurm_exporter_collector_inflight{collector=\"diag\"} 0",
                         "slurm_exporter_collector_inflight{collector=\"jobs\"} 0",
                         "slurm_exporter_collector_inflight{collector=\"licenses\"} 0",
                         "slurm_exporter_collector_inflight{collector=\"nodes\"} 1",
                         "slurm_exporter_collector_inflight{collector=\"qos\"} 0",
                         "slurm_exporter_collector_inflight{collector=\"reservations\"} 0"};
  // Every 50 ms tick runs the other collectors again: sampled between two
  // ticks (within 2 s), only nodes is in flight.
  std::string m = testing::RenderMonitoring(mon);
  for (int i = 0; i < 200 && Samples(m, "slurm_exporter_collector_inflight") != idle_but_nodes;
       ++i) {
    std::this_thread::sleep_for(10ms);
    m = testing::RenderMonitoring(mon);
  }
  ASSERT_EQ(Samples(m, "slurm_exporter_collector_skipped_total").size(), 1u);
  EXPECT_NE(Samples(m, "slurm_exporter_collector_skipped_total")[0].find(
                "{collector=\"nodes\"}"),
            std::string::npos);
  EXPECT_EQ(Samples(m, "slurm_exporter_collector_inflight"), idle_but_nodes);
  src.Release();
  c.Stop();
}

// Two nodes runs overlap (max_inflight 2): run 1 starts first and returns
// last. Its older copy must neither replace run 2's nor be served.
TEST(Collector, StaleResultIsDropped) {
  FakeSource src;
  src.name_by_call = true;
  src.hold_call = 1;
  SelfMonitoring mon;
  CollectorOptions o = Options();
  o.max_inflight = 2;
  Collector c(src, o, mon);  // not started: collections run when we ask
  // Each CollectOnce() runs nodes, jobs and diag in that order on its own
  // thread, then renders there.
  std::thread first([&] { c.CollectOnce(); });
  src.WaitEntered(1);  // run 1 is inside CollectNodes, held
  c.CollectOnce();     // run 2: applied and rendered
  const V second{"slurm_node_cpus_total{node_name=\"call-2\"} 4"};
  EXPECT_EQ(Samples(c.Get(Endpoint::kSoperator, Format::kText, View::kFull)->text(),
                    "slurm_node_cpus_total"),
            second);
  src.Release();
  first.join();  // run 1 returned, was applied or dropped, and rendered
  EXPECT_EQ(Samples(c.Get(Endpoint::kSoperator, Format::kText, View::kFull)->text(),
                    "slurm_node_cpus_total"),
            second);
  EXPECT_EQ(Samples(testing::RenderMonitoring(mon), "slurm_exporter_collection_attempts_total"),
            V{"slurm_exporter_collection_attempts_total 2"});
}

// At exit() (no fini()) the render thread is joined but a worker that waits
// on slurmctld's locks is not: StopRendering() must return while a
// collection is stuck in the Source.
TEST(Collector, StopRenderingDoesNotWaitForACollection) {
  FakeSource src;
  src.block = true;
  SelfMonitoring mon;
  CollectorOptions o = Options();
  o.interval = 1h;
  Collector c(src, o, mon);
  c.Start();
  src.WaitEntered(1);
  c.StopRendering();  // returns although nodes is still held
  src.Release();
  EXPECT_EQ(c.Stop(5s), 0);  // the released worker ends within the grace: joined
}

// Slurm 22.05 and 23.02 call fini() with every slurmctld write lock held
// (docs/architecture.md, "Stopping"): Stop() must return while a worker is
// held in the Source, tell the Source to take no new lock, and the held
// collection, once it returns, is neither applied nor rendered.
TEST(Collector, StopDoesNotWaitForAHeldCollection) {
  FakeSource src;
  src.block = true;
  SelfMonitoring mon;
  CollectorOptions o = Options();
  o.interval = 1h;
  {
    Collector c(src, o, mon);
    c.Start();
    src.WaitEntered(1);
    StopInBackground stop(c);
    EXPECT_TRUE(stop.ReturnedWithin(5s)) << "Stop() waited for the held collection";
    EXPECT_TRUE(src.stopped_taking_locks);
    src.Release();
    stop.thread.join();
    // The held worker, and maybe the tick's other workers still finishing.
    EXPECT_GE(stop.busy, 1);
  }  // ~Collector waits for the released worker to end
  // Its collection was dropped: not finished, applied or rendered (it
  // would have set the nodes gauge back to 0).
  const std::string m = testing::RenderMonitoring(mon);
  const V inflight = Samples(m, "slurm_exporter_collector_inflight");
  EXPECT_NE(std::find(inflight.begin(), inflight.end(),
                      "slurm_exporter_collector_inflight{collector=\"nodes\"} 1"),
            inflight.end())
      << m;
  EXPECT_TRUE(Samples(m, "slurm_exporter_render_duration_seconds").empty() ||
              Samples(m, "slurm_exporter_render_duration_seconds") ==
                  V{"slurm_exporter_render_duration_seconds 0"})
      << m;
}

// The same for the ticker, held in a tick where it asks slurmctld's
// configuration what PrivateData hides (under the conf read lock).
TEST(Collector, StopDoesNotWaitForAHeldTick) {
  FakeSource src;
  src.block_hidden = true;
  SelfMonitoring mon;
  CollectorOptions o = Options();
  o.interval = 1h;
  {
    Collector c(src, o, mon);
    c.Start();
    {
      std::unique_lock lock(src.mu);
      src.cv.wait(lock, [&] { return src.hidden_asked > 0; });
    }
    StopInBackground stop(c);
    EXPECT_TRUE(stop.ReturnedWithin(5s)) << "Stop() waited for the held tick";
    {
      std::lock_guard lock(src.mu);
      src.block_hidden = false;
      src.cv.notify_all();
    }
    stop.thread.join();
    EXPECT_EQ(stop.busy, 1);
  }  // ~Collector waits for the ticker to end
  // The tick, released after the stop, started no collection at all.
  for (const std::string& line :
       Samples(testing::RenderMonitoring(mon), "slurm_exporter_collector_inflight"))
    EXPECT_TRUE(line.ends_with(" 0")) << line;
  EXPECT_EQ(src.entered, 0);
}

// With nothing held, Stop() joins every thread and reports none busy.
TEST(Collector, StopJoinsIdleThreads) {
  FakeSource src;
  SelfMonitoring mon;
  CollectorOptions o = Options();
  o.interval = 1h;
  Collector c(src, o, mon);
  c.Start();
  for (int i = 0; i < 500 && !c.Ready(); ++i) std::this_thread::sleep_for(10ms);
  ASSERT_TRUE(c.Ready());
  EXPECT_EQ(c.Stop(), 0);
  EXPECT_TRUE(src.stopped_taking_locks);
}

std::vector<std::pair<LogLevel, std::string>>& LoggedLines() {
  static std::vector<std::pair<LogLevel, std::string>> lines;
  return lines;
}
void CaptureLines(LogLevel level, const char* message) {
  LoggedLines().emplace_back(level, message);
}

// A sub-collector that keeps failing is logged once, then once per
// kFailureLogSeconds with the count, and its recovery once.
TEST(Collector, FailuresAreLoggedNowAndThen) {
  FakeSource src;
  src.fail_diag = false;
  src.fail_nodes = true;
  SelfMonitoring mon;
  CollectorOptions o = Options();
  auto now = std::make_shared<std::atomic<double>>(100.0);
  o.monotonic_now = [now] { return now->load(); };
  Collector c(src, o, mon);
  SetLogSink(CaptureLines, LogLevel::kInfo);
  LoggedLines().clear();
  const auto lines = [] {
    V v;
    for (const auto& [level, text] : LoggedLines())
      if (text.starts_with("collector ")) v.push_back(text);
    return v;
  };
  for (int i = 0; i < 3; ++i) c.CollectOnce();
  EXPECT_EQ(lines(), V{"collector nodes failed: boom (while it keeps failing, a line "
                       "every 600 s)"});
  *now = 100.0 + 599;
  c.CollectOnce();
  EXPECT_EQ(lines().size(), 1u);
  *now = 100.0 + 600;
  c.CollectOnce();
  ASSERT_EQ(lines().size(), 2u);
  EXPECT_EQ(lines()[1], "collector nodes still failing: 4 more failure(s), 5 in a row; "
                        "the last: boom");
  src.fail_nodes = false;
  c.CollectOnce();
  c.CollectOnce();
  ASSERT_EQ(lines().size(), 3u);
  EXPECT_EQ(lines()[2], "collector nodes recovered after 5 failed collection(s)");
  SetLogSink(nullptr, LogLevel::kInfo);
  // The counters count every failure, logged or not.
  EXPECT_EQ(Samples(testing::RenderMonitoring(mon), "slurm_exporter_collector_errors_total"),
            V{"slurm_exporter_collector_errors_total{collector=\"nodes\"} 5"});
}

TEST(Collector, InactiveControllerServesNothing) {
  FakeSource src;
  SelfMonitoring mon;
  Collector c(src, Options(), mon);
  c.CollectOnce();
  EXPECT_TRUE(c.Ready());
  src.active = false;
  c.CollectOnce();
  EXPECT_FALSE(c.Ready());
  EXPECT_EQ(c.Get(Endpoint::kSoperator, Format::kText, View::kFull)->text(), "");
}

// A backup that hands control back goes to standby while a collection it
// started in control may still be running (a lock wait, an RPC timing out
// against the returning primary): what that collection brings back must
// not be applied, rendered or served.
TEST(Collector, ResultFromBeforeStandbyIsNotServed) {
  FakeSource src;
  src.block = true;
  SelfMonitoring mon;
  CollectorOptions o = Options();
  o.interval = 1h;  // ticks only when we ask
  Collector c(src, o, mon);
  c.Start();  // tick 1: jobs and diag finish, nodes blocks
  src.WaitEntered(1);
  src.active = false;
  c.CollectOnce();  // the next tick finds the controller in standby
  EXPECT_FALSE(c.Ready());
  src.Release();  // tick 1's nodes collection completes only now
  // Finished (applied or dropped as stale) before we go on: its inflight
  // gauge is back to 0. Stop() would not wait for it.
  const std::string done = "slurm_exporter_collector_inflight{collector=\"nodes\"} 0";
  for (int i = 0; i < 500; ++i) {
    const V now = Samples(testing::RenderMonitoring(mon), "slurm_exporter_collector_inflight");
    if (std::find(now.begin(), now.end(), done) != now.end()) break;
    std::this_thread::sleep_for(10ms);
  }
  EXPECT_EQ(c.Stop(5s), 0);  // it may still be on its way out: a grace
  EXPECT_FALSE(c.Ready());
  EXPECT_EQ(c.Get(Endpoint::kSoperator, Format::kText, View::kFull)->text(), "");
  // Back in control: collections are applied again.
  src.active = true;
  c.CollectOnce();
  EXPECT_TRUE(c.Ready());
  EXPECT_EQ(Samples(c.Get(Endpoint::kSoperator, Format::kText, View::kFull)->text(),
                    "slurm_node_cpus_total")
                .size(),
            1u);
}

// /readyz (docs/scraping.md, "Health paths"): ready while every part of
// the data was collected within 3 intervals; a standby is never ready.
TEST(Collector, ReadinessFollowsTheAgeOfEveryPart) {
  FakeSource src;
  src.fail_diag = false;
  SelfMonitoring mon;
  double now = 100;
  CollectorOptions o = Options();
  o.interval = 30s;
  o.monotonic_now = [&] { return now; };
  o.unix_now = [&] { return static_cast<int64_t>(1800000000 + now); };
  Collector c(src, o, mon);
  EXPECT_EQ(c.GetReadiness().why, "no collection yet");
  c.CollectOnce();
  EXPECT_TRUE(c.GetReadiness().ready);
  // Jobs keep being collected; nodes fail from now on.
  src.fail_nodes = true;
  now += 60;
  c.CollectOnce();
  now += 30;  // nodes collected 90 s ago: 3 intervals, still ready
  EXPECT_TRUE(c.GetReadiness().ready);
  now += 1;
  const Collector::Readiness r = c.GetReadiness();
  EXPECT_FALSE(r.ready);
  EXPECT_EQ(r.why, "stale: no successful nodes collection for 91 s (more than 3 "
                   "CollectionIntervals)");
  MetricSet set;
  mon.AddFamilies(set);
  set.Seal();
  std::string text;
  set.Write(Format::kText, text);
  // The age an alert computes: nodes at the first collection, jobs and diag
  // at the second (and so the accounting side's parts).
  const V stamps = Samples(text, "slurm_exporter_collector_last_success_timestamp_seconds");
  EXPECT_EQ(stamps.size(), static_cast<size_t>(kSubCollectorCount));
  for (const char* want :
       {"slurm_exporter_collector_last_success_timestamp_seconds{collector=\"diag\"} 1.80000016e+09",
        "slurm_exporter_collector_last_success_timestamp_seconds{collector=\"jobs\"} 1.80000016e+09",
        "slurm_exporter_collector_last_success_timestamp_seconds{collector=\"nodes\"} 1.8000001e+09"})
    EXPECT_NE(std::find(stamps.begin(), stamps.end(), want), stamps.end()) << want;
  EXPECT_EQ(Samples(text, "slurm_exporter_controller_active"),
            V{"slurm_exporter_controller_active 1"});
  src.fail_nodes = false;
  c.CollectOnce();
  EXPECT_TRUE(c.GetReadiness().ready);
  // A standby: not ready, and no data timestamps (it serves no data).
  src.active = false;
  c.CollectOnce();
  EXPECT_EQ(c.GetReadiness().why, "standby: this slurmctld is not the controller in charge");
  MetricSet standby;
  mon.AddFamilies(standby);
  standby.Seal();
  text.clear();
  standby.Write(Format::kText, text);
  EXPECT_EQ(Samples(text, "slurm_exporter_collector_last_success_timestamp_seconds"), V{});
  EXPECT_EQ(Samples(text, "slurm_exporter_controller_active"),
            V{"slurm_exporter_controller_active 0"});
  EXPECT_EQ(Samples(text, "slurm_exporter_collection_interval_seconds"),
            V{"slurm_exporter_collection_interval_seconds 30"});
}

TEST(Collector, RendersOpenMetricsOnDemand) {
  FakeSource src;
  SelfMonitoring mon;
  Collector c(src, Options(), mon);
  c.CollectOnce();
  const std::string om = c.Get(Endpoint::kSoperator, Format::kOpenMetrics, View::kFull)->text();
  EXPECT_NE(om.find("slurm_node_cpus_total{node_name=\"n1\"} 4.0\n"),
            std::string::npos);
  EXPECT_TRUE(om.ends_with("# EOF\n"));
}

// The bodies kept have a limit together (docs/configuration.md, "Cached
// bodies"): a body that does not fit is rendered for its request alone,
// never kept and not rendered after collections; the one kept first stays.
TEST(Collector, CachedBodiesStayUnderTheLimit) {
  FakeSource src;
  SelfMonitoring mon;
  CollectorOptions o = Options();
  size_t plain;
  {
    Collector measure(src, o, mon);
    measure.CollectOnce();
    plain = measure.Get(Endpoint::kSoperator, Format::kText, View::kFull)->text().size();
  }
  ASSERT_GT(plain, 0u);
  SelfMonitoring m;
  o.cached_body_limit = plain + plain / 8;  // one body; not two, nor its gzip
  Collector c(src, o, m);
  c.CollectOnce();
  const auto text = c.Get(Endpoint::kSoperator, Format::kText, View::kFull);
  EXPECT_EQ(text.get(), c.Get(Endpoint::kSoperator, Format::kText, View::kFull).get());
  auto om = c.Get(Endpoint::kSoperator, Format::kOpenMetrics, View::kFull);
  const std::string om_text = om->text();
  // While a request holds the one uncached body (a slow reader), another
  // would hold a second past the limit: refused (503), not rendered.
  const Collector::Served refused = c.Serve(Endpoint::kSoperator, Format::kOpenMetrics,
                                            View::kFull, false, 0ms);
  EXPECT_EQ(refused.status, Collector::Served::Status::kBusy);
  om.reset();  // sent: the next request renders again
  const auto om2 = c.Get(Endpoint::kSoperator, Format::kOpenMetrics, View::kFull);
  EXPECT_TRUE(om_text.ends_with("# EOF\n"));
  EXPECT_EQ(om_text, om2->text()) << "rendered per request, not kept";
  const auto gauges = [&] {
    const std::string all = testing::RenderMonitoring(m);
    V v = Samples(all, "slurm_exporter_cached_body_bytes");
    for (const auto& l : Samples(all, "slurm_exporter_cached_body_limit_bytes")) v.push_back(l);
    V uncached = Samples(all, "slurm_exporter_uncached_requests_total");
    std::sort(uncached.begin(), uncached.end());  // refused, rendered
    for (const auto& l : uncached) v.push_back(l);
    return v;
  };
  EXPECT_EQ(gauges(), (V{"slurm_exporter_cached_body_bytes " + std::to_string(plain),
                         "slurm_exporter_cached_body_limit_bytes " +
                             std::to_string(plain + plain / 8),
                         "slurm_exporter_uncached_requests_total{outcome=\"refused\"} 1",
                         "slurm_exporter_uncached_requests_total{outcome=\"rendered\"} 2"}));
  // A collection renders again what is kept, and only that.
  c.CollectOnce();
  EXPECT_NE(text.get(), c.Get(Endpoint::kSoperator, Format::kText, View::kFull).get());
  EXPECT_EQ(gauges()[0], "slurm_exporter_cached_body_bytes " + std::to_string(plain));
  // Compressing the kept body would pass the limit: sent uncompressed.
  const Collector::Served served = c.Serve(Endpoint::kSoperator, Format::kText,
                                           View::kFull, /*gzip=*/true, 0ms);
  ASSERT_EQ(served.body.get(), c.Get(Endpoint::kSoperator, Format::kText, View::kFull).get());
  EXPECT_FALSE(served.may_gzip);
}

// A body is rendered after each collection only while someone asks for it:
// at least every max(3 intervals, 2 minutes). Otherwise it is dropped, and
// the next request renders it from the cached state.
TEST(Collector, RendersOnlyWhatWasAskedForLately) {
  FakeSource src;
  SelfMonitoring mon;
  double now = 0;
  CollectorOptions o = Options();
  o.endpoints = {};
  o.interval = std::chrono::seconds(10);  // keeps for 120 s, not 30
  o.monotonic_now = [&now] { return now; };
  Collector c(src, o, mon);
  const auto cached = [&] {
    return Samples(testing::RenderMonitoring(mon), "slurm_exporter_cached_body_bytes");
  };
  c.CollectOnce();
  EXPECT_EQ(cached(), V{"slurm_exporter_cached_body_bytes 0"});
  const auto first = c.Get(Endpoint::kNodes, Format::kText, View::kFull, /*gzip=*/true);
  ASSERT_NE(first->text(), "");

  now = 100;
  c.CollectOnce();  // asked 100 s ago: rendered and compressed again
  const auto second = c.Get(Endpoint::kNodes, Format::kText, View::kFull);
  EXPECT_NE(second.get(), first.get());
  EXPECT_EQ(cached(), V{"slurm_exporter_cached_body_bytes " +
                        std::to_string(second->text().size() + second->gzipped().size())});

  now = 215;  // last asked at 100, with gzip at 0
  c.CollectOnce();
  EXPECT_EQ(cached(), V{"slurm_exporter_cached_body_bytes " +
                        std::to_string(c.Get(Endpoint::kNodes, Format::kText, View::kFull)->text().size())});

  now = 342;  // last asked at 215
  c.CollectOnce();
  EXPECT_EQ(cached(), V{"slurm_exporter_cached_body_bytes 0"});
  // Asked for again: rendered on the spot, from the last collection.
  const auto later = c.Get(Endpoint::kNodes, Format::kText, View::kFull);
  EXPECT_EQ(later->text(), second->text());
  EXPECT_NE(later.get(), second.get());
}

// Render lines logged while a test runs: the groups taken per render pass
// and the fallback to a full render (RenderEndpoint, render/endpoint_render.cc).
std::vector<std::string>& RenderLines() {
  static std::vector<std::string> lines;
  return lines;
}
void CaptureRenderLines(LogLevel, const char* message) {
  if (std::string_view(message).starts_with("render: ")) RenderLines().emplace_back(message);
}

// The collector's side of taking groups: two formats asked at different
// times (so the bodies one render replaces came from different renders),
// nodes changing while the jobs stand still, the clock moving. Every body
// equals IncrementalRender=no's, groups are taken, and no render falls
// back to building every group.
TEST(Collector, IncrementalBodiesInBothFormatsAreFullRenders) {
  SetLogSink(CaptureRenderLines, LogLevel::kDebug);
  RenderLines().clear();
  int64_t now = 1000;
  CollectorOptions o = Options();
  o.endpoints = {Endpoint::kSoperator, Endpoint::kJobs};
  o.unix_now = [&now] { return now; };
  FakeSource inc_src, full_src;
  SelfMonitoring inc_mon, full_mon;
  Collector inc(inc_src, o, inc_mon);
  CollectorOptions no = o;
  no.incremental_render = false;
  Collector full(full_src, no, full_mon);
  size_t compared = 0;
  for (int step = 0; step < 6; ++step) {
    now += 30;
    // Nodes change on odd steps only; jobs never.
    const std::string node = step % 2 ? "n" + std::to_string(step) : "n0";
    inc_src.node_name = full_src.node_name = node;
    inc.CollectOnce();
    full.CollectOnce();
    for (Endpoint e : o.endpoints) {
      // OpenMetrics first asked at step 2: its earlier body is then one
      // rendered on demand, the text's one from the collection before.
      std::vector<Format> formats{Format::kText};
      if (step >= 2) formats.push_back(Format::kOpenMetrics);
      for (Format f : formats) {
        EXPECT_EQ(inc.Get(e, f, View::kFull)->text(), full.Get(e, f, View::kFull)->text())
            << "step " << step << " " << EndpointPath(e) << " format " << static_cast<int>(f);
        ++compared;
      }
    }
  }
  SetLogSink(nullptr, LogLevel::kDebug);
  EXPECT_EQ(compared, 20u);
  size_t taken = 0;
  for (const std::string& line : RenderLines()) {
    EXPECT_EQ(line.find("could not be taken"), std::string::npos) << line;
    if (line.find(" group(s) of families taken") != std::string::npos)
      taken += std::stoul(line.substr(std::strlen("render: ")));
  }
  EXPECT_GT(taken, 0u);
}

// ---- HTTP -----------------------------------------------------------------

struct Reply {
  std::string head;
  std::string body;
};

Reply Http(int port, const std::string& request,
           uint32_t address = INADDR_LOOPBACK) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(address);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    close(fd);
    return {};
  }
  (void)!write(fd, request.data(), request.size());
  std::string all;
  char buf[65536];
  for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0;) all.append(buf, n);
  close(fd);
  const size_t split = all.find("\r\n\r\n");
  if (split == std::string::npos) return {all, ""};
  return {all.substr(0, split), all.substr(split + 4)};
}

Reply Get(int port, const std::string& path, const std::string& extra = "",
          uint32_t address = INADDR_LOOPBACK) {
  return Http(port,
              "GET " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n" +
                  extra + "\r\n",
              address);
}

class ExporterHttp : public ::testing::Test {
 protected:
  void SetUp() override {
    std::vector<ConfigMessage> msgs;
    // Port 0: any free port, read back from the listener.
    config_ = LoadConfig("MetricsBindAddress=127.0.0.1:0\n"
                         "MonitoringBindAddress=127.0.0.2:0\n"
                         "CollectionInterval=1h\n",
                         "test", [](const char*) { return nullptr; }, msgs);
    ASSERT_TRUE(msgs.empty());
  }
  Config config_;
  FakeSource src_;
};

TEST_F(ExporterHttp, RoutesAndFormats) {
  struct sigaction before {}, after {};
  sigaction(SIGCHLD, nullptr, &before);
  Exporter ex(src_, config_, Carrier::kJobSubmit);
  ex.Start();
  sigaction(SIGCHLD, nullptr, &after);
  EXPECT_EQ(after.sa_handler, before.sa_handler) << "the listener changed SIGCHLD";
  const int port = ex.main_listener()->port();
  ASSERT_GT(port, 0);

  // The ticker's first collection may still be running: wait for it.
  for (int i = 0; i < 200 && !ex.collector().Ready(); ++i)
    std::this_thread::sleep_for(10ms);
  ASSERT_TRUE(ex.collector().Ready());

  Reply r = Get(port, "/metrics");
  EXPECT_NE(r.head.find("HTTP/1.1 200"), std::string::npos);
  EXPECT_NE(r.head.find("Content-Type: text/plain; version=0.0.4; "
                        "charset=utf-8; escaping=underscores"),
            std::string::npos);
  EXPECT_EQ(Samples(r.body, "slurm_node_cpus_total"),
            V{"slurm_node_cpus_total{node_name=\"n1\"} 4"});

  r = Get(port, "/metrics",
          "Accept: application/openmetrics-text;version=1.0.0,text/plain;q=0.5\r\n");
  EXPECT_NE(r.head.find("Content-Type: application/openmetrics-text; "
                        "version=1.0.0"),
            std::string::npos);
  EXPECT_TRUE(r.body.ends_with("# EOF\n"));

  r = Get(port, "/metrics", "Accept-Encoding: gzip, deflate\r\n");
  EXPECT_NE(r.head.find("Content-Encoding: gzip"), std::string::npos);
  EXPECT_EQ(Samples(Gunzip(r.body), "slurm_node_cpus_total"),
            V{"slurm_node_cpus_total{node_name=\"n1\"} 4"});

  r = Http(port, "HEAD /metrics HTTP/1.0\r\n\r\n");
  EXPECT_NE(r.head.find("HTTP/1.1 200"), std::string::npos);
  EXPECT_EQ(r.body, "");

  r = Get(port, "/health");
  EXPECT_EQ(r.body, "healthy");
  EXPECT_NE(Get(port, "/livez").head.find(" 200 "), std::string::npos);
  // Every part of the data must be current: diag has never been collected.
  r = Get(port, "/readyz");
  EXPECT_NE(r.head.find(" 503 "), std::string::npos);
  EXPECT_EQ(r.body, "stale: no successful diag collection since the controller took "
                    "charge (more than 3 CollectionIntervals)\n");
  src_.fail_diag = false;
  ex.collector().CollectOnce();
  r = Get(port, "/readyz");
  EXPECT_NE(r.head.find(" 200 "), std::string::npos);
  EXPECT_EQ(r.body, "ok\n");
  EXPECT_NE(Get(port, "/nope").head.find(" 404 "), std::string::npos);
  r = Http(port, "POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n"
                 "Connection: close\r\n\r\n");
  EXPECT_NE(r.head.find(" 405 "), std::string::npos);
  EXPECT_NE(r.head.find("Allow: GET, HEAD"), std::string::npos);

  // A request line far beyond max_request_size is refused, not served.
  const auto t0 = std::chrono::steady_clock::now();
  r = Get(port, "/metrics?" + std::string(20000, 'a'));
  EXPECT_EQ(r.head.find(" 200 "), std::string::npos);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 2s);

  const int mon_port = ex.monitoring_listener()->port();
  ASSERT_GT(mon_port, 0);
  r = Get(mon_port, "/metrics", "", INADDR_LOOPBACK + 1);  // 127.0.0.2
  // GET, OM, gzip and HEAD hit /metrics, and so did the POST.
  EXPECT_EQ(Samples(r.body, "slurm_exporter_metrics_requests_total"),
            V{"slurm_exporter_metrics_requests_total 5"});
  // node_info, cpus_total, gpu_seconds (0 GPUs) and job_info.
  EXPECT_EQ(Samples(r.body, "slurm_exporter_metrics_exported"),
            V{"slurm_exporter_metrics_exported 4"});
  const auto stop0 = std::chrono::steady_clock::now();
  ex.Stop();
  // fini() waits for this: slurmctld's shutdown must not hang on us.
  EXPECT_LT(std::chrono::steady_clock::now() - stop0, 5s);
  EXPECT_FALSE(ex.main_listener()->bound());
}

// The paths slurmctld's port serves on 25.11+ are ours too, with the same
// bodies: one scrape config fits either server.
TEST_F(ExporterHttp, SoperatorPathsOnTheListener) {
  Exporter ex(src_, config_, Carrier::kJobSubmit);
  ex.Start();
  const int port = ex.main_listener()->port();
  ASSERT_GT(port, 0);
  for (int i = 0; i < 200 && !ex.collector().Ready(); ++i)
    std::this_thread::sleep_for(10ms);
  Reply r = Get(port, "/metrics/soperator");
  EXPECT_NE(r.head.find("HTTP/1.1 200"), std::string::npos);
  // Everything: Soperator's node family and Slurm's.
  EXPECT_EQ(Samples(r.body, "slurm_node_cpus_total"),
            V{"slurm_node_cpus_total{node_name=\"n1\"} 4"});
  EXPECT_EQ(Samples(r.body, "slurm_node_cpus"), V{"slurm_node_cpus{node=\"n1\"} 4"});
  r = Get(port, "/metrics/soperator/nodes");
  EXPECT_EQ(Samples(r.body, "slurm_node_cpus"), V{"slurm_node_cpus{node=\"n1\"} 4"});
  EXPECT_EQ(Samples(r.body, "slurm_job_info"), V{});
  r = Get(port, "/metrics/soperator/monitoring");
  EXPECT_EQ(Samples(r.body, "slurm_exporter_metrics_requests_total"),
            V{"slurm_exporter_metrics_requests_total 1"});
  ex.Stop();
}

TEST_F(ExporterHttp, BusyPortIsRetriedInTheBackground) {
  // Occupy a port, start the exporter on it, free it: the listener binds.
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(listen(fd, 1), 0);
  socklen_t len = sizeof addr;
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  const int port = ntohs(addr.sin_port);
  config_.metrics_bind_address = "127.0.0.1:" + std::to_string(port);
  Exporter ex(src_, config_, Carrier::kJobSubmit);
  ex.Start();
  EXPECT_FALSE(ex.main_listener()->bound());
  close(fd);
  for (int i = 0; i < 50 && !ex.main_listener()->bound(); ++i)
    std::this_thread::sleep_for(100ms);
  EXPECT_TRUE(ex.main_listener()->bound());
  EXPECT_NE(Get(port, "/health").body.find("healthy"), std::string::npos);
  ex.Stop();
}

std::vector<std::string>& LoggedErrors() {
  static std::vector<std::string> lines;
  return lines;
}
// The listeners' errors only (the fake source's collector logs its own).
void CaptureErrors(LogLevel level, const char* message) {
  const std::string_view m(message);
  if (level == LogLevel::kError && !m.starts_with("collector "))
    LoggedErrors().emplace_back(message);
}

// The listeners fail closed: a wrong listener option or web config means no
// listener and an error line, never the default address or no protection.
TEST_F(ExporterHttp, ListenerErrorsFailClosed) {
  SetLogSink(CaptureErrors, LogLevel::kDebug);
  LoggedErrors().clear();
  std::vector<ConfigMessage> msgs;
  Config bad = LoadConfig("MetricsBindAddress=example.com:8080\n", "test",
                          [](const char*) { return nullptr; }, msgs);
  {
    Exporter ex(src_, bad, Carrier::kJobSubmit);
    ex.Start();
    EXPECT_EQ(ex.main_listener(), nullptr);
    EXPECT_EQ(ex.monitoring_listener(), nullptr);
  }
  ASSERT_FALSE(LoggedErrors().empty());
  EXPECT_NE(LoggedErrors().back().find("example.com"), std::string::npos);
  EXPECT_NE(LoggedErrors().back().find("the listeners and the collector do not start"),
            std::string::npos);
  // Nothing can serve what it would collect: no collection ran.
  std::this_thread::sleep_for(200ms);
  EXPECT_EQ(src_.entered, 0);

  LoggedErrors().clear();
  config_.web_config_file = "/nonexistent/web.yml";
  {
    Exporter ex(src_, config_, Carrier::kJobSubmit);
    ex.Start();
    EXPECT_EQ(ex.main_listener(), nullptr);
  }
  ASSERT_FALSE(LoggedErrors().empty());
  EXPECT_EQ(LoggedErrors().back(),
            "WebConfigFile /nonexistent/web.yml: /nonexistent/web.yml: No such file or "
            "directory; the listeners and the collector do not start");
  EXPECT_EQ(src_.entered, 0);
  // Under MetricsType slurmctld's routes still serve: it collects.
  LoggedErrors().clear();
  {
    Exporter ex(src_, config_, Carrier::kMetrics);
    ex.Start();
    EXPECT_EQ(ex.main_listener(), nullptr);
    src_.WaitEntered(1);
  }
  ASSERT_FALSE(LoggedErrors().empty());
  EXPECT_EQ(LoggedErrors().back(),
            "WebConfigFile /nonexistent/web.yml: /nonexistent/web.yml: No such file or "
            "directory; the listeners do not start");
  SetLogSink(nullptr, LogLevel::kDebug);
}

TEST_F(ExporterHttp, BindErrorsSayWhatIsWrong) {
  SetLogSink(CaptureErrors, LogLevel::kDebug);
  LoggedErrors().clear();
  // 192.0.2.1 (TEST-NET-1) is on no machine: not retried, said once.
  config_.metrics_bind_address = "192.0.2.1:0";
  Exporter ex(src_, config_, Carrier::kJobSubmit);
  ex.Start();
  EXPECT_FALSE(ex.main_listener()->bound());
  ASSERT_EQ(LoggedErrors().size(), 1u);
  EXPECT_EQ(LoggedErrors()[0],
            "metrics listener: cannot listen on 192.0.2.1:0: address 192.0.2.1 is not on "
            "this machine");
  ex.Stop();
  SetLogSink(nullptr, LogLevel::kDebug);
}

TEST_F(ExporterHttp, Ipv6Loopback) {
  const int probe = socket(AF_INET6, SOCK_STREAM, 0);
  sockaddr_in6 a{};
  a.sin6_family = AF_INET6;
  a.sin6_addr = in6addr_loopback;
  const bool v6 = probe >= 0 && bind(probe, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  if (probe >= 0) close(probe);
  if (!v6) GTEST_SKIP() << "no IPv6 loopback here";
  config_.metrics_bind_address = "[::1]:0";
  Exporter ex(src_, config_, Carrier::kJobSubmit);
  ex.Start();
  ASSERT_TRUE(ex.main_listener()->bound());
  const int fd = socket(AF_INET6, SOCK_STREAM, 0);
  a.sin6_port = htons(static_cast<uint16_t>(ex.main_listener()->port()));
  ASSERT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  const std::string req = "GET /livez HTTP/1.0\r\n\r\n";
  ASSERT_EQ(write(fd, req.data(), req.size()), static_cast<ssize_t>(req.size()));
  std::string all;
  char buf[4096];
  for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0;) all.append(buf, n);
  close(fd);
  EXPECT_TRUE(all.starts_with("HTTP/1.1 200 OK\r\n")) << all;
  EXPECT_TRUE(all.ends_with("\r\n\r\nok\n")) << all;
  ex.Stop();
}

// docs/configuration.md, rate_limit: one token bucket per listener, so
// scrapes of /metrics cannot use up the monitoring listener's budget.
TEST_F(ExporterHttp, RateLimitIsPerListener) {
  char path[] = "/tmp/sm-rate-limit-XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  const std::string yaml = "rate_limit:\n  interval: 1h\n  burst: 2\n";
  ASSERT_EQ(write(fd, yaml.data(), yaml.size()), static_cast<ssize_t>(yaml.size()));
  close(fd);
  config_.web_config_file = path;
  Exporter ex(src_, config_, Carrier::kJobSubmit);
  ex.Start();
  const int port = ex.main_listener()->port();
  ASSERT_GT(port, 0);
  ASSERT_TRUE(ex.monitoring_listener());
  const int mon_port = ex.monitoring_listener()->port();
  ASSERT_GT(mon_port, 0);
  EXPECT_NE(Get(port, "/health").head.find(" 200 "), std::string::npos);
  EXPECT_NE(Get(port, "/health").head.find(" 200 "), std::string::npos);
  EXPECT_NE(Get(port, "/health").head.find(" 429 "), std::string::npos);
  // The metrics listener's bucket is empty; the monitoring one's is full.
  for (int i = 0; i < 2; ++i) {
    EXPECT_NE(Get(mon_port, "/metrics", "", INADDR_LOOPBACK + 1).head.find(" 200 "),
              std::string::npos)
        << "request " << i << " to the monitoring listener";
  }
  EXPECT_NE(Get(mon_port, "/metrics", "", INADDR_LOOPBACK + 1).head.find(" 429 "),
            std::string::npos);
  ex.Stop();
  unlink(path);
}

}  // namespace
}  // namespace sm
