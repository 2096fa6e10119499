// SPDX-License-Identifier: GPL-2.0-or-later
// Soperator's stateful node families across collections (spec section 7).
#include <gtest/gtest.h>

#include "families/soperator/node_history.h"
#include "test_util.h"

namespace sm {
namespace {

using testing::Render;
using testing::Samples;
using V = std::vector<std::string>;
using namespace node_flag;

Node N(std::string_view name, NodeBase base, uint32_t flags,
       std::string_view tres = "", std::string_view reason = "") {
  Node n;
  n.name = name;
  n.state = {base, flags};
  n.tres = tres;
  n.reason = reason;
  return n;
}

void Observe(NodeHistory& h, Rows<Node> nodes, double now) {
  NodeSnapshot s;
  s.nodes = std::move(nodes);
  h.Observe(s, now);
}

std::string RenderHistory(const NodeHistory& h) {
  MetricSet set;
  h.AddFamilies(set);
  return Render(set);
}

std::vector<std::string> HistogramLines(std::string_view family,
                                        std::string_view node, int le_index,
                                        double sum) {
  static const char* const kLe[] = {
      "30",    "60",    "300",    "600",    "1800",   "3600",
      "7200",  "14400", "28800",  "43200",  "86400",  "172800",
      "259200", "604800", "1.2096e+06", "2.592e+06"};
  V out;
  const std::string prefix = std::string(family) + "_bucket{node_name=\"" +
                             std::string(node) + "\",le=\"";
  for (int i = 0; i < 16; ++i)
    out.push_back(prefix + kLe[i] + "\"} " + (i >= le_index ? "1" : "0"));
  out.push_back(prefix + "+Inf\"} 1");
  std::string s = std::to_string(static_cast<int64_t>(sum));
  out.push_back(std::string(family) + "_sum{node_name=\"" + std::string(node) +
                "\"} " + s);
  out.push_back(std::string(family) + "_count{node_name=\"" +
                std::string(node) + "\"} 1");
  return out;
}

TEST(NodeHistory, TwoCollections) {
  NodeHistory h(100);
  Observe(h,
          {N("a", NodeBase::kIdle, 0, "cpu=4,gres/gpu=2"),
           N("b", NodeBase::kDown, 0, "cpu=4", "x"),
           N("c", NodeBase::kMixed, kDrain, "gres/gpu=1")},
          110);
  std::string out = RenderHistory(h);
  EXPECT_TRUE(Samples(out, "slurm_node_fails_total").empty());
  EXPECT_TRUE(Samples(out, "slurm_node_unavailability_duration_seconds").empty());
  EXPECT_TRUE(Samples(out, "slurm_node_draining_duration_seconds").empty());

  Observe(h,
          {N("a", NodeBase::kDown, 0, "cpu=4,gres/gpu=2", "dead"),
           N("b", NodeBase::kIdle, 0, "cpu=4"),
           N("c", NodeBase::kMixed, 0, "gres/gpu=1")},
          150);
  out = RenderHistory(h);
  const std::string tail =
      "state_is_maintenance=\"false\",state_is_reserved=\"false\"}";
  EXPECT_EQ(
      Samples(out, "slurm_node_gpu_seconds_total"),
      (V{"slurm_node_gpu_seconds_total{node_name=\"a\",state_base=\"DOWN\","
         "state_is_drain=\"false\"," + tail + " 80",
         "slurm_node_gpu_seconds_total{node_name=\"a\",state_base=\"IDLE\","
         "state_is_drain=\"false\"," + tail + " 20",
         "slurm_node_gpu_seconds_total{node_name=\"b\",state_base=\"DOWN\","
         "state_is_drain=\"false\"," + tail + " 0",
         "slurm_node_gpu_seconds_total{node_name=\"b\",state_base=\"IDLE\","
         "state_is_drain=\"false\"," + tail + " 0",
         "slurm_node_gpu_seconds_total{node_name=\"c\",state_base=\"MIXED\","
         "state_is_drain=\"false\"," + tail + " 40",
         "slurm_node_gpu_seconds_total{node_name=\"c\",state_base=\"MIXED\","
         "state_is_drain=\"true\"," + tail + " 10"}));
  EXPECT_EQ(Samples(out, "slurm_node_fails_total"),
            V{"slurm_node_fails_total{node_name=\"a\",reason=\"dead\","
              "state_base=\"DOWN\",state_is_drain=\"false\"," + tail + " 1"});
  EXPECT_EQ(Samples(out, "slurm_node_unavailability_duration_seconds"),
            HistogramLines("slurm_node_unavailability_duration_seconds", "b", 1,
                           40));
  EXPECT_EQ(Samples(out, "slurm_node_draining_duration_seconds"),
            HistogramLines("slurm_node_draining_duration_seconds", "c", 1, 40));
  EXPECT_NE(out.find("# TYPE slurm_node_unavailability_duration_seconds "
                     "histogram\n"),
            std::string::npos);
}

TEST(NodeHistory, FailureEdges) {
  NodeHistory h(0);
  Observe(h,
          {N("stays", NodeBase::kDown, 0), N("drain2down", NodeBase::kIdle, kDrain),
           N("power", NodeBase::kDown, kPoweringUp),
           N("allocdrain", NodeBase::kAllocated, 0),
           N("notresp", NodeBase::kIdle, 0)},
          1);
  Observe(h,
          {N("stays", NodeBase::kDown, 0), N("drain2down", NodeBase::kDown, kDrain),
           N("power", NodeBase::kDown, 0),
           N("allocdrain", NodeBase::kAllocated, kDrain),
           N("notresp", NodeBase::kIdle, kNotResponding | kFail),
           N("newdown", NodeBase::kDown, 0)},
          2);
  const std::string out = RenderHistory(h);
  const auto fails = Samples(out, "slurm_node_fails_total");
  ASSERT_EQ(fails.size(), 2u);
  EXPECT_NE(fails[0].find("node_name=\"allocdrain\""), std::string::npos);
  EXPECT_NE(fails[0].find("state_is_drain=\"true\""), std::string::npos);
  EXPECT_NE(fails[1].find("node_name=\"power\""), std::string::npos);
}

TEST(NodeHistory, VanishedNodesKeepSeriesAndRestartEvents) {
  NodeHistory h(0);
  Observe(h, {N("x", NodeBase::kDown, 0)}, 10);   // start 10
  Observe(h, {}, 20);                              // gone, start kept
  Observe(h, {N("x", NodeBase::kIdle, 0)}, 30);   // back available: nothing
  std::string out = RenderHistory(h);
  EXPECT_TRUE(Samples(out, "slurm_node_unavailability_duration_seconds").empty());
  Observe(h, {N("x", NodeBase::kDown, 0)}, 40);    // new event from 40
  Observe(h, {N("x", NodeBase::kIdle, 0)}, 4000);  // 3960 s: le=7200
  out = RenderHistory(h);
  EXPECT_EQ(Samples(out, "slurm_node_unavailability_duration_seconds"),
            HistogramLines("slurm_node_unavailability_duration_seconds", "x", 6,
                           3960));
  // GPU series of a node with a TRES but no GPU stay at 0 forever.
  EXPECT_EQ(Samples(out, "slurm_node_gpu_seconds_total").size(), 2u);
}

TEST(NodeHistory, ConfiguredGpusWhenTresHasNoGpuKey) {
  NodeHistory h(0);
  Node with_key = N("tres", NodeBase::kIdle, 0, "cpu=2,gres/gpu=0");
  with_key.gpus_total = 4;  // TRES says 0 explicitly: TRES wins
  Node without_key = N("gres", NodeBase::kIdle, 0, "cpu=2,mem=2000M");
  without_key.gpus_total = 2;  // no gres/gpu in TRES (no slurmdbd)
  Observe(h, {with_key, without_key}, 10);
  const auto s = Samples(RenderHistory(h), "slurm_node_gpu_seconds_total");
  ASSERT_EQ(s.size(), 2u);
  EXPECT_TRUE(s[0].ends_with(" 20")) << s[0];  // gres: 2 GPUs x 10 s
  EXPECT_TRUE(s[1].ends_with(" 0")) << s[1];   // tres
}

TEST(NodeHistory, UnparsableTresSkipsGpuSeconds) {
  NodeHistory h(0);
  Observe(h, {N("bad", NodeBase::kIdle, 0, "gres/gpu=x")}, 5);
  EXPECT_TRUE(Samples(RenderHistory(h), "slurm_node_gpu_seconds_total").empty());
}

TEST(NodeHistory, FirstIntervalStartsAtConstruction) {
  NodeHistory h(1000);
  Observe(h, {N("g", NodeBase::kAllocated, 0, "gres/gpu=8")}, 1000.5);
  EXPECT_EQ(Samples(RenderHistory(h), "slurm_node_gpu_seconds_total"),
            V{"slurm_node_gpu_seconds_total{node_name=\"g\","
              "state_base=\"ALLOCATED\",state_is_drain=\"false\","
              "state_is_maintenance=\"false\",state_is_reserved=\"false\"} 4"});
}

// 15 drain/resume cycles with different reasons left 16 permanent series,
// one with a 100 KB reason: now at most kMaxFailSeriesPerNode reasons per
// node plus "[other reasons]", each at most kMaxFailReasonBytes long.
TEST(NodeHistory, FailReasonsAreBounded) {
  NodeHistory h(0);
  double now = 0;
  Observe(h, {N("a", NodeBase::kIdle, 0)}, now += 10);
  const std::string huge(100000, 'r');
  for (int i = 0; i < 15; ++i) {
    const std::string reason = i == 0 ? huge : "reason " + std::to_string(i);
    Observe(h, {N("a", NodeBase::kIdle, kDrain, "", reason)}, now += 10);
    Observe(h, {N("a", NodeBase::kIdle, 0)}, now += 10);
  }
  const V fails = Samples(RenderHistory(h), "slurm_node_fails_total");
  ASSERT_EQ(fails.size(), 11u);
  const std::string head =
      "slurm_node_fails_total{node_name=\"a\",reason=\"";
  const std::string tail =
      "\",state_base=\"IDLE\",state_is_drain=\"true\","
      "state_is_maintenance=\"false\",state_is_reserved=\"false\"} ";
  // Sorted by reason: "[other reasons]" (5 failures), "reason 1".."9", "rrr...".
  EXPECT_EQ(fails[0], head + "[other reasons]" + tail + "5");
  EXPECT_EQ(fails[1], head + "reason 1" + tail + "1");
  EXPECT_EQ(fails[9], head + "reason 9" + tail + "1");
  EXPECT_EQ(fails[10], head + std::string(242, 'r') + "...[truncated]" + tail + "1");
}

}  // namespace
}  // namespace sm
