// SPDX-License-Identifier: GPL-2.0-or-later
#include "families/accounting/qos.h"

#include "families/family_rows.h"

namespace sm {
namespace {

// No family here reveals usage: PrivateData=usage does not hide QoS
// (assoc_mgr_info_get_pack_msg() packs every QoS with its usage for
// `scontrol show assoc_mgr flags=qos`, and slurmdbd's QoS list is public).

using Row = FamilyRow<Qos>;

template <typename T>
void AddIfSet(Family& f, std::initializer_list<std::string_view> labels,
              const std::optional<T>& v) {
  if (v) f.Add(labels, static_cast<double>(*v));
}

const Row kRows[] = {
    {{"slurm_qos_priority", "Priority of the QoS", MetricType::kGauge, {"qos"}},
     [](Family& f, const Qos& q) { f.Add({q.name}, q.priority); }},
    {{"slurm_qos_jobs", "Running jobs under the QoS", MetricType::kGauge,
      {"qos"}},
     [](Family& f, const Qos& q) { f.Add({q.name}, q.jobs); }},
    {{"slurm_qos_jobs_submitted", "Pending and running jobs under the QoS",
      MetricType::kGauge, {"qos"}},
     [](Family& f, const Qos& q) { f.Add({q.name}, q.jobs_submitted); }},
    {{"slurm_qos_jobs_accruing", "Jobs under the QoS accruing age priority",
      MetricType::kGauge, {"qos"}},
     [](Family& f, const Qos& q) { f.Add({q.name}, q.jobs_accruing); }},
    {{"slurm_qos_usage_raw", "Decayed usage of the QoS (UsageRaw)",
      MetricType::kGauge, {"qos"}},
     [](Family& f, const Qos& q) { f.Add({q.name}, q.usage_raw); }},
    {{"slurm_qos_tres_used",
      "TRES allocated to running jobs of the QoS (mem in MiB)",
      MetricType::kGauge, {"qos", "tres"}},
     [](Family& f, const Qos& q) {
       for (const QosTres& t : q.tres)
         f.Add({q.name, t.name}, static_cast<double>(t.used));
     }},
    {{"slurm_qos_tres_run_seconds",
      "TRES-seconds that running jobs of the QoS have left to run",
      MetricType::kGauge, {"qos", "tres"}},
     [](Family& f, const Qos& q) {
       for (const QosTres& t : q.tres)
         f.Add({q.name, t.name}, static_cast<double>(t.run_seconds));
     }},
    {{"slurm_qos_grp_jobs_limit", "GrpJobs limit of the QoS, when set",
      MetricType::kGauge, {"qos"}},
     [](Family& f, const Qos& q) { AddIfSet(f, {q.name}, q.grp_jobs_limit); }},
    {{"slurm_qos_grp_submit_jobs_limit",
      "GrpSubmitJobs limit of the QoS, when set", MetricType::kGauge, {"qos"}},
     [](Family& f, const Qos& q) {
       AddIfSet(f, {q.name}, q.grp_submit_jobs_limit);
     }},
    {{"slurm_qos_max_jobs_per_user_limit",
      "MaxJobsPerUser limit of the QoS, when set", MetricType::kGauge, {"qos"}},
     [](Family& f, const Qos& q) {
       AddIfSet(f, {q.name}, q.max_jobs_per_user_limit);
     }},
    {{"slurm_qos_max_submit_jobs_per_user_limit",
      "MaxSubmitJobsPerUser limit of the QoS, when set", MetricType::kGauge,
      {"qos"}},
     [](Family& f, const Qos& q) {
       AddIfSet(f, {q.name}, q.max_submit_jobs_per_user_limit);
     }},
    {{"slurm_qos_max_wall_per_job_seconds",
      "MaxWall limit of the QoS, when set", MetricType::kGauge, {"qos"}},
     [](Family& f, const Qos& q) {
       AddIfSet(f, {q.name}, q.max_wall_per_job_seconds);
     }},
    {{"slurm_qos_grp_tres_limit", "GrpTRES limit of the QoS per TRES, when set",
      MetricType::kGauge, {"qos", "tres"}},
     [](Family& f, const Qos& q) {
       for (const QosTres& t : q.tres)
         AddIfSet(f, {q.name, t.name}, t.grp_limit);
     }},
    {{"slurm_qos_max_tres_per_user_limit",
      "MaxTRESPerUser limit of the QoS per TRES, when set", MetricType::kGauge,
      {"qos", "tres"}},
     [](Family& f, const Qos& q) {
       for (const QosTres& t : q.tres)
         AddIfSet(f, {q.name, t.name}, t.max_per_user_limit);
     }},
};

}  // namespace

std::span<const FamilyDef* const> QosFamilies() { return FamilyList<kRows>(); }

void AddQosFamilies(MetricSet& set, const QosSnapshot& snap) {
  AddRows<Qos>(set, kRows, snap.qos);
}

}  // namespace sm
