// SPDX-License-Identifier: GPL-2.0-or-later
// Node power and energy (docs/metrics.md "Node power and energy"): one
// series per listed node with a reading, none for a node without one, the
// consumed energy a counter, the reading's time in seconds.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "families/ours/node_power.h"
#include "test_util.h"

namespace sm {
namespace {

using testing::Render;

// What the adapter copies from node_ptr->energy once slurmd reported.
Node WithReading(std::string_view name, int64_t watts, int64_t average,
                 std::optional<int64_t> joules, int64_t poll_time) {
  Node n;
  n.name = name;
  n.power_watts = watts;
  n.power_average_watts = average;
  n.energy_joules = joules;
  n.energy_poll_time = poll_time;
  return n;
}

std::string RenderNodes(const NodeSnapshot& snap,
                        const std::vector<std::string>* disabled = nullptr) {
  MetricSet set(disabled);
  AddNodePowerFamilies(set, snap);
  return Render(set);
}

TEST(NodePower, EveryFamilyPerNodeWithAReading) {
  NodeSnapshot snap;
  snap.nodes.push_back(WithReading("gpu-1", 1520, 1498, 7352000123, 1767225600));
  // No AcctGatherEnergyType, or not polled yet: no series at all.
  Node none;
  none.name = "cpu-1";
  snap.nodes.push_back(none);
  // A reading without consumed energy (NO_VAL64).
  snap.nodes.push_back(WithReading("gpu-2", 0, 12, std::nullopt, 1767225601));
  EXPECT_EQ(RenderNodes(snap),
            "# HELP slurm_node_energy_joules_total Energy the node consumed since "
            "slurmd started, at its last energy reading (resets when slurmd restarts)\n"
            "# TYPE slurm_node_energy_joules_total counter\n"
            "slurm_node_energy_joules_total{node_name=\"gpu-1\"} 7.352000123e+09\n"
            "# HELP slurm_node_energy_reading_timestamp_seconds Unix time of the "
            "node's last energy reading\n"
            "# TYPE slurm_node_energy_reading_timestamp_seconds gauge\n"
            "slurm_node_energy_reading_timestamp_seconds{node_name=\"gpu-1\"} 1.7672256e+09\n"
            "slurm_node_energy_reading_timestamp_seconds{node_name=\"gpu-2\"} "
            "1.767225601e+09\n"
            "# HELP slurm_node_power_average_watts Average of the node's power "
            "readings since slurmd started (scontrol's AveWatts)\n"
            "# TYPE slurm_node_power_average_watts gauge\n"
            "slurm_node_power_average_watts{node_name=\"gpu-1\"} 1498\n"
            "slurm_node_power_average_watts{node_name=\"gpu-2\"} 12\n"
            "# HELP slurm_node_power_watts Power the node drew at its last energy "
            "reading (scontrol's CurrentWatts)\n"
            "# TYPE slurm_node_power_watts gauge\n"
            "slurm_node_power_watts{node_name=\"gpu-1\"} 1520\n"
            "slurm_node_power_watts{node_name=\"gpu-2\"} 0\n");
}

// A cluster without an energy plugin: not even HELP and TYPE lines, so the
// bodies of such clusters are what they were before these families.
TEST(NodePower, AbsentWithoutReadings) {
  NodeSnapshot snap;
  Node a, b;
  a.name = "vm";
  b.name = "ghost1";
  snap.nodes = {a, b};
  EXPECT_EQ(RenderNodes(snap), "");
}

// The counter's OpenMetrics form: the family named without _total.
TEST(NodePower, CounterInOpenMetrics) {
  NodeSnapshot snap;
  snap.nodes.push_back(WithReading("n1", 300, 280, 42, 1767225600));
  MetricSet set;
  AddNodePowerFamilies(set, snap);
  const std::string out = Render(set, Format::kOpenMetrics);
  EXPECT_NE(out.find("# TYPE slurm_node_energy_joules counter\n"
                     "slurm_node_energy_joules_total{node_name=\"n1\"} 42.0\n"),
            std::string::npos)
      << out;
}

TEST(NodePower, DisabledFamilyHasNoSeries) {
  NodeSnapshot snap;
  snap.nodes.push_back(WithReading("n1", 300, 280, 42, 1767225600));
  const std::vector<std::string> disabled = {"slurm_node_energy_joules_total",
                                             "slurm_node_power_average_watts",
                                             "slurm_node_energy_reading_timestamp_seconds"};
  EXPECT_EQ(RenderNodes(snap, &disabled),
            "# HELP slurm_node_power_watts Power the node drew at its last energy "
            "reading (scontrol's CurrentWatts)\n"
            "# TYPE slurm_node_power_watts gauge\n"
            "slurm_node_power_watts{node_name=\"n1\"} 300\n");
}

// A render may reuse node families while NodeSnapshot::Content() is
// unchanged: a new reading must change it.
TEST(NodePower, ReadingChangesNodeContent) {
  NodeSnapshot a, b, c;
  a.nodes.push_back(WithReading("n1", 300, 280, 42, 1767225600));
  b.nodes.push_back(WithReading("n1", 300, 280, 42, 1767225600));
  c.nodes.push_back(WithReading("n1", 300, 280, 43, 1767225600));
  EXPECT_EQ(a.Content(), b.Content());
  EXPECT_NE(a.Content(), c.Content());
}

}  // namespace
}  // namespace sm
