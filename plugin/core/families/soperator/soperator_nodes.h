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

// Families named in `skip` are not built. `nodeset_label`
// (NodeInfoNodesetLabel): slurm_node_info with nodeset_name as its third
// label, as Soperator's open change to it does (docs/soperator.md).
void AddSoperatorNodeFamilies(MetricSet& set, const NodeSnapshot& nodes,
                              std::span<const std::string_view> skip = {},
                              bool nodeset_label = false);

}  // namespace sm
