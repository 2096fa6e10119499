// SPDX-License-Identifier: GPL-2.0-or-later
// Jobs, as slurmctld packs them for `squeue --json`/slurmrestd (pack_job()
// and _pack_default_job_details() of the release we build for): the copy
// made under slurmctld's locks (job_copy.h). The client-side formatting
// those tools add is derived off-lock (adapter_jobs.cc, job_stdio.cc).
#include "job_copy.h"

#include <algorithm>
#include <chrono>
#include <ranges>
#include <span>

#include "adapter_accounting.h"
#include "adapter_util.h"
#include "job_list_walk.h"

namespace sm::slurm {
namespace {

JobBase MapBase(uint32_t state) {
  switch (state & JOB_STATE_BASE) {
    case JOB_PENDING: return JobBase::kPending;
    case JOB_RUNNING: return JobBase::kRunning;
    case JOB_SUSPENDED: return JobBase::kSuspended;
    case JOB_COMPLETE: return JobBase::kCompleted;
    case JOB_CANCELLED: return JobBase::kCancelled;
    case JOB_FAILED: return JobBase::kFailed;
    case JOB_TIMEOUT: return JobBase::kTimeout;
    case JOB_NODE_FAIL: return JobBase::kNodeFail;
    case JOB_PREEMPTED: return JobBase::kPreempted;
    case JOB_BOOT_FAIL: return JobBase::kBootFail;
    case JOB_DEADLINE: return JobBase::kDeadline;
    case JOB_OOM: return JobBase::kOutOfMemory;
    default: return JobBase::kPending;
  }
}

uint32_t MapFlags(uint32_t state) {
  static const BitMap<uint32_t> kBits[] = {
      {JOB_LAUNCH_FAILED, job_flag::kLaunchFailed},
      {JOB_REQUEUE, job_flag::kRequeue},
      {JOB_REQUEUE_HOLD, job_flag::kRequeueHold},
      {JOB_SPECIAL_EXIT, job_flag::kSpecialExit},
      {JOB_RESIZING, job_flag::kResizing},
      {JOB_CONFIGURING, job_flag::kConfiguring},
      {JOB_COMPLETING, job_flag::kCompleting},
      {JOB_STOPPED, job_flag::kStopped},
      {JOB_RECONFIG_FAIL, job_flag::kReconfigFail},
      {JOB_POWER_UP_NODE, job_flag::kPowerUpNode},
      {JOB_REVOKED, job_flag::kRevoked},
      {JOB_REQUEUE_FED, job_flag::kRequeueFed},
      {JOB_RESV_DEL_HOLD, job_flag::kResvDelHold},
      {JOB_SIGNALING, job_flag::kSignaling},
      {JOB_STAGE_OUT, job_flag::kStageOut},
#ifdef JOB_EXPEDITING
      {JOB_EXPEDITING, job_flag::kExpediting},
#endif
  };
  return MapBits(state, kBits);
}

// NumCPUs as _pack_default_job_details() reports it.
int64_t PackedCpus(job_record_t* job) {
  auto* d = job->details;
  if (!d) return job->total_cpus ? job->total_cpus : job->cpu_cnt;
  if (IS_JOB_COMPLETING(job) && job->cpu_cnt) return job->cpu_cnt;
  if (job->total_cpus && !IS_JOB_PENDING(job)) return job->total_cpus;
  return d->min_cpus;
}

// _find_node_config(): the largest CPU and core counts of any node.
void NodeConfigMax(int& max_cpus, int& max_cores) {
  max_cpus = max_cores = -1;
  node_record_t* node;
  for (int i = 0; (node = next_node(&i)); ++i) {
    if (!node->config_ptr) continue;
    max_cpus = std::max<int>(max_cpus, node->config_ptr->cpus);
    max_cores = std::max<int>(max_cores, node->config_ptr->cores);
  }
}

}  // namespace

void JobCopyContext::NodeMax(int& cpus, int& cores) {
  if (!have_node_max) {
    NodeConfigMax(max_cpu_cnt, max_core_cnt);
    have_node_max = true;
  }
  cpus = max_cpu_cnt;
  cores = max_core_cnt;
}

namespace {

// NumNodes as _pack_default_job_details() reports it, estimate included.
int64_t PackedNodes(job_record_t* job, JobCopyContext& ctx) {
  auto* d = job->details;
  if (!d) return job->node_cnt;
  if (IS_JOB_COMPLETING(job) && job->node_cnt) return job->node_cnt;
  if (job->total_nodes) return job->total_nodes;
  if (job->node_cnt_wag) return job->node_cnt_wag;
  int max_cpu_cnt, max_core_cnt;
  if (job->part_ptr && job->part_ptr->max_cpu_cnt) {
    max_cpu_cnt = job->part_ptr->max_cpu_cnt;
    max_core_cnt = job->part_ptr->max_core_cnt;
  } else {
    ctx.NodeMax(max_cpu_cnt, max_core_cnt);
  }
  if (max_cpu_cnt < 1) max_cpu_cnt = 1;
  if (max_core_cnt < 1) max_core_cnt = 1;
  uint32_t min_nodes;
  if (d->ntasks_per_node) {
    min_nodes = d->num_tasks / d->ntasks_per_node;
  } else if (d->cpus_per_task > 1) {
    uint32_t per_node = std::max<uint32_t>(max_cpu_cnt / d->cpus_per_task, 1);
    min_nodes = d->num_tasks / per_node;
    min_nodes = std::max(min_nodes, d->min_nodes);
    if (d->num_tasks % per_node) ++min_nodes;
    return min_nodes;
  } else if (d->mc_ptr && d->mc_ptr->ntasks_per_core &&
             d->mc_ptr->ntasks_per_core != INFINITE16) {
    uint32_t min_cores = (d->num_tasks + d->mc_ptr->ntasks_per_core - 1) /
                         d->mc_ptr->ntasks_per_core;
    min_nodes = (min_cores + max_core_cnt - 1) / max_core_cnt;
  } else {
    min_nodes = (d->num_tasks + max_cpu_cnt - 1) / max_cpu_cnt;
  }
  return std::max(min_nodes, d->min_nodes);
}

// ---- CopyJob's parts: one job's fields, as pack_job() reports them, all
// called under the job, node, part, conf and fed read locks. Strings go
// into the arena and lists into vectors presized off-lock; nothing here
// allocates except Slurm's own formatting of an array's task bitmap (one
// xmalloc per such array record, tests/shim/locked_allocs.py).

// Where CopyJob appends what has no fixed size.
struct CopyLists {
  std::vector<uint32_t>& node_slots;
  std::vector<std::string_view>& cg_names;
};

void CopyJobState(job_record_t* job, Job& j, JobRaw& r, Arena& arena) {
  j.id = job->job_id;
  j.name = arena.StoreCString(job->name);
  j.state = MapBase(job->job_state);
  j.flags = MapFlags(job->job_state);
  r.job_state = job->job_state;
  r.state_reason = job->state_reason;
  // Only a pending job's reason is looked at (squeue's %r, off-lock).
  r.state_desc = IS_JOB_PENDING(job) ? arena.StoreCString(job->state_desc)
                                     : std::string_view();
  // Slurm's statistics: held by the reason alone, never by priority 0.
  j.held = IS_JOB_PENDING(job) && (job->state_reason == WAIT_HELD ||
                                   job->state_reason == WAIT_HELD_USER);
  j.waits_part_node_limit = job->state_reason == WAIT_PART_NODE_LIMIT;
  j.reason_has_part_node_limit_bit =
      (job->state_reason & WAIT_PART_NODE_LIMIT) != 0;
  j.partition = arena.StoreCString(
      !IS_JOB_PENDING(job) && job->part_ptr ? job->part_ptr->name
                                            : job->partition);
  j.statistics_partition = arena.StoreCString(
      job->part_ptr ? job->part_ptr->name : job->partition);
}

void CopyJobOwner(job_record_t* job, Job& j, JobRaw& r, Arena& arena) {
  r.user_id = job->user_id;
  j.user_id = job->user_id;
  const char* user = job->user_name;
#if SM_SLURM_AT_LEAST(24, 5)
  if (!user && job->id) user = job->id->pw_name;
#endif
  r.user_name = arena.StoreCString(user);
  j.mail_user = arena.StoreCString(job->mail_user);
  j.account = arena.StoreCString(job->account);
  r.batch = job->batch_flag != 0;
#ifdef SM_STDIO_EXPAND
  r.restart_cnt = job->restart_cnt;
  r.step_id = job->step_id;  // what pack_job() sends the client
  r.batch_host = arena.StoreCString(job->batch_host);
#endif
}

void CopyJobDetails(job_record_t* job, Job& j, JobRaw& r, Arena& arena) {
  auto* d = job->details;
  if (!d) {
    j.submit_time = 0;
    return;
  }
  r.work_dir = arena.StoreCString(d->work_dir);
  r.std_out = arena.StoreCString(d->std_out);
  r.std_err = arena.StoreCString(d->std_err);
#ifdef SM_STDIO_EXPAND
  r.has_std_out = d->std_out != nullptr;
  r.has_std_err = d->std_err != nullptr;
#endif
  j.submit_time = d->submit_time;
  // memory_per_node is absent when the request is per CPU.
  if (!(d->pn_min_memory & MEM_PER_CPU))
    j.memory_per_node_mb = static_cast<int64_t>(d->pn_min_memory);
  j.min_nodes = d->min_nodes;
  j.max_nodes = d->max_nodes;
}

void CopyJobArray(job_record_t* job, Job& j, JobRaw& r, Arena& arena) {
  j.array_job_id = job->array_job_id;
  r.array_task_id = job->array_task_id;
  if (job->array_task_id != NO_VAL) j.array_task_id = job->array_task_id;
  if (!job->array_recs) return;
  // Not build_array_str(): it writes to the job record.
  if (job->array_recs->task_id_str) {
    r.array_hex = arena.StoreCString(job->array_recs->task_id_str);
  } else if (job->array_recs->task_id_bitmap) {
    r.array_hex =
        StoreOwned(arena, bit_fmt_hexmask(job->array_recs->task_id_bitmap));
  }
  r.array_max_tasks = job->array_recs->max_run_tasks;
  j.array_pending_tasks = job->array_recs->task_cnt;
}

// Start and end as pack_job() reports them (estimates for pending jobs).
void CopyJobTimes(job_record_t* job, Job& j, time_t now) {
  uint32_t time_limit = job->time_limit;
  if (time_limit == NO_VAL && job->part_ptr)
    time_limit = job->part_ptr->max_time;
  const time_t begin = job->details ? job->details->begin_time : 0;
  time_t start = 0, end = 0;
  if (IS_JOB_STARTED(job)) {
    start = job->start_time;
    end = job->end_time;
  } else if (job->start_time != 0) {
    start = std::max<time_t>(job->start_time, now);
    if (time_limit != NO_VAL)
      end = std::max<time_t>(job->end_time, start + time_limit * 60);
  } else if (begin > now) {
    start = begin;
    if (time_limit != NO_VAL)
      end = std::max<time_t>(job->end_time, start + time_limit * 60);
  }
  j.start_time = start;
  j.end_time = end;
}

// Only the allocated node list; a completing job shows the nodes it is
// still completing on: their names now, the ranged list off-lock
// (RangedNodeNames), as bitmap2node_name() walks node_bitmap_cg.
void CopyJobNodes(job_record_t* job, Job& j, JobRaw& r, Arena& arena,
                  std::vector<std::string_view>& cg_names) {
  if (!IS_JOB_COMPLETING(job) || !job->node_bitmap_cg) {
    j.nodes = arena.StoreCString(job->nodes);
    return;
  }
  r.cg_listed = true;
  r.cg_begin = static_cast<uint32_t>(cg_names.size());
  ForEachSetBit(job->node_bitmap_cg, [&](uint32_t slot) {
    if (static_cast<int>(slot) < node_record_count && node_record_table_ptr[slot])
      cg_names.push_back(arena.StoreCString(node_record_table_ptr[slot]->name));
  });
  r.cg_count = static_cast<uint32_t>(cg_names.size() - r.cg_begin);
}

// What the job holds: TRES and counts; its node slots are appended to
// `node_slots` (presized off-lock: no allocation per job).
void CopyJobResources(job_record_t* job, Job& j, JobRaw& r, Arena& arena,
                      JobCopyContext& ctx, std::vector<uint32_t>& node_slots) {
  j.tres_alloc = arena.StoreCString(job->tres_fmt_alloc_str);
  j.tres_req = arena.StoreCString(job->tres_fmt_req_str);
  j.cpus = PackedCpus(job);
  j.node_count = PackedNodes(job, ctx);
  // For the native families.
  j.cpus_alloc = job->total_cpus;  // what statistics.c counts
  if (job->tres_alloc_cnt) {
    j.memory_alloc_mb =
        static_cast<int64_t>(job->tres_alloc_cnt[TRES_ARRAY_MEM]);
    if (ctx.gpu_pos >= 0)
      j.gpus_tres = static_cast<int64_t>(job->tres_alloc_cnt[ctx.gpu_pos]);
  }
  j.gpus_alloc = JobAllocatedGpus(job);
  r.node_begin = static_cast<uint32_t>(node_slots.size());
  if (IS_JOB_RUNNING(job) || IS_JOB_SUSPENDED(job))
    ForEachSetBit(job->node_bitmap,
                  [&](uint32_t slot) { node_slots.push_back(slot); });
  r.node_count = static_cast<uint32_t>(node_slots.size() - r.node_begin);
}

void CopyJob(job_record_t* job, Job& j, JobRaw& r, Arena& arena,
             JobCopyContext& ctx, CopyLists lists) {
  CopyJobState(job, j, r, arena);
  CopyJobOwner(job, j, r, arena);
  CopyJobDetails(job, j, r, arena);
  CopyJobArray(job, j, r, arena);
  CopyJobTimes(job, j, ctx.now);
  CopyJobNodes(job, j, r, arena, lists.cg_names);
  CopyJobResources(job, j, r, arena, ctx, lists.node_slots);
}

// Job records (about 1 KB each) and what they point to are scattered over
// slurmctld's heap: copying 50,000 of them is bound by memory latency, not
// by the work per job. The copy loop asks for the record's cache lines a
// few jobs ahead, then, once the record is in, for the details and strings
// it points to, so that the misses of several jobs overlap.
inline void PrefetchRecord(const job_record_t* job) {
  __builtin_prefetch(&job->account);
  __builtin_prefetch(&job->batch_flag);
  __builtin_prefetch(&job->cpu_cnt);
  __builtin_prefetch(&job->details);
  __builtin_prefetch(&job->job_id);
  __builtin_prefetch(&job->job_state);
  __builtin_prefetch(&job->name);
  __builtin_prefetch(&job->node_bitmap);
  __builtin_prefetch(&job->part_ptr);
  __builtin_prefetch(&job->start_time);
  __builtin_prefetch(&job->time_limit);
  __builtin_prefetch(&job->tres_fmt_req_str);
  __builtin_prefetch(&job->user_name);
}

inline void PrefetchReferenced(const job_record_t* job) {
  if (const auto* d = job->details) {
    __builtin_prefetch(&d->work_dir);
    __builtin_prefetch(&d->submit_time);
    __builtin_prefetch(d->work_dir);
    __builtin_prefetch(d->std_out);
    __builtin_prefetch(d->std_err);
  }
  __builtin_prefetch(job->name);
  __builtin_prefetch(job->partition);
  __builtin_prefetch(job->user_name);
  __builtin_prefetch(job->mail_user);
  __builtin_prefetch(job->account);
  __builtin_prefetch(job->tres_fmt_req_str);
  __builtin_prefetch(job->tres_fmt_alloc_str);
}

}  // namespace

void PresizeJobCopy(JobCopy& c, const JobCopySizes& last) {
  if (!last.jobs) return;  // the first collection: nothing to go by
  const size_t slots = last.jobs + last.jobs / 8 + 64;
  c.snap->jobs.resize(slots);
  c.raws.resize(slots);
  c.node_slots.resize(last.node_slots + last.node_slots / 8 + 64);
  c.node_slots.clear();  // capacity stays, pages touched
  c.cg_names.resize(last.cg_names + last.cg_names / 8 + 64);
  c.cg_names.clear();
  c.snap->arena.Reserve(last.bytes * 9 / 8);
}

// The locked part of a job collection. The jobs are copied in slices: the
// locks are released whenever a slice has held them for kSlice, so that a
// writer (a submit, the scheduler) never waits on us for longer than that.
// JobListWalk resumes after an unlock without keeping a job pointer or an
// iterator across it. A backup destroys and rebuilds job_list when it
// takes over (backup.c), so there the whole walk stays under one hold.
bool CopyJobsLocked(JobCopy& c, JobCopyContext& ctx, LockTiming& timing,
                    std::string& error) {
  const auto slice = slurmctld_primary ? std::chrono::milliseconds(2)
                                       : std::chrono::milliseconds::max();
  constexpr int kAhead = 8;  // prefetch distance, in jobs
  JobListWalk walk;
  // What a restart of the walk passes by: the ids copied so far.
  const auto copied_ids = [&] {
    return std::span(c.snap->jobs.data(), c.count) |
           std::views::transform(&Job::id);
  };
  slurmctld_lock_t locks = {};
  locks.conf = READ_LOCK;
  locks.job = READ_LOCK;
  locks.node = READ_LOCK;  // node_bitmap_cg names, node config maxima
  locks.part = READ_LOCK;
  locks.fed = READ_LOCK;
  for (bool done = false; !done; walk.BetweenSlices(copied_ids())) {
    TimedLock lock(locks, timing);
    if (slurmctld_config.shutdown_time) {
      error = "slurmctld is shutting down";
      return false;
    }
    if (!job_list) {
      error = "job list not loaded yet";
      return false;
    }
    const auto deadline = slice == std::chrono::milliseconds::max()
                              ? TimedLock::Clock::time_point::max()
                              : lock.acquired() + slice;
    done = walk.Slice(job_list, [&](job_record_t* const* batch, int got) {
      for (int i = 0; i < std::min(got, kAhead); ++i) PrefetchRecord(batch[i]);
      for (int i = 0; i < got; ++i) {
        if (i + kAhead < got) PrefetchRecord(batch[i + kAhead]);
        if (i + kAhead / 2 < got) PrefetchReferenced(batch[i + kAhead / 2]);
        if (c.count == c.snap->jobs.size()) {  // grew past the presize
          c.snap->jobs.emplace_back();
          c.raws.emplace_back();
        }
        CopyJob(batch[i], c.snap->jobs[c.count], c.raws[c.count],
                c.snap->arena, ctx, {c.node_slots, c.cg_names});
        ++c.count;
      }
      return TimedLock::Clock::now() < deadline;
    });
  }
  timing.list_wait_seconds += walk.list_wait_seconds();
  if (walk.restarts() > 0)
    debug("soperator: the jobs collection resumed from job_list's head %d "
          "time(s): every job it had passed last was purged meanwhile",
          walk.restarts());
  return true;
}

}  // namespace sm::slurm
