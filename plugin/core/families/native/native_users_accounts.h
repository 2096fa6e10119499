// SPDX-License-Identifier: GPL-2.0-or-later
// Slurm's own /metrics/jobs-users-accts families (metrics/openmetrics,
// 26.05.3): 30 slurm_user_* families by username and the same 30 as
// slurm_account_* by account.
#pragma once

#include "serving/endpoints.h"
#include "exposition/exposition.h"
#include "model/snapshot.h"

namespace sm {

// The families AddNativeUserAccountFamilies adds.
std::span<const FamilyDef* const> NativeUserAccountFamilies();

void AddNativeUserAccountFamilies(MetricSet& set, const JobSnapshot& jobs,
                                  const RenderOptions& opts);

}  // namespace sm
