// SPDX-License-Identifier: GPL-2.0-or-later
// Soperator's per-node gauges (spec 6.1): slurm_node_info, cpus, memory,
// partition mapping.
#pragma once

#include "exposition.h"
#include "snapshot.h"

namespace sm {

void AddSoperatorNodeFamilies(MetricSet& set, const NodeSnapshot& nodes);

}  // namespace sm
