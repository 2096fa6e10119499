// SPDX-License-Identifier: GPL-2.0-or-later
// Licenses as `scontrol show licenses` prints them: SckyzO's four families
// (slurm_license_{total,used,free,reserved}) plus whether a license is
// remote and, 23.02+, what the license server last reported.
#pragma once

#include "model/accounting_snapshot.h"
#include "exposition/exposition.h"

namespace sm {

// Every family AddLicenseFamilies() can build.
std::span<const FamilyDef* const> LicenseFamilies();

void AddLicenseFamilies(MetricSet& set, const LicenseSnapshot& licenses);

}  // namespace sm
