// SPDX-License-Identifier: GPL-2.0-or-later
// Jobs, as slurmctld packs them for `squeue --json`/slurmrestd (pack_job()
// and _pack_default_job_details() of the release we build for), plus the
// client-side formatting those tools add.
#include <algorithm>
#include <cstddef>
#include <mutex>
#include <ranges>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "adapter.h"
#include "adapter_accounting.h"
#include "adapter_util.h"
#include "job_list_walk.h"
#include "base/fingerprint.h"
#include "families/soperator/stdio_path.h"

namespace sm::slurm {

struct StdioMemo {
  struct Entry {
    uint32_t id;
    Fingerprint inputs;
  };
  std::shared_ptr<const JobSnapshot> jobs;  // owns the strings
  std::vector<Entry> entries;               // entries[k]: jobs->jobs[k]'s

  // The job `id` of that collection, if its paths came from `inputs`.
  // `at` is where it is looked for first and, when found, where it was:
  // job_list keeps its order, so with nothing added or purged before it a
  // job is at the same place, and otherwise usually at a fixed distance.
  // Only a job found elsewhere builds the index, once per memo.
  const Job* Find(size_t& at, uint32_t id, const Fingerprint& inputs) const {
    if (at >= entries.size() || entries[at].id != id) {
      std::call_once(index_once_, [this] {
        index_.reserve(entries.size());
        for (size_t k = 0; k < entries.size(); ++k)
          index_.insert_or_assign(entries[k].id, static_cast<uint32_t>(k));
      });
      const auto it = index_.find(id);
      if (it == index_.end()) return nullptr;
      at = it->second;
    }
    if (!(entries[at].inputs == inputs)) return nullptr;
    return &jobs->jobs[at];
  }

 private:
  mutable std::once_flag index_once_;
  mutable std::unordered_map<uint32_t, uint32_t> index_;  // id -> entries
};

namespace {

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
constexpr StdioDialect kStdio = StdioDialect::kSlurm2302;
#else
constexpr StdioDialect kStdio = StdioDialect::kSlurm2205;
#endif

// What the lock-free second pass needs beyond the Job fields.
struct Raw {
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

// What every job's copy shares. The node maxima walk the node table, so
// they are computed only for the first job that needs them (jobs whose
// partition knows its own maxima, i.e. nearly all, never do).
struct CopyContext {
  time_t now;
  int gpu_pos;
  bool have_node_max = false;
  int max_cpu_cnt = -1;
  int max_core_cnt = -1;

  void NodeMax(int& cpus, int& cores) {
    if (!have_node_max) {
      NodeConfigMax(max_cpu_cnt, max_core_cnt);
      have_node_max = true;
    }
    cpus = max_cpu_cnt;
    cores = max_core_cnt;
  }
};

// NumNodes as _pack_default_job_details() reports it, estimate included.
int64_t PackedNodes(job_record_t* job, CopyContext& ctx) {
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

std::string_view StoreOwned(Arena& arena, char* xmalloced) {
  const std::string_view v = arena.StoreCString(xmalloced);
  xfree(xmalloced);
  return v;
}

#ifdef SM_STDIO_EXPAND
// scontrol prints StdOut/StdErr with snprintf() into a PATH_MAX buffer
// (src/scontrol/info_job.c, 25.11 and 26.05): at most 4,095 bytes.
constexpr size_t kMaxStdioPath = PATH_MAX - 1;

// How much of `pattern` expand_stdio_fields() (src/common/print_fields.c,
// the same in 25.11 and 26.05) must read for the first kMaxStdioPath bytes
// of its result. It reads left to right and only appends, so a prefix that
// ends between two of its steps expands to a prefix of the whole result:
// we stop after the step past which the result is surely that long.
// Without this, a 1,024-byte job name and -o of %x x 2,047 made 2 MB per
// path, 6-27 ms per call, every collection. What a step appends at least:
// a byte or "%%" 1, %x %u %N their value, a number its width (one digit at
// least), %S nothing (we do not count the SLUID), any other "%c" 1 (Slurm
// prints it back). A pattern with a backslash anywhere is copied without
// expansion (Slurm's escape rule, decided on the whole pattern): never
// longer than itself, so it is not cut.
size_t StdioPatternNeeded(std::string_view pattern, size_t work_dir,
                          size_t name, size_t user, size_t host) {
  if (pattern.find('\\') != std::string_view::npos) return pattern.size();
  const size_t n = pattern.size();
  size_t out = pattern.front() == '/' ? 0 : work_dir, i = 0;
  while (i < n && out < kMaxStdioPath) {
    if (pattern[i] != '%') {
      ++out;
      ++i;
      continue;
    }
    size_t k = i + 1, width = 0;
    if (k < n && pattern[k] == '%') {
      ++out;
      i = k + 1;
      continue;
    }
    // strtoul(), then "if (padding > 9) padding = 10".
    for (; k < n && pattern[k] >= '0' && pattern[k] <= '9'; ++k)
      width = std::min<size_t>(width * 10 + (pattern[k] - '0'), 10);
    if (k >= n) return n;  // a trailing "%" or "%<digits>": the end
    switch (pattern[k]) {
      case 'x': out += name; break;
      case 'u': out += user; break;
      case 'N': out += host; break;
      case 'S': break;
      case 'A':
      case 'a':
      case 'b':
      case 'J':
      case 'j':
      case 'n':
      case 'r':
      case 's':
      case 't': out += std::max<size_t>(width, 1); break;
      default: ++out; break;
    }
    i = k + 1;
  }
  return i;
}

// slurm_get_job_stdout()/stderr() of 25.11+: "" when the path is unset,
// else expand_stdio_fields() filled as slurm_expand_job_stdio_fields()
// fills it from the packed job, cut as scontrol cuts it. Pure function of
// its arguments (xmalloc only), safe on our thread with no lock held.
std::string ExpandStdio(bool set, std::string_view pattern, const Job& j,
                        const Raw& r, std::string_view user) {
  if (!set || pattern.empty()) return {};
  // Two NULs: on a pattern ending in "%<digits>" expand_stdio_fields()
  // copies the terminator and steps past it (25.11.7 and 26.05.3 read on
  // until the next zero byte; next to an unmapped page that is SIGSEGV).
  // The second NUL ends it there; what it printed up to the first is
  // what scontrol shows.
  std::string path(pattern.substr(
      0, StdioPatternNeeded(pattern, r.work_dir.size(), j.name.size(),
                            user.size(), r.batch_host.size())));
  path.push_back('\0');
  std::string name(j.name), host(r.batch_host), who(user),
      work_dir(r.work_dir);
  job_std_pattern_t p = {};
  p.array_job_id = static_cast<uint32_t>(j.array_job_id.value_or(0));
  p.array_task_id = r.array_task_id;
  p.first_step_node = r.batch_host.empty() ? nullptr : host.data();
  p.jobname = name.data();
  p.restart_cnt = r.restart_cnt;
  p.step_id = r.step_id;
  p.step_id.step_id = SLURM_BATCH_SCRIPT;
  p.user = who.data();
  p.work_dir = r.work_dir.empty() ? nullptr : work_dir.data();
  char* out = expand_stdio_fields(path.data(), &p);
  std::string result = out ? out : "";
  xfree(out);
  if (result.size() > kMaxStdioPath) result.resize(kMaxStdioPath);
  return result;
}
#endif

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

void CopyJobState(job_record_t* job, Job& j, Raw& r, Arena& arena) {
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

void CopyJobOwner(job_record_t* job, Job& j, Raw& r, Arena& arena) {
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

void CopyJobDetails(job_record_t* job, Job& j, Raw& r, Arena& arena) {
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

void CopyJobArray(job_record_t* job, Job& j, Raw& r, Arena& arena) {
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
void CopyJobNodes(job_record_t* job, Job& j, Raw& r, Arena& arena,
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
void CopyJobResources(job_record_t* job, Job& j, Raw& r, Arena& arena,
                      CopyContext& ctx, std::vector<uint32_t>& node_slots) {
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

void CopyJob(job_record_t* job, Job& j, Raw& r, Arena& arena, CopyContext& ctx,
             CopyLists lists) {
  CopyJobState(job, j, r, arena);
  CopyJobOwner(job, j, r, arena);
  CopyJobDetails(job, j, r, arena);
  CopyJobArray(job, j, r, arena);
  CopyJobTimes(job, j, ctx.now);
  CopyJobNodes(job, j, r, arena, lists.cg_names);
  CopyJobResources(job, j, r, arena, ctx, lists.node_slots);
}

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

// One job collection's working set; PresizeJobCopy() allocates and
// touches it off-lock from the last collection's sizes, so that the slices
// under the locks (CopyJobsLocked) do not call malloc unless the job list
// grew past that plus a margin (tests/shim/locked_allocs.py counts).
struct JobCopy {
  std::shared_ptr<JobSnapshot> snap;
  std::vector<Raw> raws;
  std::vector<uint32_t> node_slots;  // every job's (Raw::node_begin)
  std::vector<std::string_view> cg_names;  // completing jobs' (Raw::cg_begin)
  size_t count = 0;                  // jobs[0, count) were written
};

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
bool CopyJobsLocked(JobCopy& c, CopyContext& ctx, LockTiming& timing,
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

// Everything ExpandStdio() or JobStdout()/JobStderr() read for one job.
Fingerprint StdioInputs(const Job& j, const Raw& r, std::string_view user) {
  FingerprintHasher h;
  h.Word(j.id);
  h.Word(j.array_job_id.value_or(0));
  h.Word(r.array_task_id);
  h.Word(r.batch);
  h.String(j.name);
  h.String(user);
  h.String(r.work_dir);
  h.String(r.std_out);
  h.String(r.std_err);
#ifdef SM_STDIO_EXPAND
  h.Word(r.has_std_out | r.has_std_err << 1);
  h.Word(r.restart_cnt);
  h.Word(r.step_id.sluid);
  h.Word(r.step_id.job_id);
  h.Word(r.step_id.step_het_comp);
  h.Word(r.step_id.step_id);
  h.String(r.batch_host);
#endif
  return h.Finish();
}

// StdOut/StdErr as the client prints them, expanded from the patterns.
void ExpandPaths(Job& j, const Raw& r, Arena& arena, std::string_view stdio_user) {
#ifdef SM_STDIO_EXPAND
  j.std_out =
      arena.Store(ExpandStdio(r.has_std_out, r.std_out, j, r, stdio_user));
  j.std_err =
      arena.Store(ExpandStdio(r.has_std_err, r.std_err, j, r, stdio_user));
#else
  StdioJob io;
  io.job_id = j.id;
  io.array_job_id = static_cast<uint32_t>(j.array_job_id.value_or(0));
  io.array_task_id = r.array_task_id;
  io.name = j.name;
  io.work_dir = r.work_dir;
  io.user = stdio_user;
  io.batch = r.batch;
  io.std_out = r.std_out;
  io.std_err = r.std_err;
  j.std_out = arena.Store(JobStdout(kStdio, io));
  j.std_err = arena.Store(JobStderr(kStdio, io));
#endif
}

// Off-lock: the strings the clients compute for one job. `last`: the
// previous collection's paths, if any; `stdio_inputs` is set to what this
// job's paths are derived from.
void DeriveJob(Job& j, const Raw& r, const JobCopy& c, Arena& arena,
               UserNames& users, const StdioMemo* last, ptrdiff_t& shift,
               size_t k, Fingerprint& stdio_inputs, size_t& reused) {
  const auto slots = std::span(c.node_slots).subspan(r.node_begin, r.node_count);
  j.node_indices.assign(slots.begin(), slots.end());
  if (r.cg_listed)
    j.nodes = StoreOwned(arena, RangedNodeNames(std::span(c.cg_names).subspan(
                                    r.cg_begin, r.cg_count)));
  j.state_reason = arena.StoreCString(ReasonString(r.state_reason));
  // squeue's %T and %r (_print_job_reason()): the flag word, if any, is
  // printed instead of PENDING; state_desc instead of the reason's name.
  j.squeue_pending = strcmp(job_state_string(r.job_state), "PENDING") == 0;
  if (j.squeue_pending)
    j.squeue_reason = r.state_desc.empty() ? j.state_reason : r.state_desc;
  const std::string user =
      r.user_name.empty() ? users.Name(r.user_id) : std::string(r.user_name);
  j.user_name = arena.Store(user);
  if (!r.array_hex.empty()) {
    static std::mutex xlate_mu;  // xlate and reason tables are plain C
    std::lock_guard lock(xlate_mu);
    char* s = xstrndup(r.array_hex.data(), r.array_hex.size());
    xlate_array_task_str(&s, r.array_max_tasks, nullptr);
    j.array_task_string = StoreOwned(arena, s);
  }
  // uid_to_string()'s fallback. Both arms are views: a mixed ternary
  // would build a temporary std::string and leave it dangling.
  const std::string_view stdio_user =
      user.empty() ? std::string_view("nobody") : std::string_view(user);
  // Expanding the patterns was most of a 26.05.3 collection's work off the
  // locks (docs/performance.md, "Render cost that follows change"); a job
  // whose every input is what it was last time gets last time's paths.
  stdio_inputs = StdioInputs(j, r, stdio_user);
  // Where this job was last time: the place the last one found was at,
  // shifted alike.
  size_t at = static_cast<size_t>(static_cast<ptrdiff_t>(k) + shift);
  const Job* same = last ? last->Find(at, j.id, stdio_inputs) : nullptr;
  if (same) shift = static_cast<ptrdiff_t>(at) - static_cast<ptrdiff_t>(k);
  if (same) {
    j.std_out = arena.Store(same->std_out);
    j.std_err = arena.Store(same->std_err);
    ++reused;
  } else {
    ExpandPaths(j, r, arena, stdio_user);
  }
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
  CopyContext ctx{Now(), GpuTresPosition()};
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
  size_t reused = 0;
  ptrdiff_t shift = 0;
  for (size_t k = 0; k < c.count; ++k) {
    Fingerprint inputs;
    DeriveJob(snap.jobs[k], c.raws[k], c, snap.arena, users_, last.get(), shift, k,
              inputs, reused);
    memo->entries[k] = {snap.jobs[k].id, inputs};
  }
  debug("soperator: StdOut/StdErr of %lu of %lu job(s) taken from the last "
        "collection", static_cast<unsigned long>(reused),
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
