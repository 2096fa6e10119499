// SPDX-License-Identifier: GPL-2.0-or-later
// Soperator node gauges (spec 6.1): exact lines, fallbacks and absences.
// Where a shim case (tests/shim/cases) feeds the plugin the same input,
// the expected lines are that case's (CaseFamily): written once, checked
// here on the core and there through the real plugin.
#include <gtest/gtest.h>

#include "model/node_state.h"
#include "shim_case_families.h"
#include "families/soperator/soperator_nodes.h"
#include "test_util.h"

namespace sm {
namespace {

using testing::CaseFamily;
using testing::Render;
using testing::Samples;
using V = std::vector<std::string>;
using namespace node_flag;

Node FullNode() {
  Node n;
  n.name = "node1";
  n.instance_id = "i-1";
  n.address = "10.0.0.1";
  n.comment = "rack \"B\"";
  n.reason = "bad\\dimm\nline2";
  n.tres = "cpu=16,mem=191356M,billing=16,gres/gpu=1";
  n.state = {NodeBase::kIdle, kDrain};
  n.partitions = {"main", "gpu"};
  n.cpus = 16;
  n.alloc_cpus = 4;
  n.alloc_idle_cpus = 12;
  n.effective_cpus = 15;
  n.real_memory_mb = 191356;
  n.alloc_memory_mb = 1024;
  n.free_memory_mb = 1000;
  n.specialized_memory_mb = 356;
  return n;
}

std::string RenderNodes(Rows<Node> nodes) {
  NodeSnapshot snap;
  snap.nodes = std::move(nodes);
  MetricSet set;
  AddSoperatorNodeFamilies(set, snap);
  return Render(set);
}

TEST(SoperatorNodes, FullNodeExactLines) {
  const std::string out = RenderNodes({FullNode()});
  EXPECT_EQ(
      Samples(out, "slurm_node_info"),
      V{"slurm_node_info{address=\"10.0.0.1\",comment=\"rack \\\"B\\\"\","
        "instance_id=\"i-1\",is_unavailable=\"true\",node_name=\"node1\","
        "reason=\"bad\\\\dimm\\nline2\",reservation_name=\"\","
        "state_base=\"IDLE\",state_is_cloud=\"\",state_is_completing=\"\","
        "state_is_drain=\"true\",state_is_fail=\"\",state_is_invalid=\"\","
        "state_is_maintenance=\"false\",state_is_not_responding=\"\","
        "state_is_planned=\"\",state_is_power_down=\"\","
        "state_is_power_drain=\"\",state_is_power_up=\"\","
        "state_is_powered_down=\"\",state_is_powering_down=\"\","
        "state_is_powering_up=\"\",state_is_reserved=\"false\"} 1"});
  EXPECT_EQ(Samples(out, "slurm_node_cpus_total"),
            CaseFamily("nodes_full", "slurm_node_cpus_total"));
  EXPECT_EQ(Samples(out, "slurm_node_cpus_allocated"),
            CaseFamily("nodes_full", "slurm_node_cpus_allocated"));
  EXPECT_EQ(Samples(out, "slurm_node_cpus_idle"),
            CaseFamily("nodes_full", "slurm_node_cpus_idle"));
  EXPECT_EQ(Samples(out, "slurm_node_cpus_effective"),
            CaseFamily("nodes_full", "slurm_node_cpus_effective"));
  EXPECT_EQ(Samples(out, "slurm_node_memory_total_bytes"),
            CaseFamily("nodes_full", "slurm_node_memory_total_bytes"));
  EXPECT_EQ(Samples(out, "slurm_node_memory_allocated_bytes"),
            CaseFamily("nodes_full", "slurm_node_memory_allocated_bytes"));
  EXPECT_EQ(Samples(out, "slurm_node_memory_free_bytes"),
            CaseFamily("nodes_full", "slurm_node_memory_free_bytes"));
  // (191356 - 356) MiB
  EXPECT_EQ(Samples(out, "slurm_node_memory_effective_bytes"),
            CaseFamily("nodes_full", "slurm_node_memory_effective_bytes"));
  // Input order kept, series sorted by label values.
  EXPECT_EQ(Samples(out, "slurm_node_partition"),
            CaseFamily("nodes_full", "slurm_node_partition"));
  EXPECT_NE(out.find("# HELP slurm_node_info Slurm node info\n"
                     "# TYPE slurm_node_info gauge\n"),
            std::string::npos);
  EXPECT_EQ(out.find("slurm_node_nvlink_instance_group"), std::string::npos);
}

TEST(SoperatorNodes, AbsentValuesFallBackToTresOrVanish) {
  Node n;
  n.name = "bare";
  n.state = {NodeBase::kFuture, 0};
  n.tres = "cpu=8,mem=64000M";
  const std::string out = RenderNodes({n});
  EXPECT_EQ(Samples(out, "slurm_node_cpus_total"),
            V{"slurm_node_cpus_total{node_name=\"bare\"} 8"});
  EXPECT_EQ(Samples(out, "slurm_node_memory_total_bytes"),
            V{"slurm_node_memory_total_bytes{node_name=\"bare\"} 6.7108864e+10"});
  EXPECT_EQ(Samples(out, "slurm_node_memory_effective_bytes"),
            V{"slurm_node_memory_effective_bytes{node_name=\"bare\"} "
              "6.7108864e+10"});
  for (const char* absent :
       {"slurm_node_cpus_allocated", "slurm_node_cpus_idle",
        "slurm_node_cpus_effective", "slurm_node_memory_allocated_bytes",
        "slurm_node_memory_free_bytes", "slurm_node_partition"}) {
    EXPECT_EQ(out.find(absent), std::string::npos) << absent;
  }
  // FUTURE is not unavailable; empty flags print "".
  EXPECT_NE(out.find("is_unavailable=\"\",node_name=\"bare\""),
            std::string::npos);

  n.tres = "cpu=bad";  // unparsable TRES: no fallback at all
  const std::string out2 = RenderNodes({n});
  EXPECT_EQ(out2.find("slurm_node_cpus_total"), std::string::npos);
  EXPECT_EQ(out2.find("slurm_node_memory_total_bytes"), std::string::npos);
}

TEST(SoperatorNodes, ZeroIsNotAbsent) {
  Node n;
  n.name = "z";
  n.cpus = 0;
  n.real_memory_mb = 100;
  n.specialized_memory_mb = 200;  // more than real: clamps at 0
  n.tres = "cpu=8";
  const std::string out = RenderNodes({n});
  EXPECT_EQ(Samples(out, "slurm_node_cpus_total"),
            CaseFamily("nodes_zero", "slurm_node_cpus_total"));
  EXPECT_EQ(Samples(out, "slurm_node_memory_effective_bytes"),
            CaseFamily("nodes_zero", "slurm_node_memory_effective_bytes"));
}

TEST(SoperatorNodes, ReservationTrimmedTo50CodePoints) {
  Node n;
  n.name = "r";
  std::string long_name;
  for (int i = 0; i < 55; ++i) long_name += "\xC3\xA9";
  n.reservation = long_name;
  const std::string out = RenderNodes({n});
  std::string expected = "reservation_name=\"";
  for (int i = 0; i < 50; ++i) expected += "\xC3\xA9";
  expected += "\"";
  EXPECT_NE(out.find(expected), std::string::npos);
}

struct StateCase {
  NodeState state;
  const char* base;
  bool unavailable;
  bool draining;
  bool failed;
};

TEST(NodeState, Predicates) {
  const StateCase cases[] = {
      {{NodeBase::kIdle, 0}, "IDLE", false, false, false},
      {{NodeBase::kDown, 0}, "DOWN", true, false, true},
      {{NodeBase::kDown, kPoweringUp}, "DOWN", false, false, false},
      {{NodeBase::kIdle, kDrain}, "IDLE", true, false, true},
      {{NodeBase::kAllocated, kDrain}, "ALLOCATED", false, true, true},
      {{NodeBase::kMixed, kDrain}, "MIXED", false, true, true},
      {{NodeBase::kMixed, kDrain | kNotResponding}, "MIXED", true, true, true},
      {{NodeBase::kMixed, kNotResponding}, "MIXED", true, false, false},
      {{NodeBase::kUnknown, 0}, "UNKNOWN", true, false, false},
      {{NodeBase::kError, 0}, "ERROR", true, false, false},
      {{NodeBase::kIdle, kFail}, "IDLE", true, false, false},
      {{NodeBase::kIdle, kInvalid}, "IDLE", true, false, false},
      {{NodeBase::kFuture, 0}, "FUTURE", false, false, false},
      {{NodeBase::kIdle, kCloud}, "IDLE", false, false, false},
      {{NodeBase::kIdle, kDrain | kPowerDown}, "IDLE", false, false, false},
      {{NodeBase::kAllocated, kDrain | kPowerDown}, "ALLOCATED", false, true,
       false},
      {{NodeBase::kNone, 0}, "", false, false, false},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(NodeBaseName(c.state.base), c.base);
    EXPECT_EQ(IsUnavailable(c.state), c.unavailable) << c.base << c.state.flags;
    EXPECT_EQ(IsDraining(c.state), c.draining) << c.base << c.state.flags;
    EXPECT_EQ(IsFailed(c.state), c.failed) << c.base << c.state.flags;
  }
}

TEST(SoperatorNodes, EveryFlagLabel) {
  Node n;
  n.name = "f";
  n.state = {NodeBase::kMixed,
             kDrain | kMaintenance | kReserved | kCompleting | kFail |
                 kPlanned | kNotResponding | kInvalid | kCloud | kPowerDown |
                 kPowerDrain | kPoweredDown | kPoweringDown | kPoweringUp |
                 kPowerUp};
  const std::string out = RenderNodes({n});
  EXPECT_EQ(
      Samples(out, "slurm_node_info"),
      V{"slurm_node_info{address=\"\",comment=\"\",instance_id=\"\","
        "is_unavailable=\"\",node_name=\"f\",reason=\"\","
        "reservation_name=\"\",state_base=\"MIXED\",state_is_cloud=\"true\","
        "state_is_completing=\"true\",state_is_drain=\"true\","
        "state_is_fail=\"true\",state_is_invalid=\"true\","
        "state_is_maintenance=\"true\",state_is_not_responding=\"true\","
        "state_is_planned=\"true\",state_is_power_down=\"true\","
        "state_is_power_drain=\"true\",state_is_power_up=\"true\","
        "state_is_powered_down=\"true\",state_is_powering_down=\"true\","
        "state_is_powering_up=\"true\",state_is_reserved=\"true\"} 1"});
}

TEST(SoperatorNodes, DuplicateNodeNamesDoNotFailTheScrape) {
  Node a = FullNode(), b = FullNode();
  const std::string out = RenderNodes({a, b});
  EXPECT_EQ(Samples(out, "slurm_node_cpus_total").size(), 1u);
  EXPECT_EQ(Samples(out, "slurm_node_info").size(), 1u);
}

}  // namespace
}  // namespace sm
