// SPDX-License-Identifier: GPL-2.0-or-later
#include "families/native/native_users_accounts.h"

#include <unordered_map>

#include "families/native/native_common.h"

namespace sm {
namespace {

using native::JobTotals;
using native::Spec;
using native::Unit;
using native::Width;

struct Row {
  Spec user;
  Spec account;
  uint64_t JobTotals::*value;
};

// Each key's totals are taken like slurm_jobs_* over its records, except
// slurm_{user,account}_jobs, which counts records where slurm_jobs counts
// array tasks.
constexpr Spec U(std::string_view name, std::string_view help,
                 Width w = Width::k32, Unit u = Unit::kNone) {
  return {name, help, w, u};
}

const Row kRows[] = {
    {U("slurm_user_jobs_bootfail", "Number of jobs in BootFail state"),
     U("slurm_account_jobs_bootfail", "Number of jobs in BootFail state"),
     &JobTotals::bootfail},
    {U("slurm_user_jobs_cancelled", "Number of jobs in Cancelled state"),
     U("slurm_account_jobs_cancelled", "Number of jobs in Cancelled state"),
     &JobTotals::cancelled},
    {U("slurm_user_jobs_completed", "Number of jobs in Completed state"),
     U("slurm_account_jobs_completed", "Number of jobs in Completed state"),
     &JobTotals::completed},
    {U("slurm_user_jobs_completing", "Number of jobs in Completing state"),
     U("slurm_account_jobs_completing", "Number of jobs in Completing state"),
     &JobTotals::completing},
    {U("slurm_user_jobs_configuring", "Number of jobs in Configuring state"),
     U("slurm_account_jobs_configuring", "Number of jobs in Configuring state"),
     &JobTotals::configuring},
    {U("slurm_user_jobs_cpus_alloc", "Total number of Cpus allocated by jobs",
       Width::k16),
     U("slurm_account_jobs_cpus_alloc",
       "Total number of Cpus allocated by jobs", Width::k16),
     &JobTotals::cpus_alloc},
    {U("slurm_user_jobs_deadline", "Number of jobs in Deadline state"),
     U("slurm_account_jobs_deadline", "Number of jobs in Deadline state"),
     &JobTotals::deadline},
    {U("slurm_user_jobs_expediting", "Number of jobs in Expediting state"),
     U("slurm_account_jobs_expediting", "Number of jobs in Expediting state"),
     &JobTotals::expediting},
    {U("slurm_user_jobs_failed", "Number of jobs in Failed state"),
     U("slurm_account_jobs_failed", "Number of jobs in Failed state"),
     &JobTotals::failed},
    {U("slurm_user_jobs_fed_requeued",
       "Number of jobs requeued in a federation"),
     U("slurm_account_jobs_fed_requeued",
       "Number of jobs requeued in a federation"),
     &JobTotals::fed_requeued},
    {U("slurm_user_jobs_finished", "Number of finished jobs"),
     U("slurm_account_jobs_finished", "Number of finished jobs"),
     &JobTotals::finished},
    {U("slurm_user_jobs_gpus_alloc", "Total number of GPUs allocated by jobs",
       Width::k64),
     U("slurm_account_jobs_gpus_alloc",
       "Total number of GPUs allocated by jobs", Width::k64),
     &JobTotals::gpus_alloc},
    {U("slurm_user_jobs_hold", "Number of jobs in Hold state"),
     U("slurm_account_jobs_hold", "Number of jobs in Hold state"),
     &JobTotals::hold},
    {U("slurm_user_jobs", "Total number of jobs"),
     U("slurm_account_jobs", "Total number of jobs"), &JobTotals::records},
    // A uint64 sum of MB that openmetrics.c prints as UINT32.
    {U("slurm_user_jobs_memory_alloc", "Total memory bytes allocated by jobs",
       Width::k32, Unit::kMiB),
     U("slurm_account_jobs_memory_alloc",
       "Total memory bytes allocated by jobs", Width::k32, Unit::kMiB),
     &JobTotals::memory_alloc_mb},
    {U("slurm_user_jobs_node_failed", "Number of jobs in Node Failed state"),
     U("slurm_account_jobs_node_failed", "Number of jobs in Node Failed state"),
     &JobTotals::node_failed},
    {U("slurm_user_jobs_nodes_alloc", "Total number of nodes allocated by jobs",
       Width::k16),
     U("slurm_account_jobs_nodes_alloc",
       "Total number of nodes allocated by jobs", Width::k16),
     &JobTotals::nodes_alloc},
    {U("slurm_user_jobs_outofmemory", "Number of jobs in Out of Memory state"),
     U("slurm_account_jobs_outofmemory",
       "Number of jobs in Out of Memory state"),
     &JobTotals::oom},
    {U("slurm_user_jobs_pending", "Number of jobs in Pending state"),
     U("slurm_account_jobs_pending", "Number of jobs in Pending state"),
     &JobTotals::pending},
    {U("slurm_user_jobs_powerup_node", "Number of jobs in PowerUp Node state"),
     U("slurm_account_jobs_powerup_node",
       "Number of jobs in PowerUp Node state"),
     &JobTotals::powerup_node},
    {U("slurm_user_jobs_preempted", "Number of jobs in Preempted state"),
     U("slurm_account_jobs_preempted", "Number of jobs in Preempted state"),
     &JobTotals::preempted},
    {U("slurm_user_jobs_requeued", "Number of jobs in Requeued state"),
     U("slurm_account_jobs_requeued", "Number of jobs in Requeued state"),
     &JobTotals::requeued},
    {U("slurm_user_jobs_resizing", "Number of jobs in Resizing state"),
     U("slurm_account_jobs_resizing", "Number of jobs in Resizing state"),
     &JobTotals::resizing},
    {U("slurm_user_jobs_revoked", "Number of jobs revoked"),
     U("slurm_account_jobs_revoked", "Number of jobs revoked"),
     &JobTotals::revoked},
    {U("slurm_user_jobs_running", "Number of jobs in Running state"),
     U("slurm_account_jobs_running", "Number of jobs in Running state"),
     &JobTotals::running},
    {U("slurm_user_jobs_signaling", "Number of jobs being signaled"),
     U("slurm_account_jobs_signaling", "Number of jobs being signaled"),
     &JobTotals::signaling},
    {U("slurm_user_jobs_stageout", "Number of jobs in StageOut state"),
     U("slurm_account_jobs_stageout", "Number of jobs in StageOut state"),
     &JobTotals::stageout},
    {U("slurm_user_jobs_started", "Number of started jobs"),
     U("slurm_account_jobs_started", "Number of started jobs"),
     &JobTotals::started},
    {U("slurm_user_jobs_suspended", "Number of jobs in Suspended state"),
     U("slurm_account_jobs_suspended", "Number of jobs in Suspended state"),
     &JobTotals::suspended},
    {U("slurm_user_jobs_timeout", "Number of jobs in Timeout state"),
     U("slurm_account_jobs_timeout", "Number of jobs in Timeout state"),
     &JobTotals::timeout},
};

// The two sides of the table: families by user and by account.
constinit const native::Table<Row> kUsers(kRows, "username", &Row::user);
constinit const native::Table<Row> kAccounts(kRows, "account", &Row::account);

// Totals per key, in first-appearance order (order does not matter to our
// writer, but it keeps the walk deterministic).
struct Keyed {
  std::unordered_map<std::string_view, size_t> index;
  std::vector<std::string_view> keys;
  std::vector<JobTotals> totals;

  JobTotals& For(std::string_view key) {
    const auto [it, added] = index.emplace(key, keys.size());
    if (added) {
      keys.push_back(key);
      totals.emplace_back();
    }
    return totals[it->second];
  }
};

void Emit(MetricSet& set, const native::Table<Row>& side, const Keyed& keyed,
          bool nv) {
  std::vector<native::Emitter> emit = side.Emitters(set, nv);
  for (size_t k = 0; k < keyed.keys.size(); ++k) {
    for (size_t i = 0; i < emit.size(); ++i)
      emit[i].Add(keyed.keys[k], keyed.totals[k].*kRows[i].value);
  }
}

}  // namespace

std::span<const FamilyDef* const> NativeUserAccountFamilies() {
  return native::FamiliesOf<kUsers, kAccounts>();
}

void AddNativeUserAccountFamilies(MetricSet& set, const JobSnapshot& snap,
                                  const RenderOptions& opts) {
  const bool nv = opts.native_values;

  // Keyed by the exact strings; an unresolvable uid or a job without an
  // account is one "" key, printed with an empty label value.
  Keyed users, accounts;
  for (const Job& j : snap.jobs) {
    users.For(j.user_name).Add(j, nv);
    accounts.For(j.account).Add(j, nv);
  }
  const bool per_record = nv && snap.native_nodes_alloc_per_record;
  for (JobTotals& t : users.totals) t.Finish(per_record);
  for (JobTotals& t : accounts.totals) t.Finish(per_record);
  Emit(set, kUsers, users, nv);
  Emit(set, kAccounts, accounts, nv);
}

}  // namespace sm
