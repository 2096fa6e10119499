// SPDX-License-Identifier: GPL-2.0-or-later
// The accounting-side collections in the collector: which path serves which group,
// a part whose families are all disabled is never collected, the queue-wait
// histogram is fed by the jobs collections, and what slurmctld knows about
// slurmdbd shows in self-monitoring.
#include <gtest/gtest.h>

#include <atomic>

#include "collector.h"
#include "exporter.h"
#include "families/accounting/licenses.h"
#include "test_util.h"

namespace sm {
namespace {

using testing::Samples;
using V = std::vector<std::string>;

class AccountingSource : public Source {
 public:
  std::shared_ptr<NodeSnapshot> CollectNodes(LockTiming&, std::string&) override {
    auto s = testing::OneIdleNode("vm");
    Node& n = s->nodes[0];
    n.reservation = "maint";
    n.partitions = {"debug"};
    n.gres_configured = {{"gpu", 1}};
    n.gres_used = {{"gpu", 0}};
    n.state_long = "idle";
    return s;
  }
  std::shared_ptr<JobSnapshot> CollectJobs(LockTiming&, std::string&) override {
    auto s = std::make_shared<JobSnapshot>();
    for (const Job& j : jobs) s->jobs.push_back(j);
    return s;
  }
  std::shared_ptr<DiagSnapshot> CollectDiag(LockTiming&, std::string&) override {
    return std::make_shared<DiagSnapshot>();
  }
  std::shared_ptr<ShareSnapshot> CollectShares(LockTiming&, std::string&) override {
    auto s = std::make_shared<ShareSnapshot>();
    Share a;
    a.account = "physics";
    a.raw_shares = 40;
    s->shares.push_back(a);
    Share u = a;
    u.user = "alice";
    u.raw_shares = 1;
    s->shares.push_back(u);
    return s;
  }
  std::shared_ptr<QosSnapshot> CollectQos(LockTiming&, std::string&) override {
    auto s = std::make_shared<QosSnapshot>();
    Qos q;
    q.name = "high";
    q.priority = 100;
    s->qos.push_back(q);
    return s;
  }
  std::shared_ptr<LicenseSnapshot> CollectLicenses(LockTiming&, std::string&) override {
    ++license_calls;
    auto s = std::make_shared<LicenseSnapshot>();
    License l;
    l.name = "matlab";
    l.total = 4;
    s->licenses.push_back(l);
    return s;
  }
  std::shared_ptr<ReservationSnapshot> CollectReservations(LockTiming&,
                                                           std::string&) override {
    auto s = std::make_shared<ReservationSnapshot>();
    Reservation r;
    r.name = "maint";
    r.node_count = 1;
    s->reservations.push_back(r);
    return s;
  }
  std::shared_ptr<AccountingStatus> CollectAccountingStatus(LockTiming&,
                                                            std::string&) override {
    return std::make_shared<AccountingStatus>(status);
  }

  std::vector<Job> jobs;
  AccountingStatus status;
  std::atomic<int> license_calls{0};
};

CollectorOptions Options(std::vector<Endpoint> endpoints) {
  CollectorOptions o;
  o.endpoints = std::move(endpoints);
  o.unix_now = [] { return int64_t{1000}; };
  return o;
}

bool Has(const std::string& body, std::string_view family) {
  return !Samples(body, family).empty();
}

// Each group is on /metrics (both carriers) and on the one
// metrics/openmetrics path it belongs with (docs/metrics.md).
TEST(AccountingCollection, EachGroupOnItsPaths) {
  AccountingSource src;
  Job pending;
  pending.id = 3;
  pending.squeue_pending = true;
  pending.squeue_reason = "Resources";
  pending.partition = "debug";
  pending.user_name = "alice";
  src.jobs = {pending};
  SelfMonitoring mon;
  const std::vector<Endpoint> all = {
      Endpoint::kSoperator, Endpoint::kNodes,     Endpoint::kJobs,
      Endpoint::kPartitions, Endpoint::kScheduler, Endpoint::kJobsUsersAccts,
      Endpoint::kEverything};
  Collector c(src, Options(all), mon);
  c.CollectOnce();
  const auto body = [&](Endpoint e) { return c.Get(e, Format::kText, View::kFull)->text(); };
  const std::string_view fairshare = "slurm_account_fairshare_raw_shares";
  const std::string_view qos = "slurm_qos_priority";
  const std::string_view license = "slurm_license_total";
  const std::string_view resv = "slurm_reservation_node_count";
  const std::string_view resv_nodes = "slurm_reservation_nodes_idle";
  const std::string_view gres = "slurm_node_gres_used";
  const std::string_view queue = "slurm_queue_pending";
  for (Endpoint e : {Endpoint::kSoperator, Endpoint::kEverything}) {
    const std::string b = body(e);
    for (std::string_view f : {fairshare, qos, license, resv, resv_nodes, gres, queue})
      EXPECT_TRUE(Has(b, f)) << EndpointPath(e) << " lacks " << f;
  }
  const struct {
    Endpoint e;
    std::vector<std::string_view> has, lacks;
  } paths[] = {
      {Endpoint::kJobsUsersAccts, {fairshare, qos}, {license, resv, resv_nodes, gres, queue}},
      {Endpoint::kScheduler, {license, resv}, {fairshare, qos, resv_nodes, gres, queue}},
      {Endpoint::kNodes, {resv_nodes, gres}, {fairshare, qos, license, resv, queue}},
      {Endpoint::kJobs, {queue}, {fairshare, qos, license, resv, resv_nodes, gres}},
      {Endpoint::kPartitions, {}, {fairshare, qos, license, resv, resv_nodes, gres, queue}},
  };
  for (const auto& p : paths) {
    const std::string b = body(p.e);
    for (std::string_view f : p.has)
      EXPECT_TRUE(Has(b, f)) << EndpointPath(p.e) << " lacks " << f;
    for (std::string_view f : p.lacks)
      EXPECT_FALSE(Has(b, f)) << EndpointPath(p.e) << " has " << f;
  }
  EXPECT_EQ(Samples(body(Endpoint::kNodes), "slurm_reservation_nodes_idle"),
            V{"slurm_reservation_nodes_idle{reservation=\"maint\"} 1"});
}

// Each jobs collection feeds the queue-wait histogram: the first only
// learns what already runs, later ones observe the jobs that started.
TEST(AccountingCollection, QueueWaitFromJobStarts) {
  AccountingSource src;
  Job running;
  running.id = 1;
  running.state = JobBase::kRunning;
  running.partition = running.statistics_partition = "debug";
  running.submit_time = 100;
  running.start_time = 160;
  running.nodes = "vm";
  Job waiting = running;
  waiting.id = 2;
  waiting.state = JobBase::kPending;
  waiting.start_time = 5000;  // an estimate
  waiting.nodes = "";
  src.jobs = {running, waiting};
  SelfMonitoring mon;
  Collector c(src, Options({Endpoint::kJobs}), mon);
  c.CollectOnce();
  EXPECT_FALSE(Has(c.Get(Endpoint::kJobs, Format::kText, View::kFull)->text(),
                   "slurm_job_queue_wait_seconds_count"));
  src.jobs[1].state = JobBase::kRunning;
  src.jobs[1].start_time = 400;
  src.jobs[1].nodes = "vm";
  c.CollectOnce();
  const std::string out = c.Get(Endpoint::kJobs, Format::kText, View::kFull)->text();
  EXPECT_EQ(Samples(out, "slurm_job_queue_wait_seconds_count"),
            V{"slurm_job_queue_wait_seconds_count{partition=\"debug\"} 1"});
  EXPECT_EQ(Samples(out, "slurm_job_queue_wait_seconds_sum"),
            V{"slurm_job_queue_wait_seconds_sum{partition=\"debug\"} 300"});
}

// Every license family disabled: the licenses part is never collected
// (inside slurmctld: no get_all_license_info() under the node lock).
TEST(AccountingCollection, PartWithAllFamiliesDisabledIsNotCollected) {
  AccountingSource src;
  SelfMonitoring mon;
  CollectorOptions o = Options({Endpoint::kSoperator});
  for (const FamilyDef* f : LicenseFamilies())
    o.disabled_families.emplace_back(f->name);
  Collector c(src, o, mon);
  c.CollectOnce();
  c.CollectOnce();
  EXPECT_EQ(src.license_calls.load(), 0);
  EXPECT_FALSE(Has(c.Get(Endpoint::kSoperator, Format::kText, View::kFull)->text(),
                   "slurm_license_total"));
  for (const std::string& line :
       Samples(testing::RenderMonitoring(mon), "slurm_exporter_collector_inflight"))
    EXPECT_EQ(line.find("licenses"), std::string::npos) << line;

  // One family enabled again: the part is collected again.
  AccountingSource src2;
  ASSERT_EQ(o.disabled_families.front(), "slurm_license_total");
  o.disabled_families.erase(o.disabled_families.begin());
  Collector c2(src2, o, mon);
  c2.CollectOnce();
  EXPECT_EQ(src2.license_calls.load(), 1);
  EXPECT_TRUE(Has(c2.Get(Endpoint::kSoperator, Format::kText, View::kFull)->text(),
                  "slurm_license_total"));
}

std::string StateFamilies(Collector& c) {
  MetricSet set;
  c.AddStateFamilies(set);
  return testing::Render(set);
}

TEST(AccountingCollection, SlurmdbdStatusInSelfMonitoring) {
  AccountingSource src;
  SelfMonitoring mon;
  Collector c(src, Options({Endpoint::kSoperator}), mon);
  EXPECT_EQ(StateFamilies(c), "");  // nothing collected yet
  src.status = {true, false, true, 1700000000};
  c.CollectOnce();
  const std::string out = StateFamilies(c);
  EXPECT_EQ(Samples(out, "slurm_exporter_slurmdbd_connected"),
            V{"slurm_exporter_slurmdbd_connected 0"});
  EXPECT_EQ(Samples(out, "slurm_exporter_accounting_from_state_file"),
            V{"slurm_exporter_accounting_from_state_file 1"});
  EXPECT_EQ(Samples(out, "slurm_exporter_fairshare_last_decay_timestamp_seconds"),
            V{"slurm_exporter_fairshare_last_decay_timestamp_seconds 1.7e+09"});

  // Without slurmdbd the connection gauges mean nothing: absent.
  src.status = {false, false, false, std::nullopt};
  c.CollectOnce();
  EXPECT_EQ(StateFamilies(c), "");
}

// The cardinality switches of soperator_metrics.conf, through the
// exporter's options: families gone or labels dropped, values unchanged.
TEST(AccountingCollection, CardinalitySwitches) {
  AccountingSource src;
  src.jobs.resize(3);
  for (uint32_t i = 0; i < 3; ++i) {
    Job& j = src.jobs[i];
    j.id = 10 + i;
    j.squeue_pending = true;
    j.squeue_reason = "Priority";
    j.partition = "debug";
    j.user_name = i == 2 ? "bob" : "alice";
    j.cpus = 2;
  }
  const auto body = [&](Config config) {
    Exporter exporter(src, std::move(config), Carrier::kJobSubmit,
                      {nullptr, [] { return int64_t{1000}; }, true});
    exporter.collector().CollectOnce();
    return exporter.collector().Get(Endpoint::kSoperator, Format::kText, View::kFull)->text();
  };
  const std::string on = body(Config{});
  EXPECT_EQ(Samples(on, "slurm_queue_pending"),
            (V{"slurm_queue_pending{partition=\"debug\",reason=\"Priority\",user=\"alice\"} 2",
               "slurm_queue_pending{partition=\"debug\",reason=\"Priority\",user=\"bob\"} 1"}));
  EXPECT_TRUE(Has(on, "slurm_account_fairshare_raw_shares"));
  EXPECT_EQ(Samples(on, "slurm_user_fairshare_raw_shares"),
            V{"slurm_user_fairshare_raw_shares{account=\"physics\",user=\"alice\"} 1"});
  EXPECT_EQ(Samples(on, "slurm_node_gres_total"),
            V{"slurm_node_gres_total{gres_type=\"gpu\",node=\"vm\",partition=\"debug\",status=\"idle\"} 1"});

  Config off;
  off.fairshare_user_metrics = false;
  off.queue_user_label = false;
  off.node_gres_metrics = false;
  const std::string out = body(off);
  EXPECT_EQ(Samples(out, "slurm_queue_pending"),
            V{"slurm_queue_pending{partition=\"debug\",reason=\"Priority\"} 3"});
  EXPECT_EQ(Samples(out, "slurm_cores_pending"),
            V{"slurm_cores_pending{partition=\"debug\",reason=\"Priority\"} 6"});
  EXPECT_TRUE(Has(out, "slurm_account_fairshare_raw_shares"));
  EXPECT_FALSE(Has(out, "slurm_user_fairshare_raw_shares"));
  EXPECT_FALSE(Has(out, "slurm_node_gres_total"));
  EXPECT_FALSE(Has(out, "slurm_node_gres_used"));
}

}  // namespace
}  // namespace sm
