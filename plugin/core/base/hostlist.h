// SPDX-License-Identifier: GPL-2.0-or-later
// Soperator's GetNodeList (Soperator exporter spec, section 5): expands
// "gpu[001-002],worker005"
// to host names for slurm_node_job. Not Slurm's hostlist: it expands only
// the last bracket of a piece and keeps odd pieces literally, on purpose.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace sm {

// Upper bound on hosts one list may expand to; a larger range is an error
// rather than an allocation of gigabytes inside slurmctld.
inline constexpr size_t kMaxExpandedHosts = 1u << 20;

// Appends the hosts to `out`. Returns false (and leaves `out` as it was) on
// any error; Soperator then emits no slurm_node_job for that job.
bool ExpandHostList(std::string_view list, std::vector<std::string>& out);

}  // namespace sm
