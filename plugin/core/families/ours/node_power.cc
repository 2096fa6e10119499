// SPDX-License-Identifier: GPL-2.0-or-later
#include "families/ours/node_power.h"

#include <optional>

#include "families/family_rows.h"

namespace sm {
namespace {

using Row = FamilyRow<Node>;

// The row's Node member, when the node has a reading (absent: no series).
template <std::optional<int64_t> Node::*member>
void Print(Family& f, const Node& n) {
  if (const std::optional<int64_t>& v = n.*member) f.Add({n.name}, static_cast<double>(*v));
}

// Watts, joules and seconds: Prometheus' base units. Only the consumed
// energy is a counter: it only grows while slurmd runs and restarts from 0
// with it, which rate() and increase() take as a counter reset.
const Row kRows[] = {
    {{"slurm_node_power_watts",
      "Power the node drew at its last energy reading (scontrol's "
      "CurrentWatts)",
      MetricType::kGauge,
      {"node_name"}},
     &Print<&Node::power_watts>},
    {{"slurm_node_power_average_watts",
      "Average of the node's power readings since slurmd started "
      "(scontrol's AveWatts)",
      MetricType::kGauge,
      {"node_name"}},
     &Print<&Node::power_average_watts>},
    {{"slurm_node_energy_joules_total",
      "Energy the node consumed since slurmd started, at its last energy "
      "reading (resets when slurmd restarts)",
      MetricType::kCounter,
      {"node_name"}},
     &Print<&Node::energy_joules>},
    // A time, not an age (Prometheus' *_timestamp_seconds convention): it
    // moves only with a new reading, and time() minus it is the age an
    // alert compares with AcctGatherNodeFreq.
    {{"slurm_node_energy_reading_timestamp_seconds",
      "Unix time of the node's last energy reading",
      MetricType::kGauge,
      {"node_name"}},
     &Print<&Node::energy_poll_time>},
};

}  // namespace

std::span<const FamilyDef* const> NodePowerFamilies() { return FamilyList<kRows>(); }

void AddNodePowerFamilies(MetricSet& set, const NodeSnapshot& snap) {
  AddRows<Node>(set, kRows, snap.nodes);
}

}  // namespace sm
