// SPDX-License-Identifier: GPL-2.0-or-later
// GRES per node and type, configured and allocated, as sinfo's Gres and
// GresUsed columns show them: SckyzO's slurm_node_gres_{total,used}, one
// series per node, partition of the node and GRES type.
#pragma once

#include <span>

#include "exposition/exposition.h"
#include "model/snapshot.h"

namespace sm {

// Every family AddNodeGresFamilies() can build.
std::span<const FamilyDef* const> NodeGresFamilies();

// The listed nodes' GRES (Node::gres_configured, gres_used, state_long).
void AddNodeGresFamilies(MetricSet& set, const NodeSnapshot& nodes);

// A GRES string as sinfo prints it ("gpu:h100:4(S:0-1),gpu:a100:2",
// "gpu:8(IDX:0,3)") into counts per type, the way SckyzO parses it: tokens
// split on commas outside parentheses, each `name[:model]:count[(...)]`,
// model "(null)" ignored, repeated types summed in first-seen order; a token
// that does not parse is skipped. "", "(null)" and "N/A" give nothing.
// The views point into `spec`.
std::vector<GresCount> ParseGresCounts(std::string_view spec);

}  // namespace sm
