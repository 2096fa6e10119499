// SPDX-License-Identifier: GPL-2.0-or-later
// PrivateData: which families reveal what, and that a MetricSet told to
// hide a kind of information builds none of the families that reveal it.
#include <gtest/gtest.h>

#include "serving/endpoints.h"
#include "exposition/exposition.h"
#include "serving/private_data.h"
#include "families/ours/queue_wait.h"
#include "families/soperator/self_monitoring.h"
#include "test_util.h"

#include <map>
#include <set>
#include <string>

namespace sm {
namespace {

using testing::Render;

TEST(PrivateData, LabelNamesSayWhatAFamilyReveals) {
  const FamilyDef job{"a", "h", MetricType::kGauge, {"job_id", "job_name"}};
  const FamilyDef user{"b", "h", MetricType::kCounter, {"user", "user_id"}};
  const FamilyDef both{"c", "h", MetricType::kGauge, {"job_id", "user_name"}};
  const FamilyDef node{"d", "h", MetricType::kGauge, {"node_name"}};
  const FamilyDef native_user{"e", "h", MetricType::kGauge, {"username"}};
  const FamilyDef account{"f", "h", MetricType::kGauge, {"account"}};
  const FamilyDef partition{"g", "h", MetricType::kGauge, {"slurm_partition"}};
  const FamilyDef resv{"i", "h", MetricType::kGauge, {"reservation_name"}};
  const FamilyDef plain{"j", "h", MetricType::kGauge, {"message_type"}};
  const FamilyDef usage{"k", "h", MetricType::kGauge, {}, {}, private_data::kUsage};
  EXPECT_EQ(Reveals(job), private_data::kJobs);
  EXPECT_EQ(Reveals(user), private_data::kUsers);
  EXPECT_EQ(Reveals(both), private_data::kJobs | private_data::kUsers);
  EXPECT_EQ(Reveals(node), private_data::kNodes);
  EXPECT_EQ(Reveals(native_user), private_data::kUsers);
  EXPECT_EQ(Reveals(account), private_data::kAccounts);
  EXPECT_EQ(Reveals(partition), private_data::kPartitions);
  EXPECT_EQ(Reveals(resv), private_data::kReservations);
  EXPECT_EQ(Reveals(plain), 0);
  EXPECT_EQ(Reveals(usage), private_data::kUsage);
}

TEST(PrivateData, NamesInSlurmConfOrder) {
  // private_data_string() of src/common/slurm_protocol_defs.c.
  EXPECT_EQ(PrivateDataNames(0), "");
  EXPECT_EQ(PrivateDataNames(private_data::kUsers | private_data::kJobs |
                             private_data::kAccounts),
            "accounts,jobs,users");
  EXPECT_EQ(PrivateDataNames(0x7f), "accounts,jobs,nodes,partitions,reservations,usage,users");
}

TEST(PrivateData, HiddenFamiliesAreNeitherBuiltNorWritten) {
  const FamilyDef job{"slurm_x_job", "h", MetricType::kGauge, {"job_id"}};
  const FamilyDef total{"slurm_x_total", "h", MetricType::kGauge, {}};
  MetricSet set(nullptr, private_data::kJobs);
  Family& j = set.Add(job);
  EXPECT_FALSE(j.enabled());
  j.Add({"7"}, 1);
  set.Add(total).Add({}, 3);
  EXPECT_EQ(Render(set), "# HELP slurm_x_total h\n# TYPE slurm_x_total gauge\nslurm_x_total 3\n");
}

// Soperator's and Slurm's own families of every path, with PrivateData=
// jobs,users: what is left names no job and no user.
TEST(PrivateData, JobsAndUsersHiddenOnEveryPath) {
  ClusterState state;
  state.nodes = testing::OneIdleNode("n1");
  auto jobs = std::make_shared<JobSnapshot>();
  Job j;
  j.id = 4242;
  j.name = "secret-job-name";
  j.state = JobBase::kRunning;
  j.user_id = 1234;
  j.user_name = "alice";
  j.account = "physics";
  j.partition = "batch";
  j.statistics_partition = "batch";
  j.nodes = "n1";
  j.std_out = "/home/alice/out";
  jobs->jobs.push_back(j);
  state.jobs = jobs;
  auto diag = std::make_shared<DiagSnapshot>();
  diag->rpc_users.push_back({"alice", 1234, 5, 100});
  state.diag = diag;
  const NodeHistory history(0);
  for (int e = 0; e < kEndpointCount; ++e) {
    MetricSet set(nullptr, private_data::kJobs | private_data::kUsers);
    AddEndpointFamilies(set, static_cast<Endpoint>(e), state, history, {1000, false});
    const std::string text = Render(set);
    SCOPED_TRACE(EndpointPath(static_cast<Endpoint>(e)));
    for (const char* secret : {"4242", "secret-job-name", "alice", "1234", "/home/alice"})
      EXPECT_EQ(text.find(secret), std::string::npos) << secret << " in\n" << text;
  }
  // And without PrivateData they are all there (the check above can fail).
  MetricSet all;
  AddEndpointFamilies(all, Endpoint::kEverything, state, history, {1000, false});
  const std::string text = Render(all);
  for (const char* secret : {"4242", "secret-job-name", "alice", "1234", "/home/alice"})
    EXPECT_NE(text.find(secret), std::string::npos) << secret;
}

// Every label of every family the core builds (every path, both value
// modes, the queue-wait histogram, self-monitoring, the accounting status)
// is in LabelClasses(): a family that gains a label nobody classified
// fails here (and is hidden whenever any PrivateData is set).
std::map<std::string, std::set<std::string>>* g_families = nullptr;
void RecordFamily(const FamilyDef& def) {
  for (std::string_view label : def.labels) (*g_families)[std::string(def.name)].emplace(label);
  (*g_families)[std::string(def.name)];
}

ClusterState EveryPart() {
  ClusterState state;
  state.nodes = testing::OneIdleNode("n1");
  state.jobs = testing::OneRunningJob();
  auto diag = std::make_shared<DiagSnapshot>();
  diag->rpc_users.push_back({"alice", 1234, 5, 100});
  state.diag = diag;
  state.shares = std::make_shared<ShareSnapshot>();
  state.qos = std::make_shared<QosSnapshot>();
  state.licenses = std::make_shared<LicenseSnapshot>();
  auto resv = std::make_shared<ReservationSnapshot>();
  Reservation r;
  r.name = "maint";
  r.state = "ACTIVE";
  r.users = "root";
  r.nodes = "n1";
  r.partition = "batch";
  r.flags = "MAINT";
  resv->reservations.push_back(r);
  state.reservations = resv;
  return state;
}

TEST(PrivateData, EveryLabelOfEveryFamilyIsClassified) {
  std::map<std::string, std::set<std::string>> families;
  g_families = &families;
  SetRevealsObserver(RecordFamily);
  const ClusterState state = EveryPart();
  const NodeHistory history(0);
  QueueWaitHistory queue_wait;
  queue_wait.Observe(*state.jobs);
  for (int e = 0; e < kEndpointCount; ++e) {
    for (bool native : {false, true}) {
      MetricSet set(nullptr, private_data::kEveryPrivateData);
      AddEndpointFamilies(set, static_cast<Endpoint>(e), state, history, {1000, native},
                          &queue_wait);
    }
  }
  MetricSet set(nullptr, private_data::kEveryPrivateData);
  queue_wait.AddFamilies(set);
  SelfMonitoring monitoring;
  monitoring.AddFamilies(set);
  AccountingStatus status;
  status.slurmdbd = true;
  AddAccountingStatusFamilies(set, status);
  SetRevealsObserver(nullptr);
  g_families = nullptr;
  // Soperator's, Slurm's native and the accounting families: hundreds.
  EXPECT_GT(families.size(), 200u);
  EXPECT_TRUE(families.count("slurm_reservation_info"));
  for (const auto& [family, labels] : families) {
    for (const std::string& label : labels) {
      EXPECT_NE(FindLabelClass(family, label), nullptr)
          << family << "{" << label << "}: the label is not in LabelClasses() "
          << "(plugin/core/serving/private_data.cc); say what it reveals under PrivateData";
    }
  }
}

TEST(PrivateData, AnUnclassifiedLabelHidesItsFamilyUnderAnyPrivateData) {
  const FamilyDef fresh{"slurm_new", "h", MetricType::kGauge, {"brand_new_label"}};
  EXPECT_EQ(Reveals(fresh), private_data::kEveryPrivateData);
  // `users` is classified in slurm_reservation_info only.
  const FamilyDef other{"slurm_other", "h", MetricType::kGauge, {"users"}};
  EXPECT_EQ(Reveals(other), private_data::kEveryPrivateData);
  MetricSet set(nullptr, private_data::kUsage);
  EXPECT_FALSE(set.Add(fresh).enabled());
}

// As `scontrol show reservation` for a user who is not an operator:
// PrivateData=users or =nodes leave a reservation's Users= and Nodes=
// shown; PrivateData=reservations hides the reservation.
TEST(PrivateData, ReservationListsFollowSlurm) {
  const ClusterState state = EveryPart();
  const NodeHistory history(0);
  auto render = [&](PrivateData hidden) {
    MetricSet set(nullptr, hidden);
    AddEndpointFamilies(set, Endpoint::kEverything, state, history, {1000, false});
    return Render(set);
  };
  const std::string users_hidden = render(private_data::kUsers | private_data::kNodes);
  EXPECT_NE(users_hidden.find("slurm_reservation_info{"), std::string::npos) << users_hidden;
  EXPECT_NE(users_hidden.find("users=\"root\""), std::string::npos);
  const std::string resv_hidden = render(private_data::kReservations);
  EXPECT_EQ(resv_hidden.find("slurm_reservation_info"), std::string::npos);
  EXPECT_EQ(resv_hidden.find("\"maint\""), std::string::npos);
}

}  // namespace
}  // namespace sm
