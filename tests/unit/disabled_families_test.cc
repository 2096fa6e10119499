// SPDX-License-Identifier: GPL-2.0-or-later
// DisabledFamilies over the families decided beside the endpoints' groups:
// the self-monitoring and accounting-status families (family_registry.h,
// FamiliesServedBeside) and those a cardinality switch turns off
// (FamilySwitches). Each name is accepted and dropped; a misspelt one is
// refused with the nearest name.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "config/exporter_config.h"
#include "exporter.h"
#include "families/accounting/fairshare.h"
#include "families/accounting/node_gres.h"
#include "families/soperator/self_monitoring.h"
#include "serving/family_registry.h"
#include "test_util.h"

namespace sm {
namespace {

Config Load(const std::string& text, std::vector<ConfigMessage>& msgs) {
  return LoadConfig(text, "soperator_metrics.conf",
                    [](const char*) { return nullptr; }, msgs);
}

bool Has(const std::string& body, std::string_view family) {
  return body.find("# TYPE " + std::string(family) + " ") != std::string::npos;
}

// Never asked: the exporter is not started.
class NoSource : public Source {
 public:
  std::shared_ptr<NodeSnapshot> CollectNodes(LockTiming&, std::string&) override {
    return nullptr;
  }
  std::shared_ptr<JobSnapshot> CollectJobs(LockTiming&, std::string&) override {
    return nullptr;
  }
  std::shared_ptr<DiagSnapshot> CollectDiag(LockTiming&, std::string&) override {
    return nullptr;
  }
};

TEST(DisabledFamilies, SelfMonitoringFamilyIsAcceptedAndDropped) {
  std::vector<ConfigMessage> msgs;
  Config config =
      Load("DisabledFamilies=slurm_exporter_collection_attempts_total\n", msgs);
  EXPECT_TRUE(msgs.empty());
  ASSERT_EQ(config.disabled_families,
            std::vector<std::string>{"slurm_exporter_collection_attempts_total"});
  NoSource src;
  Exporter ex(src, std::move(config), Carrier::kMetrics);
  HttpRequest req;
  req.method = "GET";
  req.path = "/metrics";
  const HttpResponse r = ex.ServeMonitoring(req);
  ASSERT_EQ(r.status, 200);
  ASSERT_TRUE(r.body);
  EXPECT_FALSE(Has(r.body->text(), "slurm_exporter_collection_attempts_total"));
  EXPECT_TRUE(Has(r.body->text(), "slurm_exporter_collection_failures_total"));
}

TEST(DisabledFamilies, AccountingStatusFamilyIsAcceptedAndDropped) {
  std::vector<ConfigMessage> msgs;
  const Config config =
      Load("DisabledFamilies=slurm_exporter_slurmdbd_connected\n", msgs);
  EXPECT_TRUE(msgs.empty());
  AccountingStatus status;
  status.slurmdbd = true;
  status.connected = true;
  // The set ServeSelfMonitoring builds (exporter.cc).
  MetricSet set(&config.disabled_families);
  AddAccountingStatusFamilies(set, status);
  set.Seal();
  std::string out;
  set.Write(Format::kText, out);
  EXPECT_FALSE(Has(out, "slurm_exporter_slurmdbd_connected"));
  EXPECT_TRUE(Has(out, "slurm_exporter_accounting_from_state_file"));
}

// The families of a cardinality switch, named one by one.
TEST(DisabledFamilies, SwitchFamilyIsAcceptedAndDropped) {
  std::vector<ConfigMessage> msgs;
  const Config config = Load("DisabledFamilies=slurm_node_gres_total\n", msgs);
  EXPECT_TRUE(msgs.empty());
  auto nodes = testing::OneIdleNode();
  nodes->nodes[0].partitions = {"main"};
  nodes->nodes[0].gres_configured = {{"gpu", 8}};
  nodes->nodes[0].gres_used = {{"gpu", 2}};
  ClusterState state;
  state.nodes = nodes;
  NodeHistory history(0);
  MetricSet set(&config.disabled_families);
  AddEndpointFamilies(set, Endpoint::kNodes, state, history, {});
  set.Seal();
  std::string out;
  set.Write(Format::kText, out);
  EXPECT_FALSE(Has(out, "slurm_node_gres_total"));
  EXPECT_TRUE(Has(out, "slurm_node_gres_used"));
}

TEST(DisabledFamilies, SwitchesTurnOffRegistryFamilies) {
  ASSERT_EQ(FamilySwitches().size(), 2u);
  EXPECT_EQ(FamilySwitches()[0].option, "FairshareUserMetrics");
  EXPECT_EQ(FamilySwitches()[0].families().data(), FairshareUserFamilies().data());
  EXPECT_EQ(FamilySwitches()[1].option, "NodeGresMetrics");
  EXPECT_EQ(FamilySwitches()[1].families().data(), NodeGresFamilies().data());
  for (const FamilySwitch& s : FamilySwitches())
    for (const FamilyDef* f : s.families())
      EXPECT_TRUE(IsKnownFamily(f->name)) << s.option << ": " << f->name;
}

TEST(DisabledFamilies, MisspeltNamesAreRefusedWithTheNearest) {
  const std::pair<std::string, std::string> cases[] = {
      {"slurm_exporter_colection_attempts_total",
       "slurm_exporter_collection_attempts_total"},
      {"slurm_exporter_slurmdbd_conected", "slurm_exporter_slurmdbd_connected"},
      {"slurm_node_gres_totl", "slurm_node_gres_total"},
  };
  for (const auto& [typo, nearest] : cases) {
    std::vector<ConfigMessage> msgs;
    const Config config = Load("DisabledFamilies=" + typo + "\n", msgs);
    ASSERT_EQ(msgs.size(), 1u) << typo;
    EXPECT_TRUE(msgs[0].error);
    EXPECT_TRUE(msgs[0].text.ends_with("unknown family " + typo +
                                       " (did you mean " + nearest + "?)"))
        << msgs[0].text;
    EXPECT_TRUE(config.disabled_families.empty());
  }
}

}  // namespace
}  // namespace sm
