// SPDX-License-Identifier: GPL-2.0-or-later
// The family registry against the builders it lists and the tables derived
// from it: each group declares exactly the families its function adds, a
// body carries one family per name, and the sub-collectors DisabledFamilies
// can switch off feed only the families the registry says.
#include "serving/family_registry.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

#include "families/accounting/fairshare.h"
#include "families/accounting/licenses.h"
#include "native_sample.h"
#include "families/accounting/qos.h"
#include "families/accounting/reservations.h"
#include "sub_collectors.h"
#include "test_util.h"

namespace sm {
namespace {

using Names = std::vector<std::string_view>;

// A state with every part present, so every group is added.
ClusterState FullState() {
  ClusterState s;
  s.nodes = std::make_shared<const NodeSnapshot>(testing::SampleNodes());
  s.jobs = std::make_shared<const JobSnapshot>(testing::SampleJobs());
  s.diag = std::make_shared<const DiagSnapshot>(testing::SampleDiag());
  s.shares = std::make_shared<const ShareSnapshot>();
  s.qos = std::make_shared<const QosSnapshot>();
  s.licenses = std::make_shared<const LicenseSnapshot>();
  s.reservations = std::make_shared<const ReservationSnapshot>();
  return s;
}

Names Declared(const FamilyGroup& g) {
  Names names;
  for (const FamilyDef* f : g.families()) names.push_back(f->name);
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

// What a group's function adds is what its row declares, no more, no less:
// a family added but not declared could not be disabled; one declared but
// not added would be accepted by DisabledFamilies and do nothing.
TEST(FamilyRegistry, EachGroupDeclaresWhatItAdds) {
  const ClusterState state = FullState();
  NodeHistory history(0);
  QueueWaitHistory queue_wait;
  const RenderOptions opts{0, false};
  for (const FamilyGroup& g : FamilyGroups()) {
    MetricSet set;
    g.add(set, GroupInputs({state, history, opts, &queue_wait, {}}));
    EXPECT_EQ(set.AddedNames(), Declared(g)) << g.name;
  }
}

// A group reads only what its row declares (needs, also_reads), and one
// that may be taken from the body it replaces (follows != 0) reads only
// the parts its key is made from: a read of the clock, a history or any
// other part would be served stale while the key stays the same
// (endpoints.cc, KeyOf). Every part is there, JobSource=accounting's
// finished jobs too, so every read a group can make is made.
TEST(FamilyRegistry, GroupsReadWhatTheyDeclare) {
  ClusterState state = FullState();
  state.finished_jobs = std::make_shared<const FinishedJobsView>();
  NodeHistory history(0);
  QueueWaitHistory queue_wait;
  const RenderOptions opts{0, false};
  for (const FamilyGroup& g : FamilyGroups()) {
    MetricSet set;
    const GroupInputs in({state, history, opts, &queue_wait, {}});
    g.add(set, in);
    const StateParts declared = g.needs | g.also_reads;
    EXPECT_EQ(in.read() & ~declared, 0) << g.name << " reads an undeclared part";
    if (g.follows == 0) continue;
    EXPECT_EQ(in.read() & ~g.follows, 0)
        << g.name << " is reusable but reads beyond what it follows";
  }
}

// client_golang's registry refuses a body with two families of one name;
// the `yields` columns leave each shared name to one group per endpoint.
TEST(FamilyRegistry, OneGroupPerNameOnEachEndpoint) {
  for (int i = 0; i < kEndpointCount; ++i) {
    const auto e = static_cast<Endpoint>(i);
    std::set<std::string_view> seen;
    for (const FamilyGroup& g : FamilyGroups()) {
      if (!Contains(g.endpoints, e)) continue;
      const auto skip = YieldedNames(g, e);
      for (const FamilyDef* f : g.families()) {
        if (std::find(skip.begin(), skip.end(), f->name) != skip.end()) continue;
        EXPECT_TRUE(seen.insert(f->name).second)
            << f->name << " twice on " << EndpointPath(e) << " (" << i << ")";
      }
    }
  }
}

// A taken family stands in the OpenMetrics name check (MetricSet::SealWith)
// with the definition its group lists, while a build may add another of
// the same name: native groups list the typed one and build a gauge under
// NativeValues=yes. For a counter the two have different OpenMetrics
// names, so a group that may be taken (follows != 0) lists none.
TEST(FamilyRegistry, GroupsThatMayBeTakenListNoCounter) {
  for (const FamilyGroup& g : FamilyGroups()) {
    if (g.follows == 0) continue;
    for (const FamilyDef* f : g.families())
      EXPECT_NE(f->type, MetricType::kCounter) << g.name << ": " << f->name;
  }
}

// A body built from the registry carries every family its groups declare
// for the endpoint (less the yielded ones) and nothing else.
TEST(FamilyRegistry, EndpointsServeTheirGroups) {
  const ClusterState state = FullState();
  NodeHistory history(0);
  QueueWaitHistory queue_wait;
  for (int i = 0; i < kEndpointCount; ++i) {
    const auto e = static_cast<Endpoint>(i);
    MetricSet set;
    AddEndpointFamilies(set, e, state, history, {0, false}, &queue_wait);
    std::set<std::string_view> want;
    for (const FamilyGroup& g : FamilyGroups()) {
      if (!Contains(g.endpoints, e)) continue;
      for (std::string_view n : Declared(g)) want.insert(n);
    }
    const Names added = set.AddedNames();
    EXPECT_EQ(std::set<std::string_view>(added.begin(), added.end()), want)
        << EndpointPath(e) << " (" << i << ")";
  }
}

TEST(FamilyRegistry, SharedNodeNamesAreYielded) {
  EXPECT_EQ(SharedNodeFamilyNames().size(), 4u);
  const auto* native = FindFamilyGroup("native_nodes");
  ASSERT_NE(native, nullptr);
  EXPECT_EQ(YieldedNames(*native, Endpoint::kEverything).size(), 4u);
  EXPECT_TRUE(YieldedNames(*native, Endpoint::kNodes).empty());
}

// A part whose families are all disabled is not collected: its list must
// be exactly its builder's families, or disabling them all would leave the
// part collected (or disabling a few would stop it).
TEST(FamilyRegistry, SubCollectorFamiliesComeFromTheRegistry) {
  const std::pair<std::string_view, std::span<const FamilyDef* const>> want[] = {
      {"associations", FairshareFamilies()},
      {"qos", QosFamilies()},
      {"licenses", LicenseFamilies()},
      {"reservations", ReservationFamilies()},
  };
  for (const SubCollectorDef& sub : kSubCollectors) {
    const auto it = std::find_if(std::begin(want), std::end(want),
                                 [&](const auto& w) { return w.first == sub.name; });
    if (it == std::end(want)) {
      EXPECT_EQ(sub.families, nullptr) << sub.name;
      continue;
    }
    ASSERT_NE(sub.families, nullptr) << sub.name;
    const auto got = sub.families();
    EXPECT_TRUE(std::equal(got.begin(), got.end(), it->second.begin(),
                           it->second.end()))
        << sub.name;
  }
}

TEST(FamilyRegistry, KnownNamesAndNearest) {
  EXPECT_TRUE(IsKnownFamily("slurm_node_job"));
  EXPECT_TRUE(IsKnownFamily("slurm_nodes_alloc"));  // a native family
  EXPECT_TRUE(IsKnownFamily("slurm_job_queue_wait_seconds"));
  EXPECT_FALSE(IsKnownFamily("slurm_job_inf"));
  EXPECT_FALSE(IsKnownFamily("slurm_exporter_collections_total"));
  EXPECT_TRUE(IsKnownFamily("slurm_exporter_collection_attempts_total"));
  EXPECT_TRUE(IsKnownFamily("slurm_exporter_slurmdbd_connected"));
  EXPECT_EQ(NearestFamily("slurm_job_inf"), "slurm_job_info");
  EXPECT_EQ(NearestFamily("SLURM_NODE_JOB"), "slurm_node_job");
  EXPECT_EQ(NearestFamily("slurm_noed_job"), "slurm_node_job");
  EXPECT_EQ(NearestFamily("completely_different"), std::nullopt);
}

}  // namespace
}  // namespace sm
