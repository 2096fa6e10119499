// SPDX-License-Identifier: GPL-2.0-or-later
#include "families/accounting/qos.h"

namespace sm {
namespace {

// No family here reveals usage: PrivateData=usage does not hide QoS
// (assoc_mgr_info_get_pack_msg() packs every QoS with its usage for
// `scontrol show assoc_mgr flags=qos`, and slurmdbd's QoS list is public).

const FamilyDef kPriority{"slurm_qos_priority", "Priority of the QoS",
                          MetricType::kGauge, {"qos"}};
const FamilyDef kJobs{"slurm_qos_jobs", "Running jobs under the QoS",
                      MetricType::kGauge, {"qos"}};
const FamilyDef kJobsSubmitted{"slurm_qos_jobs_submitted",
                               "Pending and running jobs under the QoS",
                               MetricType::kGauge, {"qos"}};
const FamilyDef kJobsAccruing{"slurm_qos_jobs_accruing",
                              "Jobs under the QoS accruing age priority",
                              MetricType::kGauge, {"qos"}};
const FamilyDef kUsageRaw{"slurm_qos_usage_raw",
                          "Decayed usage of the QoS (UsageRaw)",
                          MetricType::kGauge, {"qos"}};
const FamilyDef kTresUsed{
    "slurm_qos_tres_used",
    "TRES allocated to running jobs of the QoS (mem in MiB)",
    MetricType::kGauge, {"qos", "tres"}};
const FamilyDef kTresRunSeconds{
    "slurm_qos_tres_run_seconds",
    "TRES-seconds that running jobs of the QoS have left to run",
    MetricType::kGauge, {"qos", "tres"}};
const FamilyDef kGrpJobs{"slurm_qos_grp_jobs_limit",
                         "GrpJobs limit of the QoS, when set",
                         MetricType::kGauge, {"qos"}};
const FamilyDef kGrpSubmitJobs{"slurm_qos_grp_submit_jobs_limit",
                               "GrpSubmitJobs limit of the QoS, when set",
                               MetricType::kGauge, {"qos"}};
const FamilyDef kMaxJobsPerUser{"slurm_qos_max_jobs_per_user_limit",
                                "MaxJobsPerUser limit of the QoS, when set",
                                MetricType::kGauge, {"qos"}};
const FamilyDef kMaxSubmitJobsPerUser{
    "slurm_qos_max_submit_jobs_per_user_limit",
    "MaxSubmitJobsPerUser limit of the QoS, when set", MetricType::kGauge,
    {"qos"}};
const FamilyDef kMaxWallPerJob{"slurm_qos_max_wall_per_job_seconds",
                               "MaxWall limit of the QoS, when set",
                               MetricType::kGauge, {"qos"}};
const FamilyDef kGrpTres{"slurm_qos_grp_tres_limit",
                         "GrpTRES limit of the QoS per TRES, when set",
                         MetricType::kGauge, {"qos", "tres"}};
const FamilyDef kMaxTresPerUser{
    "slurm_qos_max_tres_per_user_limit",
    "MaxTRESPerUser limit of the QoS per TRES, when set", MetricType::kGauge,
    {"qos", "tres"}};

const FamilyDef* const kAll[] = {
    &kPriority,  &kJobs,           &kJobsSubmitted, &kJobsAccruing,
    &kUsageRaw,  &kTresUsed,       &kTresRunSeconds, &kGrpJobs,
    &kGrpSubmitJobs, &kMaxJobsPerUser, &kMaxSubmitJobsPerUser,
    &kMaxWallPerJob, &kGrpTres,    &kMaxTresPerUser};

template <typename T>
void AddIfSet(Family& f, std::span<const std::string_view> labels,
              const std::optional<T>& v) {
  if (v) f.Add(labels, static_cast<double>(*v));
}

}  // namespace

std::span<const FamilyDef* const> QosFamilies() { return kAll; }

void AddQosFamilies(MetricSet& set, const QosSnapshot& snap) {
  Family& priority = set.Add(kPriority);
  Family& jobs = set.Add(kJobs);
  Family& submitted = set.Add(kJobsSubmitted);
  Family& accruing = set.Add(kJobsAccruing);
  Family& usage = set.Add(kUsageRaw);
  Family& tres_used = set.Add(kTresUsed);
  Family& tres_run = set.Add(kTresRunSeconds);
  Family& grp_jobs = set.Add(kGrpJobs);
  Family& grp_submit = set.Add(kGrpSubmitJobs);
  Family& max_jobs_pu = set.Add(kMaxJobsPerUser);
  Family& max_submit_pu = set.Add(kMaxSubmitJobsPerUser);
  Family& max_wall = set.Add(kMaxWallPerJob);
  Family& grp_tres = set.Add(kGrpTres);
  Family& max_tres_pu = set.Add(kMaxTresPerUser);
  for (const Qos& q : snap.qos) {
    const std::string_view l[] = {q.name};
    priority.Add(l, q.priority);
    jobs.Add(l, q.jobs);
    submitted.Add(l, q.jobs_submitted);
    accruing.Add(l, q.jobs_accruing);
    usage.Add(l, q.usage_raw);
    AddIfSet(grp_jobs, l, q.grp_jobs_limit);
    AddIfSet(grp_submit, l, q.grp_submit_jobs_limit);
    AddIfSet(max_jobs_pu, l, q.max_jobs_per_user_limit);
    AddIfSet(max_submit_pu, l, q.max_submit_jobs_per_user_limit);
    AddIfSet(max_wall, l, q.max_wall_per_job_seconds);
    for (const QosTres& t : q.tres) {
      const std::string_view lt[] = {q.name, t.name};
      tres_used.Add(lt, static_cast<double>(t.used));
      tres_run.Add(lt, static_cast<double>(t.run_seconds));
      AddIfSet(grp_tres, lt, t.grp_limit);
      AddIfSet(max_tres_pu, lt, t.max_per_user_limit);
    }
  }
}

}  // namespace sm
