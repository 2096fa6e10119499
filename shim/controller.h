// SPDX-License-Identifier: GPL-2.0-or-later
// The controller side of the replay. What slurmctld exports to its plugins
// is defined in slurmctld_standins.cc (job_list, part_list, resv_list, the
// locks) and statistics_rpc.cc (the sdiag RPC); the records come from the
// JSON model through the build_*.cc builders. This is their orchestrator.
#pragma once

#include <cstdint>
#include <string>

#include "model.h"

namespace shim {

// Logging to stderr at `level` (0 quiet ... 3 debug) and the few
// slurm_conf fields the plugin and the libslurmfull functions it calls
// read. Call once, before anything else.
void SetupSlurm(const std::string& cluster_name, int verbosity);

// Replaces the controller state (node table, part_list, job_list,
// resv_list, statistics) under all slurmctld write locks. Values a
// controller cannot hold raise InputError; values the plugin will derive
// differently from the dump are reported with Warn().
void LoadClusterState(const ClusterIn& state);

// Frees everything LoadClusterState() allocated.
void ClearClusterState();

// Number of node records in the table (the plugin exports nothing while it
// is 0: that is how it tells a standby controller).
int NodeRecordCount();

}  // namespace shim
