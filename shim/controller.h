// SPDX-License-Identifier: GPL-2.0-or-later
// The controller side of the replay: the globals and functions slurmctld
// exports to its plugins (job_list, part_list, resv_list, lock_slurmctld,
// unlock_slurmctld, the statistics RPC), and the code that fills Slurm's own
// records from the JSON model, with Slurm's allocators, the way slurmctld
// holds them.
#pragma once

#include <cstdint>
#include <string>

#include "model.h"

namespace shim {

// Slurm version the shim is built for, e.g. "22.05.8", and its number.
const char* SlurmVersionString();
uint32_t SlurmVersionNumber();

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
