// SPDX-License-Identifier: GPL-2.0-or-later
// Soperator's controller families (Soperator exporter spec, section 6.4):
// server threads and the sdiag
// RPC statistics by message type and by user.
#pragma once

#include <span>

#include "exposition/exposition.h"
#include "model/snapshot.h"

namespace sm {

std::span<const FamilyDef* const> SoperatorControllerFamilies();

void AddSoperatorControllerFamilies(MetricSet& set, const DiagSnapshot& diag);

}  // namespace sm
