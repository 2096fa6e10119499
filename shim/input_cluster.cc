// SPDX-License-Identifier: GPL-2.0-or-later
// Nodes, jobs and partitions of Slurm's dumps into the model (input.h).
#include <algorithm>
#include <iterator>
#include <sstream>

#include "input_reader.h"

namespace shim {
namespace reader {

// ---- Nodes ------------------------------------------------------------------

NodeIn ParseNode(const json& n, const At& at, ClusterIn& state) {
  auto out = Named<NodeIn>(n, at, "a node object", "name", "the node name (a string)");

  out.state = StateWords(n, "state", at, "the node state (a list of state words)");
  // openapi v0.0.38: "state": "idle" plus "state_flags": [...].
  if (Find(n, "state")->is_string())
    if (const json* f = Find(n, "state_flags"))
      for (std::string& s : StrArray(*f, at.Key("state_flags"), "a list of strings"))
        out.state.push_back(Upper(std::move(s)));

  out.address = Str(n, "address", at);
  out.hostname = Str(n, "hostname", at);
  out.comment = Str(n, "comment", at);
  out.reason = Str(n, "reason", at);
  out.reason_time = N(n, "reason_changed_at", at).or_else(0);
  out.instance_id = Str(n, "instance_id", at);
  out.reservation = Str(n, "reservation", at);
  out.tres = Str(n, "tres", at);
  out.tres_used = Str(n, "tres_used", at);
  if (const json* p = Find(n, "partitions")) {
    if (p->is_string()) {
      std::string csv = Str(n, "partitions", at);
      std::stringstream ss(csv);
      for (std::string part; std::getline(ss, part, ',');)
        if (!part.empty()) out.partitions.push_back(part);
    } else {
      out.partitions = StrArray(*p, at.Key("partitions"), "a list of partition names");
    }
  }
  out.cpus = N(n, "cpus", at);
  out.effective_cpus = N(n, "effective_cpus", at);
  out.alloc_cpus = N(n, "alloc_cpus", at);
  out.real_memory = N(n, "real_memory", at);
  out.alloc_memory = N(n, "alloc_memory", at);
  if (Find(n, "free_mem")) {
    out.free_mem = N(n, "free_mem", at);
  } else {
    // 22.05 prints the uint64 as a signed int: NO_VAL64 is -2.
    out.free_mem = N(n, "free_memory", at);
    if (out.free_mem.has() && out.free_mem.value < 0) out.free_mem = {Num::kUnset, 0};
  }
  out.specialized_memory = N(n, "specialized_memory", at);
  out.cores = N(n, "cores", at);
  out.sockets = N(n, "sockets", at);
  out.threads = N(n, "threads", at);
  NoteEvent(state, {Num::kValue, out.reason_time});
  for (const char* k : {"last_busy", "boot_time", "slurmd_start_time"}) {
    const Num t = N(n, k, at);
    NoteEvent(state, t);
  }
  return out;
}

bool LooksLikeNode(const json& o) {
  return o.is_object() && o.contains("name") && o.contains("state") &&
         !o.contains("job_id");
}

bool LooksLikeJob(const json& o) {
  return o.is_object() && o.contains("job_id");
}

// ---- Jobs -------------------------------------------------------------------

namespace {

bool TerminalWord(const std::string& s) {
  static const char* const kTerminal[] = {
      "COMPLETED", "CANCELLED", "FAILED", "TIMEOUT", "NODE_FAIL", "PREEMPTED",
      "BOOT_FAIL", "DEADLINE", "OUT_OF_MEMORY"};
  return std::find_if(std::begin(kTerminal), std::end(kTerminal),
                      [&](const char* t) { return s == t; }) != std::end(kTerminal);
}

}  // namespace

std::optional<std::vector<AllocIn>> ParseAllocation(const json& j, const At& at) {
  if (j.is_null()) return std::nullopt;
  RequireObject(j, at, "a job_resources object");
  std::vector<AllocIn> out;
  const json* nodes = Find(j, "nodes");
  if (nodes && nodes->is_object()) {
    // v0.0.41+: nodes.allocation[] with cpus.count and memory.allocated.
    const json* alloc = Find(*nodes, "allocation");
    const At aat = at.Key("nodes").Key("allocation");
    if (!alloc || alloc->is_null()) return out;
    if (!alloc->is_array()) Expected(aat, "a list of node allocations", *alloc);
    for (size_t i = 0; i < alloc->size(); ++i) {
      const json& a = (*alloc)[i];
      const At e = aat.Index(i);
      RequireObject(a, e, "a node allocation object");
      AllocIn x;
      x.node = Str(a, "name", e);
      if (const json* c = Find(a, "cpus"); c && c->is_object())
        x.cpus = N(*c, "count", e.Key("cpus")).or_else(0);
      else
        x.cpus = N(a, "cpus", e).or_else(0);
      if (const json* m = Find(a, "memory"); m && m->is_object())
        x.memory_mb = N(*m, "allocated", e.Key("memory")).or_else(0);
      else
        x.memory_mb = N(a, "memory_allocated", e).or_else(0);
      out.push_back(std::move(x));
    }
    return out;
  }
  // v0.0.38-v0.0.40: allocated_nodes[] with a socket/core map.
  const json* an = Find(j, "allocated_nodes");
  if (!an || an->is_null()) return out;
  const At aat = at.Key("allocated_nodes");
  if (!an->is_array()) Expected(aat, "a list of allocated nodes", *an);
  for (size_t i = 0; i < an->size(); ++i) {
    const json& a = (*an)[i];
    const At e = aat.Index(i);
    RequireObject(a, e, "an allocated node object");
    AllocIn x;
    x.node = Str(a, "nodename", e);
    x.memory_mb = N(a, "memory_allocated", e).or_else(0);
    if (const json* c = Find(a, "cpus")) {
      x.cpus = c->is_number() ? AsInt(*c, e.Key("cpus"), "an integer") : 0;
    } else if (const json* s = Find(a, "sockets"); s && s->is_object()) {
      // Count allocated cores; controller.cc reconciles with the node.
      for (const auto& [sock, sv] : s->items()) {
        const json* cores = sv.is_object() ? Find(sv, "cores") : nullptr;
        if (!cores || !cores->is_object()) continue;
        for (const auto& [core, cv] : cores->items())
          if (cv.is_string() && cv.get_ref<const std::string&>().find("allocated") == 0)
            ++x.cpus;
      }
    }
    out.push_back(std::move(x));
  }
  return out;
}

JobIn ParseJob(const json& j, const At& at, ClusterIn& state, UserTable& users) {
  RequireObject(j, at, "a job object");
  JobIn out;
  out.where = at.str();
  out.job_id = RequiredInt(j, "job_id", at, "the job id (an integer)");
  if (out.job_id <= 0 || out.job_id > 0xFFFFFFFDLL)
    throw InputError(at.Key("job_id").str() + ": " + std::to_string(out.job_id) +
                     " is out of range; expected a job id from 1 to 4294967293");
  out.name = Str(j, "name", at);
  out.state = StateWords(j, "job_state", at, "the job state (a list of state words)");
  if (const json* r = Find(j, "state_reason"); r && !r->is_null())
    out.state_reason = Str(j, "state_reason", at);
  if (const json* d = Find(j, "state_description"); d && !d->is_null())
    out.state_description = Str(j, "state_description", at);
  out.partition = Str(j, "partition", at);
  out.account = Str(j, "account", at);
  out.user_id = N(j, "user_id", at).or_else(0);
  out.user_name = OptStr(j, "user_name", at);
  out.mail_user = OptStr(j, "mail_user", at);
  out.std_out = Str(j, "standard_output", at);
  out.std_err = Str(j, "standard_error", at);
  out.work_dir = Str(j, "current_working_directory", at);
  out.batch = N(j, "batch_flag", at).or_else(0) != 0;
  out.nodes = Str(j, "nodes", at);
  out.node_count = N(j, "node_count", at);
  out.cpus = N(j, "cpus", at);
  out.memory_per_node = N(j, "memory_per_node", at);
  out.memory_per_cpu = N(j, "memory_per_cpu", at);
  out.array_job_id = N(j, "array_job_id", at);
  out.array_task_id = N(j, "array_task_id", at);
  out.array_task_string = Str(j, "array_task_string", at);
  out.array_max_tasks = N(j, "array_max_tasks", at).or_else(0);
  out.submit_time = N(j, "submit_time", at);
  out.start_time = N(j, "start_time", at);
  out.end_time = N(j, "end_time", at);
  out.time_limit = N(j, "time_limit", at);
  out.priority = N(j, "priority", at);
  out.tres_alloc = Str(j, "tres_alloc_str", at);
  out.tres_req = Str(j, "tres_req_str", at);
  out.max_nodes = N(j, "max_nodes", at);
  if (const json* g = Find(j, "gres_detail"); g && !g->is_null())
    out.gres_detail = StrArray(*g, at.Key("gres_detail"),
                               "a list of GRES strings (gpu:a100:1(IDX:0))");
  if (const json* r = Find(j, "job_resources"))
    out.alloc = ParseAllocation(*r, at.Key("job_resources"));

  NoteEvent(state, out.submit_time);
  if (out.state[0] != "PENDING") NoteEvent(state, out.start_time);
  if (TerminalWord(out.state[0])) NoteEvent(state, out.end_time);
  NoteEvent(state, N(j, "last_sched_evaluation", at));
  if (out.user_name) {
    std::string& known = users[out.user_id];
    if (known.empty()) known = *out.user_name;
  }
  return out;
}

}  // namespace reader

using namespace reader;

namespace {

// ---- Partitions ---------------------------------------------------------------

PartitionIn ParsePartition(const json& p, const At& at) {
  auto out = Named<PartitionIn>(p, at, "a partition object", "name", "the partition name");
  if (const json* m = Find(p, "maximums"); m && m->is_object()) {
    out.max_time = N(*m, "time", at.Key("maximums"));
    out.max_nodes = N(*m, "nodes", at.Key("maximums"));
  } else {
    out.max_time = N(p, "max_time", at);
    out.max_nodes = N(p, "max_nodes", at);
  }
  return out;
}

}  // namespace

void AddNodes(const json& v, const At& at, ClusterIn& state) {
  if (!state.nodes) state.nodes.emplace();
  if (v.is_object()) {
    state.nodes->push_back(ParseNode(v, at, state));
    return;
  }
  if (!v.is_array()) Expected(at, "a list of node objects", v);
  state.nodes->reserve(state.nodes->size() + v.size());
  for (size_t i = 0; i < v.size(); ++i)
    state.nodes->push_back(ParseNode(v[i], at.Index(i), state));
}

void AddJobs(const json& v, const At& at, ClusterIn& state, UserTable& users) {
  if (!state.jobs) state.jobs.emplace();
  if (v.is_object()) {
    state.jobs->push_back(ParseJob(v, at, state, users));
    return;
  }
  if (!v.is_array()) Expected(at, "a list of job objects", v);
  state.jobs->reserve(state.jobs->size() + v.size());
  for (size_t i = 0; i < v.size(); ++i)
    state.jobs->push_back(ParseJob(v[i], at.Index(i), state, users));
}

void AddPartitions(const json& v, const At& at, ClusterIn& state) {
  if (!v.is_array()) Expected(at, "a list of partition objects", v);
  if (!state.partitions) state.partitions.emplace();
  for (size_t i = 0; i < v.size(); ++i)
    state.partitions->push_back(ParsePartition(v[i], at.Index(i)));
}

}  // namespace shim
