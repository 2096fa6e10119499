// SPDX-License-Identifier: GPL-2.0-or-later
#include "families/ours/job_gpus.h"

#include "families/family_rows.h"

namespace sm {
namespace {

const FamilyDef kDefs[] = {
    {"slurm_job_gpus", "GPUs allocated to a Slurm job", MetricType::kGauge,
     {"job_id"}},
};

}  // namespace

std::span<const FamilyDef* const> JobGpuFamilies() {
  return FamilyList<kDefs>();
}

void AddJobGpuFamilies(MetricSet& set, const JobSnapshot& snap) {
  Family& gpus = *AddAll(set, kDefs)[0];
  Arena& arena = set.arena();
  // Jobs without GPUs (most of them, and every pending one) get no series,
  // so the family costs nothing on a cluster without GPUs.
  for (const Job& j : snap.jobs) {
    if (j.gpus_alloc <= 0) continue;
    const std::string_view id[] = {arena.StoreInt(j.id)};
    gpus.Add(id, static_cast<double>(j.gpus_alloc));
  }
}

}  // namespace sm
