// SPDX-License-Identifier: GPL-2.0-or-later
// Slurm's own /metrics/partitions families (metrics/openmetrics, 26.05.3):
// slurm_partitions and 72 per-partition families over nodes and jobs.
#pragma once

#include "serving/endpoints.h"
#include "exposition/exposition.h"
#include "model/snapshot.h"

namespace sm {

// `jobs` may be null (job collection failed): the job-derived families are
// then left out instead of reading zero.
// The families AddNativePartitionFamilies adds (the per-partition job
// families only with a jobs snapshot).
std::span<const FamilyDef* const> NativePartitionFamilies();

void AddNativePartitionFamilies(MetricSet& set, const NodeSnapshot& nodes,
                                const JobSnapshot* jobs,
                                const RenderOptions& opts);

}  // namespace sm
