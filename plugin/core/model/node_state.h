// SPDX-License-Identifier: GPL-2.0-or-later
// Soperator's reading of a node state (Soperator exporter spec, section 3.2):
// base names and the
// derived predicates several families share.
#pragma once

#include <string_view>

#include "model/snapshot.h"

namespace sm {

// "IDLE", "MIXED", ...; "" for NodeBase::kNone.
std::string_view NodeBaseName(NodeBase base);

// Any POWER_* flag. CLOUD alone does not count.
bool IsPowerManaged(const NodeState& s);
// DOWN, NOT_RESPONDING, IDLE+DRAIN, UNKNOWN, ERROR, FAIL or INVALID, unless
// power-managed. Drives is_unavailable and the unavailability histogram.
bool IsUnavailable(const NodeState& s);
// DRAIN on an ALLOCATED or MIXED node (power management does not matter).
bool IsDraining(const NodeState& s);
// (DOWN or DRAIN) and not power-managed; only slurm_node_fails_total uses it.
bool IsFailed(const NodeState& s);

// The legacy flags print "true"/"false"; the newer ones "true"/"" (to stay
// under VictoriaMetrics' label limits, as Soperator does).
inline std::string_view TrueFalse(bool b) { return b ? "true" : "false"; }
inline std::string_view TrueEmpty(bool b) { return b ? "true" : ""; }

}  // namespace sm
