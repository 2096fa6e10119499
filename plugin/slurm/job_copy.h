// SPDX-License-Identifier: GPL-2.0-or-later
// The locked phase of a jobs collection (ControllerSource::CollectJobs,
// adapter_jobs.cc): every job's fields as pack_job() reports them, copied
// under slurmctld's read locks in slices (CopyJobsLocked) into memory
// allocated off-lock beforehand (PresizeJobCopy), plus the raw fields the
// off-lock phase derives the clients' strings from (JobRaw).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "adapter.h"
#include "slurm_api.h"
#include "families/soperator/stdio_path.h"

namespace sm::slurm {

// StdOut/StdErr as `scontrol show job` prints them. Up to 25.05 the client
// expands a private copy of the pattern code (src/api/job_info.c), so the
// core re-implements it per dialect. From 25.11 slurmctld stores the
// default std_out ("slurm-%j.out", "slurm-%A_%a.out") at submit and the
// client calls expand_stdio_fields() from libslurmfull, which slurmctld has
// loaded: we call that same function (off-lock, on copies) with the
// job_std_pattern_t slurm_expand_job_stdio_fields() builds, so every
// wildcard (%S SLUIDs, %r, %N, %b, widths, the backslash rule) matches
// the client exactly and follows Slurm's own future changes.
#if SM_SLURM_AT_LEAST(25, 11)
#define SM_STDIO_EXPAND 1
#elif SM_SLURM_AT_LEAST(23, 2)
inline constexpr StdioDialect kStdio = StdioDialect::kSlurm2302;
#else
inline constexpr StdioDialect kStdio = StdioDialect::kSlurm2205;
#endif

// What the lock-free second pass needs beyond the Job fields.
struct JobRaw {
  uint32_t user_id;
  uint32_t job_state;
  uint32_t state_reason;
  std::string_view state_desc;  // pending jobs only
  uint32_t array_task_id;
  uint32_t array_max_tasks;
  bool batch;
  std::string_view user_name;  // as recorded on the job, often empty
  std::string_view work_dir;
  std::string_view std_out;
  std::string_view std_err;
  std::string_view array_hex;  // meta record's task bitmap, "0x..."
  // The job's allocated node slots in JobCopy::node_slots.
  uint32_t node_begin;
  uint32_t node_count;
  // A completing job's node names in JobCopy::cg_names (cg_listed), for
  // the list bitmap2node_name() would make of node_bitmap_cg.
  bool cg_listed;
  uint32_t cg_begin;
  uint32_t cg_count;
#ifdef SM_STDIO_EXPAND
  bool has_std_out;  // std_out/std_err set (NULL: the client prints "")
  bool has_std_err;
  uint16_t restart_cnt;
  slurm_step_id_t step_id;      // job_id and SLUID, for %j %J %s %S
  std::string_view batch_host;  // %N
#endif
};

// What every job's copy shares. The node maxima walk the node table, so
// they are computed only for the first job that needs them (jobs whose
// partition knows its own maxima, i.e. nearly all, never do).
struct JobCopyContext {
  time_t now;
  int gpu_pos;
  bool have_node_max = false;
  int max_cpu_cnt = -1;
  int max_core_cnt = -1;

  void NodeMax(int& cpus, int& cores);  // job_copy.cc
};

// Copies a string Slurm xmalloc()ed for us into the arena and frees it.
inline std::string_view StoreOwned(Arena& arena, char* xmalloced) {
  const std::string_view v = arena.StoreCString(xmalloced);
  xfree(xmalloced);
  return v;
}

// One job collection's working set; PresizeJobCopy() allocates and
// touches it off-lock from the last collection's sizes, so that the slices
// under the locks (CopyJobsLocked) do not call malloc unless the job list
// grew past that plus a margin (tests/shim/locked_allocs.py counts).
struct JobCopy {
  std::shared_ptr<JobSnapshot> snap;
  std::vector<JobRaw> raws;
  std::vector<uint32_t> node_slots;  // every job's (JobRaw::node_begin)
  std::vector<std::string_view> cg_names;  // completing jobs' (JobRaw::cg_begin)
  size_t count = 0;                  // jobs[0, count) were written
};

// Allocates and touches `c` for as many jobs (and lists, and bytes) as
// the last collection copied, plus a margin.
void PresizeJobCopy(JobCopy& c, const JobCopySizes& last);

// Copies every job into `c` under the job, node, part, conf and fed read
// locks, in slices (job_copy.cc). False, with `error` set, when there is
// nothing to copy (shutting down, job list not loaded).
bool CopyJobsLocked(JobCopy& c, JobCopyContext& ctx, LockTiming& timing,
                    std::string& error);

}  // namespace sm::slurm
