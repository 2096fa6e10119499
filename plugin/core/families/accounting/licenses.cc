// SPDX-License-Identifier: GPL-2.0-or-later
#include "families/accounting/licenses.h"

namespace sm {
namespace {

// SckyzO's four, names and HELP texts verbatim.
const FamilyDef kTotal{"slurm_license_total", "Total count for license",
                       MetricType::kGauge, {"license"}};
const FamilyDef kUsed{"slurm_license_used", "Used count for license",
                      MetricType::kGauge, {"license"}};
const FamilyDef kFree{"slurm_license_free", "Free count for license",
                      MetricType::kGauge, {"license"}};
const FamilyDef kReserved{"slurm_license_reserved",
                          "Reserved count for license", MetricType::kGauge,
                          {"license"}};
const FamilyDef kInfo{"slurm_license_info",
                      "License and whether it is remote (from slurmdbd)",
                      MetricType::kGauge, {"license", "remote"}};
const FamilyDef kLastConsumed{
    "slurm_license_last_consumed",
    "In use according to the license server (remote licenses)",
    MetricType::kGauge, {"license"}};
const FamilyDef kLastDeficit{
    "slurm_license_last_deficit",
    "Licenses in use outside the cluster beyond its share (remote licenses)",
    MetricType::kGauge, {"license"}};
const FamilyDef kLastUpdate{
    "slurm_license_last_update_timestamp_seconds",
    "When the license server count was last updated (remote licenses)",
    MetricType::kGauge, {"license"}};

const FamilyDef* const kAll[] = {&kTotal, &kUsed, &kFree, &kReserved,
                                 &kInfo,  &kLastConsumed, &kLastDeficit,
                                 &kLastUpdate};

}  // namespace

std::span<const FamilyDef* const> LicenseFamilies() { return kAll; }

void AddLicenseFamilies(MetricSet& set, const LicenseSnapshot& snap) {
  Family& total = set.Add(kTotal);
  Family& used = set.Add(kUsed);
  Family& free = set.Add(kFree);
  Family& reserved = set.Add(kReserved);
  Family& info = set.Add(kInfo);
  Family& last_consumed = set.Add(kLastConsumed);
  Family& last_deficit = set.Add(kLastDeficit);
  Family& last_update = set.Add(kLastUpdate);
  for (const License& l : snap.licenses) {
    const std::string_view name[] = {l.name};
    total.Add(name, static_cast<double>(l.total));
    used.Add(name, static_cast<double>(l.used));
    free.Add(name, static_cast<double>(l.free));
    reserved.Add(name, static_cast<double>(l.reserved));
    info.Add({l.name, l.remote ? "yes" : "no"}, 1);
    if (l.last_consumed)
      last_consumed.Add(name, static_cast<double>(*l.last_consumed));
    if (l.last_deficit)
      last_deficit.Add(name, static_cast<double>(*l.last_deficit));
    if (l.last_update) last_update.Add(name, static_cast<double>(*l.last_update));
  }
}

}  // namespace sm
