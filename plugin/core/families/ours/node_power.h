// SPDX-License-Identifier: GPL-2.0-or-later
// Node power and energy from slurmctld's per-node energy readings
// (node_ptr->energy, filled when an AcctGatherEnergyType plugin is
// configured): slurm_node_power_watts, slurm_node_power_average_watts,
// slurm_node_energy_joules_total and
// slurm_node_energy_reading_timestamp_seconds (docs/metrics.md "Node power
// and energy"). Ours: no peer serves them.
#pragma once

#include <span>

#include "exposition/exposition.h"
#include "model/snapshot.h"

namespace sm {

std::span<const FamilyDef* const> NodePowerFamilies();

// One series per listed node and family whose value the node has; a node
// without a reading (Node::power_watts absent) gets none.
void AddNodePowerFamilies(MetricSet& set, const NodeSnapshot& nodes);

}  // namespace sm
