// SPDX-License-Identifier: GPL-2.0-or-later
// Jobs, as slurmctld packs them for `squeue --json`/slurmrestd, plus the
// client-side formatting those tools add. A collection has three phases:
// memory allocated off-lock from the last one's sizes, the copy under
// slurmctld's locks (job_copy.cc), and what the clients derive from it,
// with no lock held (here and job_stdio.cc).
#include <cstddef>
#include <cstring>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <utility>

#include "adapter.h"
#include "adapter_util.h"
#include "job_copy.h"
#include "job_stdio.h"

namespace sm::slurm {
namespace {

// bitmap2node_name() (node_conf.c, the same from 22.05 to 26.05) on names
// copied under the locks: a hostlist of them in slot order, sorted, ranged.
// hostlist_* are pure (their own mutex), so this runs with no lock held.
char* RangedNodeNames(std::span<const std::string_view> names) {
  if (names.empty()) return xstrdup("");
  auto hl = hostlist_create(nullptr);
  std::string name;
  for (std::string_view n : names) {
    name.assign(n);
    hostlist_push_host(hl, name.c_str());
  }
  hostlist_sort(hl);
  char* ranged = hostlist_ranged_string_xmalloc(hl);
  hostlist_destroy(hl);
  return ranged;
}

// What every job's off-lock derivation shares.
struct DeriveContext {
  const JobCopy& copy;  // node slots and completing jobs' node names
  Arena& arena;         // the snapshot's: every derived string goes there
  UserNames& users;
  StdioPaths& stdio;    // the last collection's paths, where they still fit
};

// The allocated node slots; a completing job's ranged node list.
void DeriveNodes(Job& j, const JobRaw& r, const DeriveContext& ctx) {
  const auto slots =
      std::span(ctx.copy.node_slots).subspan(r.node_begin, r.node_count);
  j.node_indices.assign(slots.begin(), slots.end());
  if (r.cg_listed)
    j.nodes = StoreOwned(ctx.arena,
                         RangedNodeNames(std::span(ctx.copy.cg_names)
                                             .subspan(r.cg_begin, r.cg_count)));
}

void DeriveReason(Job& j, const JobRaw& r, Arena& arena) {
  j.state_reason = arena.StoreCString(ReasonString(r.state_reason));
  // squeue's %T and %r (_print_job_reason()): the flag word, if any, is
  // printed instead of PENDING; state_desc instead of the reason's name.
  j.squeue_pending = strcmp(job_state_string(r.job_state), "PENDING") == 0;
  if (j.squeue_pending)
    j.squeue_reason = r.state_desc.empty() ? j.state_reason : r.state_desc;
}

void DeriveArrayTasks(Job& j, const JobRaw& r, Arena& arena) {
  if (r.array_hex.empty()) return;
  static std::mutex xlate_mu;  // xlate and reason tables are plain C
  std::lock_guard lock(xlate_mu);
  char* s = xstrndup(r.array_hex.data(), r.array_hex.size());
  xlate_array_task_str(&s, r.array_max_tasks, nullptr);
  j.array_task_string = StoreOwned(arena, s);
}

// Off-lock: the strings the clients compute for the k-th job of the copy.
// Returns what its StdOut/StdErr were derived from (its memo entry).
Fingerprint DeriveJob(Job& j, const JobRaw& r, size_t k, DeriveContext& ctx) {
  DeriveNodes(j, r, ctx);
  DeriveReason(j, r, ctx.arena);
  const std::string user = r.user_name.empty() ? ctx.users.Name(r.user_id)
                                               : std::string(r.user_name);
  j.user_name = ctx.arena.Store(user);
  DeriveArrayTasks(j, r, ctx.arena);
  // uid_to_string()'s fallback. Both arms are views: a mixed ternary
  // would build a temporary std::string and leave it dangling.
  const std::string_view stdio_user =
      user.empty() ? std::string_view("nobody") : std::string_view(user);
  return ctx.stdio.Derive(j, r, k, stdio_user);
}

}  // namespace

void ControllerSource::ForgetStdioMemo() {
  std::shared_ptr<const StdioMemo> dropped;  // freed outside the lock
  std::lock_guard lock(stdio_mu_);
  dropped = std::move(stdio_memo_);
}

std::shared_ptr<JobSnapshot> ControllerSource::CollectJobs(LockTiming& timing,
                                                           std::string& error) {
  const LockGateScope gate(locks_closed_);  // adapter_util.h
  JobCopy c;
  c.snap = std::make_shared<JobSnapshot>();
  // statistics_get_jobs() of 25.11.0 to 26.05.1 adds up job_ptr->total_nodes
  // per record; 26.05.2 ORs the node bitmaps (docs/native-semantics.md).
  c.snap->native_nodes_alloc_per_record =
      SM_SLURM_AT_LEAST(25, 11) &&
      SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(26, 5, 2);
  PresizeJobCopy(c, job_sizes_.Load());
  JobCopyContext ctx{Now(), GpuTresPosition()};
  if (!CopyJobsLocked(c, ctx, timing, error)) return nullptr;
  JobSnapshot& snap = *c.snap;
  snap.jobs.resize(c.count);
  c.raws.resize(c.count);
  job_sizes_.Store({c.count, snap.arena.bytes_used(), c.node_slots.size(),
                    c.cg_names.size()});
  std::shared_ptr<const StdioMemo> last;
  {
    std::lock_guard lock(stdio_mu_);
    last = stdio_memo_;
  }
  auto memo = std::make_shared<StdioMemo>();
  memo->entries.resize(c.count);
  StdioPaths stdio(last.get(), snap.arena);
  DeriveContext derive{c, snap.arena, users_, stdio};
  for (size_t k = 0; k < c.count; ++k)
    memo->entries[k] = {snap.jobs[k].id,
                        DeriveJob(snap.jobs[k], c.raws[k], k, derive)};
  debug("soperator: StdOut/StdErr of %lu of %lu job(s) taken from the last "
        "collection", static_cast<unsigned long>(stdio.reused()),
        static_cast<unsigned long>(c.count));
  memo->jobs = c.snap;
  std::shared_ptr<const StdioMemo> replaced;  // freed outside the lock
  {
    std::lock_guard lock(stdio_mu_);
    replaced = std::exchange(stdio_memo_, std::move(memo));
  }
  return std::move(c.snap);
}

}  // namespace sm::slurm
