// SPDX-License-Identifier: GPL-2.0-or-later
// Slurm's own /metrics/nodes families (metrics/openmetrics, 26.05.3): ten
// per-node families and 28 cluster totals.
#pragma once

#include "endpoints.h"
#include "exposition.h"
#include "snapshot.h"

namespace sm {

void AddNativeNodeFamilies(MetricSet& set, const NodeSnapshot& nodes,
                           const RenderOptions& opts);

}  // namespace sm
