// SPDX-License-Identifier: GPL-2.0-or-later
// Fairshare, QoS, license, reservation and node GRES families (docs/accounting-families.md):
// exact lines for snapshots shaped like what sshare, sacctmgr/scontrol
// show assoc_mgr, scontrol show licenses/reservation and sinfo printed on
// the test clusters (scripts/test-cluster.sh --accounting).
#include <gtest/gtest.h>

#include <limits>

#include "families/accounting/fairshare.h"
#include "families/accounting/licenses.h"
#include "families/accounting/node_gres.h"
#include "families/accounting/pending_jobs.h"
#include "serving/private_data.h"
#include "families/accounting/qos.h"
#include "families/accounting/reservations.h"
#include "test_util.h"

namespace sm {
namespace {

using testing::Render;
using testing::Samples;
using V = std::vector<std::string>;

// sshare -a -l -P on a 22.05.8 test cluster a minute after a job of nobody
// in theory started (Fair Tree, the default):
//   root|||0.000000|46||1.000000||
//    root|root|1|0.009901|0|0.000000|0.000000|1.000000|inf
//    physics||40|0.396040|46|1.000000|1.000000||0.396040
//     physics|nobody|1|0.090909|0|0.000000|0.000000|0.500000|inf
//     theory||10|0.909091|46|1.000000|1.000000||0.909091
//      theory|nobody|1|1.000000|46|1.000000|1.000000|0.250000|1.000000
ShareSnapshot SampleShares() {
  ShareSnapshot s;
  const double inf = std::numeric_limits<double>::infinity();
  s.shares = {
      {"root", "", "", false, std::nullopt, 0.0, 46, std::nullopt, 1.0,
       std::nullopt, std::nullopt},
      {"root", "root", "", false, 1, 0.009901, 0, 0.0, 0.0, 1.0, inf},
      {"physics", "", "", false, 40, 0.39604, 46, 1.0, 1.0, std::nullopt,
       0.39604},
      {"physics", "nobody", "", false, 1, 0.090909, 0, 0.0, 0.0, 0.5, inf},
      {"theory", "", "", false, 10, 0.909091, 46, 1.0, 1.0, std::nullopt,
       0.909091},
      {"theory", "nobody", "", false, 1, 1.0, 46, 1.0, 1.0, 0.25, 1.0},
  };
  return s;
}

TEST(Fairshare, AccountLines) {
  MetricSet set;
  AddFairshareFamilies(set, SampleShares(), {});
  const std::string out = Render(set);
  // Fair Tree prints no FairShare on account lines: no series.
  EXPECT_EQ(Samples(out, "slurm_account_fairshare"), V{});
  EXPECT_EQ(Samples(out, "slurm_account_fairshare_raw_shares"),
            (V{"slurm_account_fairshare_raw_shares{account=\"physics\"} 40",
               "slurm_account_fairshare_raw_shares{account=\"theory\"} 10"}));
  EXPECT_EQ(Samples(out, "slurm_account_fairshare_norm_shares"),
            (V{"slurm_account_fairshare_norm_shares{account=\"physics\"} 0.39604",
               "slurm_account_fairshare_norm_shares{account=\"root\"} 0",
               "slurm_account_fairshare_norm_shares{account=\"theory\"} 0.909091"}));
  EXPECT_EQ(Samples(out, "slurm_account_fairshare_raw_usage_cpu_seconds"),
            (V{"slurm_account_fairshare_raw_usage_cpu_seconds{account=\"physics\"} 46",
               "slurm_account_fairshare_raw_usage_cpu_seconds{account=\"root\"} 46",
               "slurm_account_fairshare_raw_usage_cpu_seconds{account=\"theory\"} 46"}));
  EXPECT_EQ(Samples(out, "slurm_account_fairshare_norm_usage"),
            (V{"slurm_account_fairshare_norm_usage{account=\"physics\"} 1",
               "slurm_account_fairshare_norm_usage{account=\"theory\"} 1"}));
  EXPECT_EQ(Samples(out, "slurm_account_fairshare_effective_usage"),
            (V{"slurm_account_fairshare_effective_usage{account=\"physics\"} 1",
               "slurm_account_fairshare_effective_usage{account=\"root\"} 1",
               "slurm_account_fairshare_effective_usage{account=\"theory\"} 1"}));
  EXPECT_EQ(Samples(out, "slurm_account_fairshare_level_fs"),
            (V{"slurm_account_fairshare_level_fs{account=\"physics\"} 0.39604",
               "slurm_account_fairshare_level_fs{account=\"theory\"} 0.909091"}));
  // A family without series is not written at all, as client_golang does.
  EXPECT_EQ(out.find("# HELP slurm_account_fairshare "), std::string::npos);
  EXPECT_NE(out.find("# HELP slurm_account_fairshare_raw_shares Raw shares allocated to "
                     "account\n# TYPE slurm_account_fairshare_raw_shares gauge\n"),
            std::string::npos);
}

TEST(Fairshare, UserLines) {
  MetricSet set;
  AddFairshareFamilies(set, SampleShares(), {});
  const std::string out = Render(set);
  EXPECT_EQ(Samples(out, "slurm_user_fairshare"),
            (V{"slurm_user_fairshare{account=\"physics\",user=\"nobody\"} 0.5",
               "slurm_user_fairshare{account=\"root\",user=\"root\"} 1",
               "slurm_user_fairshare{account=\"theory\",user=\"nobody\"} 0.25"}));
  EXPECT_EQ(Samples(out, "slurm_user_fairshare_level_fs"),
            (V{"slurm_user_fairshare_level_fs{account=\"physics\",user=\"nobody\"} +Inf",
               "slurm_user_fairshare_level_fs{account=\"root\",user=\"root\"} +Inf",
               "slurm_user_fairshare_level_fs{account=\"theory\",user=\"nobody\"} 1"}));
  EXPECT_EQ(Samples(out, "slurm_user_fairshare_raw_usage_cpu_seconds"),
            (V{"slurm_user_fairshare_raw_usage_cpu_seconds{account=\"physics\",user=\"nobody\"} 0",
               "slurm_user_fairshare_raw_usage_cpu_seconds{account=\"root\",user=\"root\"} 0",
               "slurm_user_fairshare_raw_usage_cpu_seconds{account=\"theory\",user=\"nobody\"} 46"}));
}

TEST(Fairshare, UserMetricsOff) {
  MetricSet set;
  AddFairshareFamilies(set, SampleShares(), {.user_metrics = false});
  const std::string out = Render(set);
  EXPECT_EQ(out.find("slurm_user_"), std::string::npos);
  EXPECT_EQ(Samples(out, "slurm_account_fairshare_raw_shares").size(), 2u);
}

TEST(Fairshare, ParentLinesSkippedRepeatsKeepTheFirst) {
  ShareSnapshot s;
  // Classic fairshare prints FairShare on accounts too; a user whose
  // RawShares is "parent"; a user with two partition associations.
  s.shares = {
      {"acct", "", "", false, 5, 0.5, 10, 0.1, 0.2, 0.75, std::nullopt},
      {"acct", "inherit", "", true, std::nullopt, 0.5, 3, 0.0, 0.0, 0.5,
       std::nullopt},
      {"acct", "u", "gpu", false, 1, 0.25, 7, 0.07, 0.07, 0.6, std::nullopt},
      {"acct", "u", "cpu", false, 2, 0.5, 9, 0.09, 0.09, 0.4, std::nullopt},
      {"", "orphan", "", false, 1, 1.0, 1, 1.0, 1.0, 1.0, std::nullopt},
  };
  MetricSet set;
  AddFairshareFamilies(set, s, {});
  const std::string out = Render(set);
  EXPECT_EQ(Samples(out, "slurm_account_fairshare"),
            V{"slurm_account_fairshare{account=\"acct\"} 0.75"});
  EXPECT_EQ(Samples(out, "slurm_user_fairshare_raw_shares"),
            V{"slurm_user_fairshare_raw_shares{account=\"acct\",user=\"u\"} 1"});
  EXPECT_EQ(set.stats().duplicates_dropped, 0u);
}

TEST(Fairshare, HostileNamesAreEscaped) {
  ShareSnapshot s;
  s.shares = {{"a\"b\\c\nd", "u\xff", "", false, 1, 1.0, 0, 0.0, 0.0, 1.0,
               std::nullopt}};
  MetricSet set;
  AddFairshareFamilies(set, s, {});
  const std::string out = Render(set);
  EXPECT_EQ(Samples(out, "slurm_user_fairshare"),
            V{"slurm_user_fairshare{account=\"a\\\"b\\\\c\\nd\",user=\"u\xef\xbf\xbd\"} 1"});
  // Counted per label value written: six user families have a value.
  EXPECT_EQ(set.stats().utf8_repaired, 6u);
}

// PrivateData=usage: sshare shows a non-operator none of the other lines
// (assoc_mgr_get_shares()), so no fairshare family is built; QoS usage is
// not hidden by Slurm (scontrol show assoc_mgr flags=qos), so it stays.
TEST(Fairshare, PrivateDataUsageHidesEveryFamily) {
  MetricSet set(nullptr, private_data::kUsage);
  AddFairshareFamilies(set, SampleShares(), {});
  QosSnapshot q;
  q.qos = {{"normal", 0, 0, 0, 0, 5.0, std::nullopt, std::nullopt,
            std::nullopt, std::nullopt, std::nullopt, {}}};
  AddQosFamilies(set, q);
  const std::string out = Render(set);
  EXPECT_EQ(out.find("fairshare"), std::string::npos);
  EXPECT_EQ(Samples(out, "slurm_qos_usage_raw"),
            V{"slurm_qos_usage_raw{qos=\"normal\"} 5"});
  for (const FamilyDef* f : FairshareFamilies())
    EXPECT_TRUE(Reveals(*f) & private_data::kUsage) << f->name;
}

// scontrol show assoc_mgr flags=qos / sacctmgr show qos on the test cluster
// with one job of nobody running under QoS high (GrpTRES=cpu=2 GrpJobs=4
// MaxJobsPerUser=2): GrpJobs=4(1) GrpSubmitJobs=N(1) GrpTRES=cpu=2(1),...
TEST(Qos, UsageAndLimitsSet) {
  QosSnapshot q;
  q.qos = {
      {"high", 100, 1, 1, 0, 176.976067, 4, std::nullopt, 2, std::nullopt,
       std::nullopt,
       {{"cpu", 1, 3540, 2, std::nullopt}, {"mem", 500, 1770000, std::nullopt, std::nullopt}}},
      {"normal", 0, 0, 0, 1, 0, std::nullopt, std::nullopt, std::nullopt,
       std::nullopt, 3600, {{"cpu", 0, 0, std::nullopt, 8}}},
  };
  MetricSet set;
  AddQosFamilies(set, q);
  const std::string out = Render(set);
  EXPECT_EQ(Samples(out, "slurm_qos_jobs"),
            (V{"slurm_qos_jobs{qos=\"high\"} 1", "slurm_qos_jobs{qos=\"normal\"} 0"}));
  EXPECT_EQ(Samples(out, "slurm_qos_jobs_accruing"),
            (V{"slurm_qos_jobs_accruing{qos=\"high\"} 0",
               "slurm_qos_jobs_accruing{qos=\"normal\"} 1"}));
  EXPECT_EQ(Samples(out, "slurm_qos_usage_raw"),
            (V{"slurm_qos_usage_raw{qos=\"high\"} 176.976067",
               "slurm_qos_usage_raw{qos=\"normal\"} 0"}));
  EXPECT_EQ(Samples(out, "slurm_qos_tres_used"),
            (V{"slurm_qos_tres_used{qos=\"high\",tres=\"cpu\"} 1",
               "slurm_qos_tres_used{qos=\"high\",tres=\"mem\"} 500",
               "slurm_qos_tres_used{qos=\"normal\",tres=\"cpu\"} 0"}));
  EXPECT_EQ(Samples(out, "slurm_qos_tres_run_seconds"),
            (V{"slurm_qos_tres_run_seconds{qos=\"high\",tres=\"cpu\"} 3540",
               "slurm_qos_tres_run_seconds{qos=\"high\",tres=\"mem\"} 1.77e+06",
               "slurm_qos_tres_run_seconds{qos=\"normal\",tres=\"cpu\"} 0"}));
  // Limits: only where set.
  EXPECT_EQ(Samples(out, "slurm_qos_grp_jobs_limit"),
            V{"slurm_qos_grp_jobs_limit{qos=\"high\"} 4"});
  EXPECT_EQ(Samples(out, "slurm_qos_grp_submit_jobs_limit"), V{});
  EXPECT_EQ(Samples(out, "slurm_qos_max_jobs_per_user_limit"),
            V{"slurm_qos_max_jobs_per_user_limit{qos=\"high\"} 2"});
  EXPECT_EQ(Samples(out, "slurm_qos_max_wall_per_job_seconds"),
            V{"slurm_qos_max_wall_per_job_seconds{qos=\"normal\"} 3600"});
  EXPECT_EQ(Samples(out, "slurm_qos_grp_tres_limit"),
            V{"slurm_qos_grp_tres_limit{qos=\"high\",tres=\"cpu\"} 2"});
  EXPECT_EQ(Samples(out, "slurm_qos_max_tres_per_user_limit"),
            V{"slurm_qos_max_tres_per_user_limit{qos=\"normal\",tres=\"cpu\"} 8"});
  EXPECT_EQ(Samples(out, "slurm_qos_priority"),
            (V{"slurm_qos_priority{qos=\"high\"} 100",
               "slurm_qos_priority{qos=\"normal\"} 0"}));
}

// scontrol show licenses on 24.11.5 (the test cluster):
//   LicenseName=comsol Total=2 Used=0 Free=2 Reserved=0 Remote=no
//   LicenseName=fluent@flexlm Total=5 Used=0 Free=5 Reserved=0 Remote=yes
//       LastConsumed=3 LastDeficit=0 LastUpdate=...
//   LicenseName=matlab Total=4 Used=2 Free=2 Reserved=1 Remote=no
TEST(Licenses, LocalAndRemote) {
  LicenseSnapshot l;
  l.licenses = {
      {"comsol", 2, 0, 2, 0, false, std::nullopt, std::nullopt, std::nullopt},
      {"fluent@flexlm", 5, 0, 5, 0, true, 3, 0, 1796106898},
      {"matlab", 4, 2, 2, 1, false, std::nullopt, std::nullopt, std::nullopt},
  };
  MetricSet set;
  AddLicenseFamilies(set, l);
  const std::string out = Render(set);
  EXPECT_EQ(Samples(out, "slurm_license_total"),
            (V{"slurm_license_total{license=\"comsol\"} 2",
               "slurm_license_total{license=\"fluent@flexlm\"} 5",
               "slurm_license_total{license=\"matlab\"} 4"}));
  EXPECT_EQ(Samples(out, "slurm_license_free"),
            (V{"slurm_license_free{license=\"comsol\"} 2",
               "slurm_license_free{license=\"fluent@flexlm\"} 5",
               "slurm_license_free{license=\"matlab\"} 2"}));
  EXPECT_EQ(Samples(out, "slurm_license_reserved"),
            (V{"slurm_license_reserved{license=\"comsol\"} 0",
               "slurm_license_reserved{license=\"fluent@flexlm\"} 0",
               "slurm_license_reserved{license=\"matlab\"} 1"}));
  EXPECT_EQ(Samples(out, "slurm_license_info"),
            (V{"slurm_license_info{license=\"comsol\",remote=\"no\"} 1",
               "slurm_license_info{license=\"fluent@flexlm\",remote=\"yes\"} 1",
               "slurm_license_info{license=\"matlab\",remote=\"no\"} 1"}));
  EXPECT_EQ(Samples(out, "slurm_license_last_consumed"),
            V{"slurm_license_last_consumed{license=\"fluent@flexlm\"} 3"});
  EXPECT_EQ(Samples(out, "slurm_license_last_update_timestamp_seconds"),
            V{"slurm_license_last_update_timestamp_seconds{license=\"fluent@flexlm\"} 1.796106898e+09"});
}

// scontrol show reservation:
//   ReservationName=sm_resv StartTime=... Nodes=ghost2 NodeCnt=1 CoreCnt=2
//   PartitionName=(null) Flags=SPEC_NODES Users=root ... State=ACTIVE
TEST(Reservations, InfoAndTimes) {
  ReservationSnapshot r;
  r.reservations = {
      {"sm_resv", "ACTIVE", "root", "ghost2", "", "SPEC_NODES", 1796106000,
       1796192400, 1, 2},
      {"later", "INACTIVE", "(null)", "vm", "debug", "MAINT,SPEC_NODES",
       std::nullopt, 1796300000, 1, 2},
  };
  MetricSet set;
  AddReservationFamilies(set, r);
  const std::string out = Render(set);
  EXPECT_EQ(Samples(out, "slurm_reservation_info"),
            (V{"slurm_reservation_info{flags=\"MAINT,SPEC_NODES\",nodes=\"vm\",partition=\"debug\","
               "reservation_name=\"later\",state=\"INACTIVE\",users=\"(null)\"} 1",
               "slurm_reservation_info{flags=\"SPEC_NODES\",nodes=\"ghost2\",partition=\"\","
               "reservation_name=\"sm_resv\",state=\"ACTIVE\",users=\"root\"} 1"}));
  EXPECT_EQ(Samples(out, "slurm_reservation_start_time_seconds"),
            V{"slurm_reservation_start_time_seconds{reservation_name=\"sm_resv\"} 1.796106e+09"});
  EXPECT_EQ(Samples(out, "slurm_reservation_end_time_seconds").size(), 2u);
  EXPECT_EQ(Samples(out, "slurm_reservation_core_count"),
            (V{"slurm_reservation_core_count{reservation_name=\"later\"} 2",
               "slurm_reservation_core_count{reservation_name=\"sm_resv\"} 2"}));
}

Node ResvNode(std::string_view name, std::string_view resv, NodeBase base,
              uint32_t flags) {
  Node n;
  n.name = name;
  n.reservation = resv;
  n.state.base = base;
  n.state.flags = flags;
  return n;
}

TEST(Reservations, NodeStatesPerReservation) {
  NodeSnapshot nodes;
  nodes.nodes = {
      ResvNode("a1", "maint", NodeBase::kIdle, node_flag::kReserved),
      ResvNode("a2", "maint", NodeBase::kMixed, node_flag::kReserved),
      ResvNode("a3", "maint", NodeBase::kIdle,
               node_flag::kReserved | node_flag::kDrain),
      ResvNode("a4", "maint", NodeBase::kDown,
               node_flag::kNotResponding | node_flag::kPlanned),
      ResvNode("b1", "gpu", NodeBase::kUnknown, node_flag::kNotResponding),
      ResvNode("c1", "", NodeBase::kAllocated, 0),
  };
  MetricSet set;
  AddReservationNodeFamilies(set, nodes);
  const std::string out = Render(set);
  EXPECT_EQ(Samples(out, "slurm_reservation_nodes_idle"),
            (V{"slurm_reservation_nodes_idle{reservation=\"gpu\"} 0",
               "slurm_reservation_nodes_idle{reservation=\"maint\"} 2"}));
  EXPECT_EQ(Samples(out, "slurm_reservation_nodes_mix"),
            (V{"slurm_reservation_nodes_mix{reservation=\"gpu\"} 0",
               "slurm_reservation_nodes_mix{reservation=\"maint\"} 1"}));
  EXPECT_EQ(Samples(out, "slurm_reservation_nodes_down"),
            (V{"slurm_reservation_nodes_down{reservation=\"gpu\"} 0",
               "slurm_reservation_nodes_down{reservation=\"maint\"} 1"}));
  EXPECT_EQ(Samples(out, "slurm_reservation_nodes_drain"),
            (V{"slurm_reservation_nodes_drain{reservation=\"gpu\"} 0",
               "slurm_reservation_nodes_drain{reservation=\"maint\"} 1"}));
  EXPECT_EQ(Samples(out, "slurm_reservation_nodes_planned"),
            (V{"slurm_reservation_nodes_planned{reservation=\"gpu\"} 0",
               "slurm_reservation_nodes_planned{reservation=\"maint\"} 1"}));
  EXPECT_EQ(Samples(out, "slurm_reservation_nodes_other"),
            (V{"slurm_reservation_nodes_other{reservation=\"gpu\"} 1",
               "slurm_reservation_nodes_other{reservation=\"maint\"} 0"}));
  // Up base state and not drained: a1 and a2.
  EXPECT_EQ(Samples(out, "slurm_reservation_nodes_healthy"),
            (V{"slurm_reservation_nodes_healthy{reservation=\"gpu\"} 0",
               "slurm_reservation_nodes_healthy{reservation=\"maint\"} 2"}));
  EXPECT_EQ(Samples(out, "slurm_reservation_nodes_alloc"),
            (V{"slurm_reservation_nodes_alloc{reservation=\"gpu\"} 0",
               "slurm_reservation_nodes_alloc{reservation=\"maint\"} 0"}));
}

// sinfo -h -N -O NodeList,StateLong,Partition,Gres,GresUsed on 24.11.5:
//   vm mixed debug* gpu:h100:1,gpu:a100:1 gpu:h100:1(IDX:0),gpu:a100:0(IDX:N/A)
//   vm mixed batch  gpu:h100:1,gpu:a100:1 gpu:h100:1(IDX:0),gpu:a100:0(IDX:N/A)
TEST(NodeGres, PerPartitionAndType) {
  NodeSnapshot g;
  Node vm;
  vm.name = "vm";
  vm.state_long = "mixed";
  vm.partitions = {"debug", "batch"};
  vm.gres_configured = {{"gpu:h100", 1}, {"gpu:a100", 1}};
  vm.gres_used = {{"gpu:h100", 1}, {"gpu:a100", 0}};
  Node plain;
  plain.name = "c1";
  plain.state_long = "idle";
  plain.partitions = {"batch"};
  plain.gres_configured = {{"gpu", 4}};
  plain.gres_used = {{"gpu", 0}};
  Node cpu_only;  // no GRES: no series
  cpu_only.name = "c2";
  cpu_only.state_long = "idle";
  cpu_only.partitions = {"batch"};
  g.nodes.push_back(vm);
  g.nodes.push_back(plain);
  g.nodes.push_back(cpu_only);
  MetricSet set;
  AddNodeGresFamilies(set, g);
  const std::string out = Render(set);
  EXPECT_EQ(
      Samples(out, "slurm_node_gres_total"),
      (V{"slurm_node_gres_total{gres_type=\"gpu\",node=\"c1\",partition=\"batch\",status=\"idle\"} 4",
         "slurm_node_gres_total{gres_type=\"gpu:a100\",node=\"vm\",partition=\"batch\",status=\"mixed\"} 1",
         "slurm_node_gres_total{gres_type=\"gpu:a100\",node=\"vm\",partition=\"debug\",status=\"mixed\"} 1",
         "slurm_node_gres_total{gres_type=\"gpu:h100\",node=\"vm\",partition=\"batch\",status=\"mixed\"} 1",
         "slurm_node_gres_total{gres_type=\"gpu:h100\",node=\"vm\",partition=\"debug\",status=\"mixed\"} 1"}));
  EXPECT_EQ(
      Samples(out, "slurm_node_gres_used"),
      (V{"slurm_node_gres_used{gres_type=\"gpu\",node=\"c1\",partition=\"batch\",status=\"idle\"} 0",
         "slurm_node_gres_used{gres_type=\"gpu:a100\",node=\"vm\",partition=\"batch\",status=\"mixed\"} 0",
         "slurm_node_gres_used{gres_type=\"gpu:a100\",node=\"vm\",partition=\"debug\",status=\"mixed\"} 0",
         "slurm_node_gres_used{gres_type=\"gpu:h100\",node=\"vm\",partition=\"batch\",status=\"mixed\"} 1",
         "slurm_node_gres_used{gres_type=\"gpu:h100\",node=\"vm\",partition=\"debug\",status=\"mixed\"} 1"}));
}

std::vector<std::string> Counts(std::string_view spec) {
  std::vector<std::string> out;
  for (const GresCount& g : ParseGresCounts(spec))
    out.push_back(std::string(g.type) + "=" + std::to_string(g.count));
  return out;
}

// The shapes sinfo prints in SckyzO's fixtures and on our test clusters.
TEST(NodeGres, ParseLikeSckyzO) {
  EXPECT_EQ(Counts("gpu:h100:1,gpu:a100:1"), (V{"gpu:h100=1", "gpu:a100=1"}));
  EXPECT_EQ(Counts("gpu:h100:1(IDX:0),gpu:a100:0(IDX:N/A)"),
            (V{"gpu:h100=1", "gpu:a100=0"}));
  // A comma inside an index list is not a separator.
  EXPECT_EQ(Counts("gpu:NVlink_A100_40GB:2(IDX:0,3)"), V{"gpu:NVlink_A100_40GB=2"});
  EXPECT_EQ(Counts("gpu:8(S:0-1)"), V{"gpu=8"});
  EXPECT_EQ(Counts("gpu:(null):2(IDX:0-1)"), V{"gpu=2"});
  EXPECT_EQ(Counts("gpu:a:2,gpu:a:3,shard:h100:8"), (V{"gpu:a=5", "shard:h100=8"}));
  // Truncated or mangled tokens are skipped, not guessed at.
  EXPECT_EQ(Counts("shard:h10,gpu:x:y:1,gpu:2(IDX:0"), V{});
  EXPECT_EQ(Counts("(null)"), V{});
  EXPECT_EQ(Counts("N/A"), V{});
  EXPECT_EQ(Counts(""), V{});
}

// squeue -h -a -o "%P|%T|%C|%r|%u" printed, on a 24.11.5 test cluster:
//   debug,batch|PENDING|2|Priority|nobody
//   debug|PENDING|4|ReqNodeNotAvail, UnavailableNodes:ghost[1-2]|daemon
//   debug|PENDING|1|Priority|nobody
//   debug|REQUEUE_HOLD|1|JobHoldMaxRequeue|nobody      (not PENDING)
//   batch|RUNNING|2|None|nobody
JobSnapshot SamplePending() {
  JobSnapshot s;
  auto add = [&](uint32_t id, bool pending, std::string_view part,
                 std::string_view reason, std::string_view user, int64_t cpus) {
    Job j;
    j.id = id;
    j.state = pending ? JobBase::kPending : JobBase::kRunning;
    j.squeue_pending = pending;
    j.squeue_reason = reason;
    j.partition = part;
    j.user_name = user;
    j.user_id = 65534;
    j.cpus = cpus;
    s.jobs.push_back(j);
  };
  add(1, true, "debug,batch", "Priority", "nobody", 2);
  add(2, true, "debug", "ReqNodeNotAvail, UnavailableNodes:ghost[1-2]", "daemon", 4);
  add(3, true, "debug", "Priority", "nobody", 1);
  add(4, false, "debug", "", "nobody", 1);  // REQUEUE_HOLD
  add(5, false, "batch", "", "nobody", 2);
  return s;
}

TEST(PendingJobs, ByUserPartitionReason) {
  MetricSet set;
  AddPendingJobFamilies(set, SamplePending(), {});
  const std::string out = Render(set);
  EXPECT_EQ(Samples(out, "slurm_queue_pending"),
            (V{"slurm_queue_pending{partition=\"batch\",reason=\"Priority\",user=\"nobody\"} 1",
               "slurm_queue_pending{partition=\"debug\",reason=\"Priority\",user=\"nobody\"} 2",
               "slurm_queue_pending{partition=\"debug\",reason=\"ReqNodeNotAvail, "
               "UnavailableNodes:ghost[1-2]\",user=\"daemon\"} 1"}));
  EXPECT_EQ(Samples(out, "slurm_cores_pending"),
            (V{"slurm_cores_pending{partition=\"batch\",reason=\"Priority\",user=\"nobody\"} 2",
               "slurm_cores_pending{partition=\"debug\",reason=\"Priority\",user=\"nobody\"} 3",
               "slurm_cores_pending{partition=\"debug\",reason=\"ReqNodeNotAvail, "
               "UnavailableNodes:ghost[1-2]\",user=\"daemon\"} 4"}));
  EXPECT_NE(out.find("# HELP slurm_queue_pending Pending jobs in queue\n"
                     "# TYPE slurm_queue_pending gauge\n"),
            std::string::npos);
}

TEST(PendingJobs, WithoutUserLabel) {
  MetricSet set;
  AddPendingJobFamilies(set, SamplePending(), {false});
  const std::string out = Render(set);
  EXPECT_EQ(Samples(out, "slurm_queue_pending"),
            (V{"slurm_queue_pending{partition=\"batch\",reason=\"Priority\"} 1",
               "slurm_queue_pending{partition=\"debug\",reason=\"Priority\"} 2",
               "slurm_queue_pending{partition=\"debug\",reason=\"ReqNodeNotAvail, "
               "UnavailableNodes:ghost[1-2]\"} 1"}));
}

// squeue prints the uid when it does not resolve (uid_to_string()).
TEST(PendingJobs, UnresolvedUserIsTheUid) {
  JobSnapshot s;
  Job j;
  j.squeue_pending = true;
  j.squeue_reason = "Priority";
  j.partition = "debug";
  j.user_id = 4242;
  j.cpus = 1;
  s.jobs.push_back(j);
  MetricSet set;
  AddPendingJobFamilies(set, s, {});
  EXPECT_EQ(Samples(Render(set), "slurm_queue_pending"),
            V{"slurm_queue_pending{partition=\"debug\",reason=\"Priority\",user=\"4242\"} 1"});
}

}  // namespace
}  // namespace sm
