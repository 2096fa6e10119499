// SPDX-License-Identifier: GPL-2.0-or-later
// PrivateData: which families reveal what, and that a MetricSet told to
// hide a kind of information builds none of the families that reveal it.
#include <gtest/gtest.h>

#include "endpoints.h"
#include "exposition.h"
#include "private_data.h"
#include "test_util.h"

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

}  // namespace
}  // namespace sm
