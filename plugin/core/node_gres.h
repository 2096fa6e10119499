// SPDX-License-Identifier: GPL-2.0-or-later
// GRES per node and type, configured and allocated, as sinfo's Gres and
// GresUsed columns show them: SckyzO's slurm_node_gres_{total,used}, one
// series per node, partition of the node and GRES type.
#pragma once

#include "accounting_snapshot.h"
#include "exposition.h"

namespace sm {

void AddNodeGresFamilies(MetricSet& set, const NodeGresSnapshot& gres);

}  // namespace sm
