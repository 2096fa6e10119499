// SPDX-License-Identifier: GPL-2.0-or-later
// Slurm's own /metrics/jobs families (metrics/openmetrics, 26.05.3): 30
// unlabelled totals over every job record slurmctld holds.
#pragma once

#include "serving/endpoints.h"
#include "exposition/exposition.h"
#include "model/snapshot.h"

namespace sm {

// The families AddNativeJobFamilies adds.
std::span<const FamilyDef* const> NativeJobFamilies();

void AddNativeJobFamilies(MetricSet& set, const JobSnapshot& jobs,
                          const RenderOptions& opts);

}  // namespace sm
