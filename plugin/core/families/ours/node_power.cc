// SPDX-License-Identifier: GPL-2.0-or-later
#include "families/ours/node_power.h"

#include <iterator>
#include <optional>

namespace sm {
namespace {

// A family and the Node member it prints (absent: no series).
struct Row {
  FamilyDef def;
  std::optional<int64_t> Node::*value;
};

// Watts, joules and seconds: Prometheus' base units. Only the consumed
// energy is a counter: it only grows while slurmd runs and restarts from 0
// with it, which rate() and increase() take as a counter reset.
const Row kRows[] = {
    {{"slurm_node_power_watts",
      "Power the node drew at its last energy reading (scontrol's "
      "CurrentWatts)",
      MetricType::kGauge,
      {"node_name"}},
     &Node::power_watts},
    {{"slurm_node_power_average_watts",
      "Average of the node's power readings since slurmd started "
      "(scontrol's AveWatts)",
      MetricType::kGauge,
      {"node_name"}},
     &Node::power_average_watts},
    {{"slurm_node_energy_joules_total",
      "Energy the node consumed since slurmd started, at its last energy "
      "reading (resets when slurmd restarts)",
      MetricType::kCounter,
      {"node_name"}},
     &Node::energy_joules},
    // A time, not an age (Prometheus' *_timestamp_seconds convention): it
    // moves only with a new reading, and time() minus it is the age an
    // alert compares with AcctGatherNodeFreq.
    {{"slurm_node_energy_reading_timestamp_seconds",
      "Unix time of the node's last energy reading",
      MetricType::kGauge,
      {"node_name"}},
     &Node::energy_poll_time},
};

const FamilyDef* const kAll[] = {&kRows[0].def, &kRows[1].def, &kRows[2].def,
                                 &kRows[3].def};
static_assert(std::size(kAll) == std::size(kRows));

}  // namespace

std::span<const FamilyDef* const> NodePowerFamilies() { return kAll; }

void AddNodePowerFamilies(MetricSet& set, const NodeSnapshot& snap) {
  for (const Row& row : kRows) {
    Family& f = set.Add(row.def);
    if (!f.enabled()) continue;
    for (const Node& n : snap.nodes) {
      const std::optional<int64_t>& v = n.*row.value;
      if (v) f.Add({n.name}, static_cast<double>(*v));
    }
  }
}

}  // namespace sm
