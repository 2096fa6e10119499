// SPDX-License-Identifier: GPL-2.0-or-later
// Soperator's per-node gauges (Soperator exporter spec, section 6.1):
// slurm_node_info, cpus, memory,
// partition mapping.
#pragma once

#include <span>
#include <string_view>

#include "exposition/exposition.h"
#include "model/snapshot.h"

namespace sm {

// The families AddSoperatorNodeFamilies adds.
std::span<const FamilyDef* const> SoperatorNodeFamilies();

// Families named in `skip` are not built.
void AddSoperatorNodeFamilies(MetricSet& set, const NodeSnapshot& nodes,
                              std::span<const std::string_view> skip = {});

}  // namespace sm
