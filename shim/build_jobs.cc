// SPDX-License-Identifier: GPL-2.0-or-later
// job_list: job_record_t and its details as slurmctld's job_mgr.c holds
// them, so that the plugin's pack_job()-like reading gives back the dump.
#include <algorithm>

#include "builders.h"
#include "families/accounting/node_gres.h"
#include "families/soperator/soperator_jobs.h"

extern "C" {
#include "src/common/hostlist.h"
#include "src/common/job_resources.h"
}

namespace shim {
namespace {

void FreeJobGres(void* x) {
  auto* gs = static_cast<gres_state_t*>(x);
  if (auto* js = static_cast<gres_job_state_t*>(gs->gres_data))
    xfree(js->type_name);
  xfree(gs->gres_name);
  xfree(gs->gres_data);
  xfree(gs);
}

void FreeJob(void* x) {
  auto* j = static_cast<job_record_t*>(x);
  xfree(j->name);
  xfree(j->partition);
  xfree(j->account);
  xfree(j->user_name);
  xfree(j->mail_user);
  xfree(j->state_desc);
  xfree(j->nodes);
  FREE_NULL_BITMAP(j->node_bitmap);
  FREE_NULL_BITMAP(j->node_bitmap_cg);
  xfree(j->tres_fmt_alloc_str);
  xfree(j->tres_fmt_req_str);
  xfree(j->tres_alloc_cnt);
  if (j->gres_list_alloc) list_destroy(j->gres_list_alloc);
  if (j->job_resrcs) free_job_resources(&j->job_resrcs);
  if (j->array_recs) {
    FREE_NULL_BITMAP(j->array_recs->task_id_bitmap);
    xfree(j->array_recs->task_id_str);
    xfree(j->array_recs);
  }
  if (j->details) {
    xfree(j->details->work_dir);
    xfree(j->details->std_out);
    xfree(j->details->std_err);
    xfree(j->details);
  }
  xfree(j);
}

// Whether every bracket of `list` holds only a range's digits, '-' and
// ','. 22.05's hostlist_create() leaks a copy of a range it cannot parse
// (_parse_single_range() returns without freeing it; the ASan shim suite's
// leak check, case jobs_bad_hostlist), so such a list is refused first.
bool RangesParse(const std::string& list) {
  bool in_bracket = false;
  for (char ch : list) {
    if (ch == '[') in_bracket = true;
    else if (ch == ']') in_bracket = false;
    else if (in_bracket && !((ch >= '0' && ch <= '9') || ch == '-' || ch == ','))
      return false;
  }
  return true;
}

// "node[1-3],gpu7" -> node slots; `all_found` tells whether every host is
// in the table.
std::vector<int> ResolveHosts(const std::string& list, const NodeTable& nodes,
                              bool& all_found) {
  std::vector<int> out;
  all_found = true;
  if (list.empty()) return out;
  if (!RangesParse(list)) {
    all_found = false;
    return out;
  }
  auto hl = hostlist_create(list.c_str());
  if (!hl) {
    all_found = false;
    return out;
  }
  while (char* host = hostlist_shift(hl)) {
    const auto it = nodes.slot.find(host);
    if (it == nodes.slot.end()) all_found = false;
    else out.push_back(it->second);
    free(host);
  }
  hostlist_destroy(hl);
  return out;
}

// Who, where, what: the job's own fields and its details' strings.
void FillIdentity(const JobIn& in, const PartitionTable& parts, job_record_t* job) {
  auto* d = job->details;
  const std::string& w = in.where;
  job->job_id = static_cast<uint32_t>(in.job_id);
#if SM_SLURM_AT_LEAST(25, 11)
  // 25.11's record leads with its step id (job_mgr.c sets job_id there
  // too; the SLUID stays 0 here: no slurmdbd numbers the shim's jobs).
  job->step_id = SLURM_STEP_ID_INITIALIZER;
  job->step_id.job_id = job->job_id;
#endif
  job->name = Dup(in.name);
  job->partition = Dup(in.partition);
  // slurmctld holds a pending job against one of its partitions; the
  // first one requested stands in.
  const auto it = parts.find(in.partition.substr(0, in.partition.find(',')));
  job->part_ptr = it == parts.end() ? nullptr : it->second;
  job->account = Dup(in.account);
  job->user_id = Fit<uint32_t>(w, "user_id", in.user_id);
  job->group_id = job->user_id;
  if (in.user_name && !in.user_name->empty()) job->user_name = xstrdup(in.user_name->c_str());
  // Slurm sets mail_user to the user name at submission when none is
  // given; 22.05's JSON does not print it.
  if (in.mail_user) job->mail_user = Dup(*in.mail_user);
  else if (in.user_name) job->mail_user = Dup(*in.user_name);
  job->batch_flag = in.batch ? 1 : 0;
  d->work_dir = Dup(in.work_dir);
  d->std_out = Dup(in.std_out);
  d->std_err = Dup(in.std_err);
#if SM_SLURM_AT_LEAST(25, 11)
  // From 25.11 on slurmctld stores the default pattern of a batch job
  // without -o at submission (job_mgr.c, DEFAULT_BATCH_STDOUT_PATH), and
  // none for -e: a dump of an older release, or scontrol's --json (which
  // prints only the expanded paths), carries no pattern at all.
  if (in.batch && in.std_out.empty()) {
    xfree(d->std_out);
    d->std_out = xstrdup(in.array_job_id.or_else(0) > 0 ? "slurm-%A_%a.out"
                                                         : "slurm-%j.out");
  }
#endif
  d->submit_time = in.submit_time.or_else(0);
  job->priority = in.priority.has() ? Fit<uint32_t>(w, "priority", in.priority.value) : 1;
  job->time_limit = Minutes(in.time_limit, w, "time_limit");
  // Times as pack_job() shows them back: started jobs carry their own, a
  // pending job's estimate goes through the same max() again.
  job->start_time = in.start_time.or_else(0);
  job->end_time = in.end_time.or_else(0);
}

// CPUs, nodes and memory as requested and as packed back.
void FillSizes(const JobIn& in, job_record_t* job) {
  auto* d = job->details;
  const std::string& w = in.where;
  const uint32_t cpus = Fit<uint32_t>(w, "cpus", in.cpus.or_else(0));
  job->total_cpus = cpus;
  job->cpu_cnt = cpus;
  d->min_cpus = cpus;
  d->max_cpus = NO_VAL;
  const uint32_t node_count = Fit<uint32_t>(w, "node_count", in.node_count.or_else(0));
  job->total_nodes = node_count;
  job->node_cnt = node_count;
  d->min_nodes = node_count;
  d->max_nodes = in.max_nodes.has() ? Fit<uint32_t>(w, "max_nodes", in.max_nodes.value) : 0;
  if (in.memory_per_cpu.has())
    d->pn_min_memory = Fit<uint64_t>(w, "memory_per_cpu", in.memory_per_cpu.value) | MEM_PER_CPU;
  else if (in.memory_per_node.has())
    d->pn_min_memory = Fit<uint64_t>(w, "memory_per_node", in.memory_per_node.value);
  if (d->pn_min_memory != 0 && (d->pn_min_memory & ~MEM_PER_CPU) >= MEM_PER_CPU)
    Unrepresentable(w, "memory_per_node/memory_per_cpu too large");
}

// The task bitmap of an array's task list "1-5,7,10-20:2" (the part before
// '%'); null when it is not one.
bitstr_t* TaskBitmap(const std::string& spec) {
  bitstr_t* tasks = bit_alloc(1);
  size_t pos = 0;
  while (pos < spec.size()) {
    size_t comma = spec.find(',', pos);
    if (comma == std::string::npos) comma = spec.size();
    const std::string item = spec.substr(pos, comma - pos);
    pos = comma + 1;
    unsigned long a = 0, b = 0, step = 1;
    char* e = nullptr;
    a = strtoul(item.c_str(), &e, 10);
    bool ok = e != item.c_str();
    b = a;
    if (ok && *e == '-') {
      const char* s2 = e + 1;
      b = strtoul(s2, &e, 10);
      ok = e != s2;
      if (ok && *e == ':') {
        const char* s3 = e + 1;
        step = strtoul(s3, &e, 10);
        ok = e != s3 && step != 0;
      }
    }
    if (!ok || *e != '\0' || b < a || b > 4000000) {
      FREE_NULL_BITMAP(tasks);
      return nullptr;
    }
    if (static_cast<bitoff_t>(b) >= bit_size(tasks)) tasks = bit_realloc(tasks, b + 1);
    for (unsigned long t = a; t <= b; t += step) bit_set(tasks, t);
  }
  return tasks;
}

// Arrays: a task record has its id; a pending meta record shows its
// remaining tasks (array_recs).
void FillArray(const JobIn& in, job_record_t* job) {
  const std::string& w = in.where;
  job->array_job_id = Fit<uint32_t>(w, "array_job_id", in.array_job_id.or_else(0));
  job->array_task_id = in.array_task_id.has()
                           ? Fit<uint32_t>(w, "array_task_id", in.array_task_id.value)
                           : NO_VAL;
  if (job->array_task_id != NO_VAL || in.array_task_string.empty()) return;
  std::string spec = in.array_task_string;
  uint32_t max_run = 0;
  if (const size_t pct = spec.find('%'); pct != std::string::npos) {
    max_run = static_cast<uint32_t>(strtoul(spec.c_str() + pct + 1, nullptr, 10));
    spec.resize(pct);
  }
  if (in.array_max_tasks > 0) max_run = static_cast<uint32_t>(in.array_max_tasks);
  bitstr_t* tasks = TaskBitmap(spec);
  if (!tasks)
    Unrepresentable(w + ".array_task_string",
                    "\"" + in.array_task_string +
                        "\" is not a task list such as 1-5,7,10-20:2%4");
  job->array_recs = static_cast<job_array_struct_t*>(xmalloc(sizeof(job_array_struct_t)));
  job->array_recs->task_id_bitmap = tasks;
  job->array_recs->task_cnt = static_cast<uint32_t>(bit_set_count(tasks));
  job->array_recs->max_run_tasks = max_run;
}

// The allocated node list and bitmap; returns the slots.
std::vector<int> FillNodes(const JobIn& in, const NodeTable& nodes, job_record_t* job) {
  // slurmctld keeps no string for a job without nodes.
  const std::string list(sm::AssignedNodeList(in.nodes));
  job->nodes = Dup(list);
  bool all_found = true;
  std::vector<int> slots = ResolveHosts(list, nodes, all_found);
  if (!slots.empty()) {
    job->node_bitmap = NewNodeBitmap();
    for (int s : slots) bit_set(job->node_bitmap, s);
  }
  // A completing job shows the nodes it still completes on
  // (bitmap2node_name(node_bitmap_cg)); keep the string when the hosts are
  // not all in the table.
  if ((job->job_state & JOB_COMPLETING) && job->node_bitmap && all_found)
    job->node_bitmap_cg = bit_copy(job->node_bitmap);
  return slots;
}

void FillTres(const JobIn& in, job_record_t* job) {
  job->tres_fmt_alloc_str = Dup(in.tres_alloc);
  job->tres_fmt_req_str = Dup(in.tres_req);
  if (in.tres_alloc.empty()) return;
  const TresCounts t = CountTres(in.tres_alloc, in.where + ".tres_alloc_str");
  // As long as assoc_mgr's TRES table (build_qos.cc), as in slurmctld;
  // the built-in TRES when there is none.
  const uint32_t count = std::max<uint32_t>(TRES_ARRAY_TOTAL_CNT, g_tres_count);
  job->tres_alloc_cnt = static_cast<uint64_t*>(xcalloc(count, sizeof(uint64_t)));
  job->tres_alloc_cnt[TRES_ARRAY_CPU] = static_cast<uint64_t>(std::max<int64_t>(0, t.cpus));
  job->tres_alloc_cnt[TRES_ARRAY_MEM] = static_cast<uint64_t>(std::max<int64_t>(0, t.mem_mb));
  job->tres_alloc_cnt[TRES_ARRAY_NODE] = job->node_cnt;
  if (const int gpu = sm::slurm::GpuTresPosition(); gpu >= 0)
    job->tres_alloc_cnt[gpu] = static_cast<uint64_t>(std::max<int64_t>(0, t.gpus));
}

// A job GRES entry of this name and type ("" untyped).
struct GresKey {
  const std::string* name;
  const std::string* type;
};

int MatchGres(void* x, void* arg) {
  auto* gs = static_cast<gres_state_t*>(x);
  auto* key = static_cast<GresKey*>(arg);
  auto* js = static_cast<gres_job_state_t*>(gs->gres_data);
  return *key->name == gs->gres_name &&
         *key->type == (js->type_name ? js->type_name : "");
}

// gres_list_alloc as gres_ctld_job_alloc() leaves it: one entry per GRES
// name and type, total_gres summed over the nodes, from the per-node
// strings `scontrol show job -d` prints (gres_detail).
void FillGres(const JobIn& in, job_record_t* job) {
  for (const std::string& detail : in.gres_detail) {
    for (const sm::GresCount& g : sm::ParseGresCounts(detail)) {
      const size_t colon = g.type.find(':');
      const std::string name(g.type.substr(0, colon));
      const std::string type =
          colon == std::string_view::npos ? "" : std::string(g.type.substr(colon + 1));
      if (!job->gres_list_alloc) job->gres_list_alloc = list_create(FreeJobGres);
      GresKey key{&name, &type};
      auto* found = static_cast<gres_state_t*>(
          list_find_first(job->gres_list_alloc, MatchGres, &key));
      if (!found) {
        found = static_cast<gres_state_t*>(xmalloc(sizeof(gres_state_t)));
        found->plugin_id = gres_build_id(const_cast<char*>(name.c_str()));
        found->gres_name = xstrdup(name.c_str());
        found->state_type = GRES_STATE_TYPE_JOB;
        auto* js = static_cast<gres_job_state_t*>(xmalloc(sizeof(gres_job_state_t)));
        js->type_name = type.empty() ? nullptr : xstrdup(type.c_str());
        found->gres_data = js;
        list_append(job->gres_list_alloc, found);
      }
      static_cast<gres_job_state_t*>(found->gres_data)->total_gres += g.count;
    }
  }
}

// What a running or suspended job holds per node: its job_resources when
// the dump has them, else its TRES spread evenly over its nodes.
JobAlloc AllocationOf(const JobIn& in, const NodeTable& nodes,
                      const std::vector<int>& slots, job_record_t* job) {
  JobAlloc a;
  a.job = job;
  a.running = (job->job_state & JOB_STATE_BASE) == JOB_RUNNING;
  if (in.alloc) {
    for (const AllocIn& x : *in.alloc) {
      const auto it = nodes.slot.find(x.node);
      if (it == nodes.slot.end()) continue;
      auto& e = a.per_node[it->second];
      e.first += x.cpus;
      e.second += x.memory_mb;
    }
  } else if (!slots.empty()) {
    const TresCounts t = CountTres(in.tres_alloc, in.where + ".tres_alloc_str");
    const int64_t c = t.cpus > 0 ? t.cpus : job->total_cpus;
    const int64_t m = t.mem_mb;
    const int64_t ns = static_cast<int64_t>(slots.size());
    for (size_t s = 0; s < slots.size(); ++s) {
      auto& e = a.per_node[slots[s]];
      e.first += c / ns + (static_cast<int64_t>(s) < c % ns ? 1 : 0);
      e.second += m / ns + (static_cast<int64_t>(s) < m % ns ? 1 : 0);
    }
  }
  return a;
}

}  // namespace

std::vector<JobAlloc> BuildJobs(const std::vector<JobIn>& jobs,
                                const std::vector<uint32_t>& states,
                                const std::vector<uint32_t>& reasons,
                                const NodeTable& nodes,
                                const PartitionTable& partitions) {
  job_list = list_create(FreeJob);
  std::vector<JobAlloc> allocs;
  for (size_t k = 0; k < jobs.size(); ++k) {
    const JobIn& in = jobs[k];
    // In job_list before it is filled: FreeJobs() frees a half-built one.
    auto* job = static_cast<job_record_t*>(xmalloc(sizeof(job_record_t)));
    job->details = static_cast<decltype(job->details)>(xmalloc(sizeof(*job->details)));
    list_append(job_list, job);
    job->magic = JOB_MAGIC;
    job->details->magic = DETAILS_MAGIC;
    job->job_state = states[k];
    job->state_reason = reasons[k];
    job->state_desc = Dup(in.state_description);
    FillIdentity(in, partitions, job);
    FillSizes(in, job);
    FillArray(in, job);
    const std::vector<int> slots = FillNodes(in, nodes, job);
    FillTres(in, job);
    FillGres(in, job);
    const uint32_t base = job->job_state & JOB_STATE_BASE;
    if (base == JOB_RUNNING || base == JOB_SUSPENDED)
      allocs.push_back(AllocationOf(in, nodes, slots, job));
  }
  return allocs;
}

void FreeJobs() { DestroyList(job_list); }

}  // namespace shim
