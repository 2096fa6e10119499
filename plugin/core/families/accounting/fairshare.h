// SPDX-License-Identifier: GPL-2.0-or-later
// Fairshare per account and per user, as `sshare -a -l -P` prints it, under
// SckyzO/slurm_exporter's family names (slurm_account_fairshare*,
// slurm_user_fairshare*) plus effective usage and LevelFS.
#pragma once

#include "model/accounting_snapshot.h"
#include "exposition/exposition.h"

namespace sm {

struct FairshareOptions {
  bool user_metrics = true;  // FairshareUserMetrics: the slurm_user_* families
};

// Every family AddFairshareFamilies() can build, and the per-user ones
// among them (FairshareUserMetrics).
std::span<const FamilyDef* const> FairshareFamilies();
std::span<const FamilyDef* const> FairshareUserFamilies();

void AddFairshareFamilies(MetricSet& set, const ShareSnapshot& shares,
                          const FairshareOptions& options);

}  // namespace sm
