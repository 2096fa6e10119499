// SPDX-License-Identifier: GPL-2.0-or-later
// Slurm's own /metrics/scheduler families (metrics/openmetrics, 26.05.3):
// 58 unlabelled values of slurmctld's diag statistics, the ones sdiag
// prints.
#pragma once

#include "serving/endpoints.h"
#include "exposition/exposition.h"
#include "model/snapshot.h"

namespace sm {

// The families AddNativeSchedulerFamilies adds.
std::span<const FamilyDef* const> NativeSchedulerFamilies();

void AddNativeSchedulerFamilies(MetricSet& set, const DiagSnapshot& diag,
                                const RenderOptions& opts);

}  // namespace sm
