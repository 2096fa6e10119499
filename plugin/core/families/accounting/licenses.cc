// SPDX-License-Identifier: GPL-2.0-or-later
#include "families/accounting/licenses.h"

#include "families/family_rows.h"

namespace sm {
namespace {

using Row = FamilyRow<License>;

template <typename T>
double D(T v) {
  return static_cast<double>(v);
}

// SckyzO's four first, names and HELP texts verbatim.
const Row kRows[] = {
    {{"slurm_license_total", "Total count for license", MetricType::kGauge,
      {"license"}},
     [](Family& f, const License& l) { f.Add({l.name}, D(l.total)); }},
    {{"slurm_license_used", "Used count for license", MetricType::kGauge,
      {"license"}},
     [](Family& f, const License& l) { f.Add({l.name}, D(l.used)); }},
    {{"slurm_license_free", "Free count for license", MetricType::kGauge,
      {"license"}},
     [](Family& f, const License& l) { f.Add({l.name}, D(l.free)); }},
    {{"slurm_license_reserved", "Reserved count for license",
      MetricType::kGauge, {"license"}},
     [](Family& f, const License& l) { f.Add({l.name}, D(l.reserved)); }},
    {{"slurm_license_info", "License and whether it is remote (from slurmdbd)",
      MetricType::kGauge, {"license", "remote"}},
     [](Family& f, const License& l) {
       f.Add({l.name, l.remote ? "yes" : "no"}, 1);
     }},
    {{"slurm_license_last_consumed",
      "In use according to the license server (remote licenses)",
      MetricType::kGauge, {"license"}},
     [](Family& f, const License& l) {
       if (l.last_consumed) f.Add({l.name}, D(*l.last_consumed));
     }},
    {{"slurm_license_last_deficit",
      "Licenses in use outside the cluster beyond its share (remote licenses)",
      MetricType::kGauge, {"license"}},
     [](Family& f, const License& l) {
       if (l.last_deficit) f.Add({l.name}, D(*l.last_deficit));
     }},
    {{"slurm_license_last_update_timestamp_seconds",
      "When the license server count was last updated (remote licenses)",
      MetricType::kGauge, {"license"}},
     [](Family& f, const License& l) {
       if (l.last_update) f.Add({l.name}, D(*l.last_update));
     }},
};

}  // namespace

std::span<const FamilyDef* const> LicenseFamilies() {
  return FamilyList<kRows>();
}

void AddLicenseFamilies(MetricSet& set, const LicenseSnapshot& snap) {
  AddRows<License>(set, kRows, snap.licenses);
}

}  // namespace sm
