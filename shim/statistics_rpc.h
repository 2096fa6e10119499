// SPDX-License-Identifier: GPL-2.0-or-later
// The statistics slurm_get_statistics() answers with (statistics_rpc.cc
// defines that call for the plugin).
#pragma once

#include <memory>

#include "model.h"

namespace shim {

// A copy of `in` with every RPC type named by this release's opcode, and
// every value checked to fit slurmctld's fields (InputError otherwise).
std::unique_ptr<DiagIn> PrepareStatistics(const DiagIn& in);

// From now on the RPC answers from `diag`; null makes it fail as when
// slurmctld is unreachable.
void PublishStatistics(std::unique_ptr<DiagIn> diag);

// Until called again with false: the RPC fails as when slurmctld is
// unreachable, whatever statistics are published.
void FailStatisticsRpc(bool fail);

}  // namespace shim
