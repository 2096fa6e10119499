// SPDX-License-Identifier: GPL-2.0-or-later
// Slurm's /metrics/nodes families: the real 26.05.3 response reproduced
// from the sample cluster, and our corrected defaults.
#include "families/native/native_nodes.h"

#include <gtest/gtest.h>

#include "native_sample.h"
#include "families/soperator/node_history.h"
#include "test_util.h"

namespace sm {
namespace {

using testing::Exception;
using testing::ParseExposition;
using testing::Render;
using testing::Samples;
using V = std::vector<std::string>;
using namespace node_flag;

constexpr double kMiB = 1048576;

std::string RenderNodes(const NodeSnapshot& snap, bool native_values) {
  MetricSet set;
  AddNativeNodeFamilies(set, snap, {0, native_values});
  return Render(set);
}

// The JSON lists NOT_RESPONDING on both ghosts; it was taken 12 s after the
// scrape, before which the ghosts (never registered) had not been pinged.
const std::vector<Exception> kNodesExceptions = {{"slurm_nodes_noresp", 0, 2}};

TEST(NativeNodes, ReproducesSlurmResponse) {
  const std::string out = RenderNodes(testing::SampleNodes(), true);
  const auto ours = ParseExposition(out, false);
  const auto sample = testing::Sample("nodes");
  EXPECT_EQ(sample.series.size(), 58u);  // 10 × 3 nodes + 28 totals
  testing::ExpectSameSeries(sample, ours, kNodesExceptions);
  testing::ExpectSameComments(sample, ours);
}

TEST(NativeNodes, EndpointAddsSoperatorFamilies) {
  auto nodes = std::make_shared<const NodeSnapshot>(testing::SampleNodes());
  NodeHistory history(0);
  MetricSet set;
  AddEndpointFamilies(set, Endpoint::kNodes, {nodes, nullptr, nullptr}, history,
                      {0, true});
  const std::string out = Render(set);
  const auto ours = ParseExposition(out, false);
  const auto sample = testing::Sample("nodes");
  for (const auto& [key, value] : sample.series) {
    ASSERT_TRUE(ours.series.count(key)) << key;
    if (key != "slurm_nodes_noresp") {
      EXPECT_EQ(ours.series.at(key), value) << key;
    }
  }
  EXPECT_TRUE(
      ours.series.count("slurm_node_info{address=\"\",comment=\"\","
                        "instance_id=\"\",is_unavailable=\"\","
                        "node_name=\"vm\",reason=\"\","
                        "reservation_name=\"\",state_base=\"ALLOCATED\","
                        "state_is_cloud=\"\",state_is_completing=\"\","
                        "state_is_drain=\"false\",state_is_fail=\"\","
                        "state_is_invalid=\"\","
                        "state_is_maintenance=\"false\","
                        "state_is_not_responding=\"\","
                        "state_is_planned=\"\",state_is_power_down=\"\","
                        "state_is_power_drain=\"\","
                        "state_is_power_up=\"\","
                        "state_is_powered_down=\"\","
                        "state_is_powering_down=\"\","
                        "state_is_powering_up=\"\","
                        "state_is_reserved=\"false\"}"));
  // Where both define a name, /metrics/nodes serves Slurm's family only.
  EXPECT_NE(out.find("# HELP slurm_node_cpus_effective CPUs allocatable"),
            std::string::npos);
  EXPECT_EQ(out.find("# HELP slurm_node_cpus_effective Effective CPUs on the "
                     "node"),
            std::string::npos);
  EXPECT_EQ(
      Samples(out, "slurm_node_memory_free_bytes"),
      (V{"slurm_node_memory_free_bytes{node=\"ghost1\"} 0",
         "slurm_node_memory_free_bytes{node=\"ghost2\"} 0",
         "slurm_node_memory_free_bytes{node=\"vm\"} 23583"}));
  // Soperator's other node families are there.
  EXPECT_EQ(Samples(out, "slurm_node_cpus_total"),
            (V{"slurm_node_cpus_total{node_name=\"ghost1\"} 2",
               "slurm_node_cpus_total{node_name=\"ghost2\"} 2",
               "slurm_node_cpus_total{node_name=\"vm\"} 2"}));
}

TEST(NativeNodes, EverythingServesSoperatorsSharedNames) {
  auto nodes = std::make_shared<const NodeSnapshot>(testing::SampleNodes());
  NodeHistory history(0);
  MetricSet set;
  AddEndpointFamilies(set, Endpoint::kEverything, {nodes, nullptr, nullptr},
                      history, {0, false});
  const std::string out = Render(set);
  EXPECT_EQ(SharedNodeFamilyNames().size(), 4u);
  for (std::string_view name : SharedNodeFamilyNames()) {
    for (const std::string& line : Samples(out, std::string(name)))
      EXPECT_NE(line.find("{node_name=\""), std::string::npos) << line;
  }
  EXPECT_EQ(Samples(out, "slurm_node_cpus_idle"),
            (V{"slurm_node_cpus_idle{node_name=\"ghost1\"} 2",
               "slurm_node_cpus_idle{node_name=\"ghost2\"} 2",
               "slurm_node_cpus_idle{node_name=\"vm\"} 0"}));
  // The other native node families are served.
  EXPECT_EQ(Samples(out, "slurm_node_cpus_alloc").size(), 3u);
}

TEST(NativeNodes, DefaultsInBytes) {
  const std::string out = RenderNodes(testing::SampleNodes(), false);
  const auto ours = ParseExposition(out, false);
  EXPECT_EQ(ours.series.at("slurm_node_memory_bytes{node=\"vm\"}"),
            2000 * kMiB);
  EXPECT_EQ(ours.series.at("slurm_node_memory_effective_bytes{node=\"vm\"}"),
            2000 * kMiB);
  EXPECT_EQ(ours.series.at("slurm_node_memory_free_bytes{node=\"vm\"}"),
            23583 * kMiB);
  EXPECT_EQ(ours.series.at("slurm_node_memory_free_bytes{node=\"ghost1\"}"), 0);
  EXPECT_EQ(ours.series.at("slurm_node_memory_alloc_bytes{node=\"vm\"}"), 0);
  // Everything else as Slurm has it, NOT_RESPONDING included.
  EXPECT_EQ(ours.series.size(), 58u);
  EXPECT_EQ(ours.series.at("slurm_nodes_noresp"), 2);
  EXPECT_EQ(ours.series.at("slurm_nodes_unknown"), 1);
  EXPECT_EQ(ours.series.at("slurm_node_cpus_idle{node=\"ghost2\"}"), 2);
  EXPECT_NE(out.find("# TYPE slurm_nodes gauge\n"), std::string::npos);
}

Node PlainNode(std::string_view name, NodeBase base, uint32_t flags,
               int64_t cpus, int64_t alloc) {
  Node n = testing::SampleNode(name, base, flags);
  n.cpus = cpus;
  n.effective_cpus = cpus;
  n.alloc_cpus = alloc;
  return n;
}

TEST(NativeNodes, PoweringUpCarriesTheRightCount) {
  NodeSnapshot snap;
  snap.nodes = {PlainNode("a", NodeBase::kIdle, kPoweringUp | kCloud, 4, 0),
                PlainNode("b", NodeBase::kIdle, kPoweringDown | kCloud, 4, 0),
                PlainNode("c", NodeBase::kIdle, kPoweringDown | kCloud, 4, 0)};
  const auto ours = ParseExposition(RenderNodes(snap, false), false);
  EXPECT_EQ(ours.series.at("slurm_nodes_powering_up"), 1);
  EXPECT_EQ(ours.series.at("slurm_nodes_cloud"), 3);
  // Slurm prints its POWERING_DOWN count here and has no powering_down.
  const auto native = ParseExposition(RenderNodes(snap, true), false);
  EXPECT_EQ(native.series.at("slurm_nodes_powering_up"), 2);
  EXPECT_FALSE(native.series.count("slurm_nodes_powering_down"));
  EXPECT_FALSE(ours.series.count("slurm_nodes_powering_down"));
}

TEST(NativeNodes, BaseStateClasses) {
  NodeSnapshot snap;
  // Stored IDLE with 1 of 4 CPUs allocated: the adapter classes it MIXED.
  // With DRAIN, the nodes path tests draining on the stored record:
  // drained, not draining.
  snap.nodes.push_back(PlainNode("mixed", NodeBase::kIdle, kDrain, 4, 1));
  snap.nodes.back().state.base = NodeBase::kMixed;  // client-side rewrite
  snap.nodes.back().statistics_base = NodeBase::kMixed;
  // DOWN with allocations stays DOWN (the client would say MIXED).
  snap.nodes.push_back(PlainNode("down", NodeBase::kDown, 0, 4, 2));
  snap.nodes.back().state.base = NodeBase::kMixed;
  // Fully allocated: ALLOCATED; with DRAIN it is draining.
  snap.nodes.push_back(PlainNode("busy", NodeBase::kAllocated, kDrain, 4, 4));
  // FUTURE nodes are listed by Slurm although clients hide them.
  snap.unlisted_nodes.push_back(PlainNode("later", NodeBase::kFuture, 0, 8, 0));
  // ERROR (unused by Slurm) counts in no class.
  snap.nodes.push_back(
      PlainNode("error", NodeBase::kError, kMaintenance, 4, 0));
  snap.nodes.back().statistics_base = NodeBase::kNone;
  const auto ours = ParseExposition(RenderNodes(snap, true), false);
  EXPECT_EQ(ours.series.at("slurm_nodes"), 5);
  EXPECT_EQ(ours.series.at("slurm_nodes_mixed"), 1);
  EXPECT_EQ(ours.series.at("slurm_nodes_down"), 1);
  EXPECT_EQ(ours.series.at("slurm_nodes_alloc"), 1);
  EXPECT_EQ(ours.series.at("slurm_nodes_future"), 1);
  EXPECT_EQ(ours.series.at("slurm_nodes_idle"), 0);
  EXPECT_EQ(ours.series.at("slurm_nodes_draining"), 1);
  EXPECT_EQ(ours.series.at("slurm_nodes_drain"), 1);
  EXPECT_EQ(ours.series.at("slurm_nodes_drained"), 1);
  EXPECT_EQ(ours.series.at("slurm_nodes_maint"), 1);
  EXPECT_EQ(ours.series.at("slurm_node_cpus{node=\"later\"}"), 8);
  EXPECT_EQ(ours.series.at("slurm_node_cpus_idle{node=\"mixed\"}"), 3);
}

TEST(NativeNodes, GpusAndWidths) {
  NodeSnapshot snap;
  Node n = PlainNode("gpu", NodeBase::kAllocated, 0, 64, 64);
  n.gpus_total = 8;  // GRES
  n.gpus_tres = 0;   // gres/gpu not in AccountingStorageTRES
  n.gpus_alloc = 4;
  n.real_memory_mb = 100;
  n.specialized_memory_mb = 200;  // more than RealMemory
  snap.nodes = {n};
  const auto ours = ParseExposition(RenderNodes(snap, false), false);
  EXPECT_EQ(ours.series.at("slurm_node_gpus{node=\"gpu\"}"), 8);
  EXPECT_EQ(ours.series.at("slurm_node_gpus_alloc{node=\"gpu\"}"), 4);
  EXPECT_EQ(ours.series.at("slurm_node_memory_effective_bytes{node=\"gpu\"}"),
            0);
  const auto native = ParseExposition(RenderNodes(snap, true), false);
  EXPECT_EQ(native.series.at("slurm_node_gpus{node=\"gpu\"}"), 0);
  EXPECT_EQ(native.series.at("slurm_node_gpus_alloc{node=\"gpu\"}"), 4);
  // uint64 100 - 200.
  EXPECT_EQ(native.series.at("slurm_node_memory_effective_bytes{node=\"gpu\"}"),
            18446744073709551516.0);
}

TEST(NativeNodes, EmptyNameKeepsTheLabelEmpty) {
  // Slurm prints `slurm_node_cpus 4`; Prometheus stores our line as the
  // same series, and the family keeps one set of label names.
  NodeSnapshot snap;
  snap.nodes = {PlainNode("a", NodeBase::kIdle, 0, 2, 0)};
  snap.unlisted_nodes = {PlainNode("", NodeBase::kIdle, 0, 4, 0)};
  const std::string out = RenderNodes(snap, true);
  EXPECT_EQ(Samples(out, "slurm_node_cpus"),
            (V{"slurm_node_cpus{node=\"\"} 4", "slurm_node_cpus{node=\"a\"} 2"}));
}

TEST(NativeNodes, NoNodesStillTotals) {
  const NodeSnapshot empty;
  const auto ours = ParseExposition(RenderNodes(empty, false), false);
  EXPECT_EQ(ours.series.size(), 28u);
  EXPECT_EQ(ours.series.at("slurm_nodes"), 0);
}

}  // namespace
}  // namespace sm
