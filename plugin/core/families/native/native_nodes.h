// SPDX-License-Identifier: GPL-2.0-or-later
// Slurm's own /metrics/nodes families (metrics/openmetrics, 26.05.3): ten
// per-node families and 28 cluster totals.
#pragma once

#include <span>
#include <string_view>

#include "serving/endpoints.h"
#include "exposition/exposition.h"
#include "model/snapshot.h"

namespace sm {

// The families AddNativeNodeFamilies adds.
std::span<const FamilyDef* const> NativeNodeFamilies();

// Families named in `skip` are not built.
void AddNativeNodeFamilies(MetricSet& set, const NodeSnapshot& nodes,
                           const RenderOptions& opts,
                           std::span<const std::string_view> skip = {});

}  // namespace sm
