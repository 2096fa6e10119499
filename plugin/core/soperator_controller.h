// SPDX-License-Identifier: GPL-2.0-or-later
// Soperator's controller families (spec 6.4): server threads and the sdiag
// RPC statistics by message type and by user.
#pragma once

#include "exposition.h"
#include "snapshot.h"

namespace sm {

void AddSoperatorControllerFamilies(MetricSet& set, const DiagSnapshot& diag);

}  // namespace sm
