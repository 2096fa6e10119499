// SPDX-License-Identifier: GPL-2.0-or-later
// Nodes, jobs and partitions (record_fields.h), with the quirks of the
// dialects that print them differently.
#include <sstream>

#include "record_fields.h"

namespace shim::fields {

using namespace reader;

namespace {

// ---- Node quirks ---------------------------------------------------------------

// openapi v0.0.38 (22.05): "state": "idle" plus "state_flags": [...].
void NodeState(const json& n, const At& at, NodeIn& out) {
  out.state = StateWords(n, "state", at, "the node state (a list of state words)");
  if (Find(n, "state")->is_string())
    if (const json* f = Find(n, "state_flags"))
      for (std::string& s : StrArray(*f, at.Key("state_flags"), "a list of strings"))
        out.state.push_back(Upper(std::move(s)));
}

// openapi v0.0.38 prints a node's partitions as one comma-separated string.
void NodePartitions(const json& n, const At& at, NodeIn& out) {
  const json* p = Find(n, "partitions");
  if (!p) return;
  if (!p->is_string()) {
    out.partitions = StrArray(*p, at.Key("partitions"), "a list of partition names");
    return;
  }
  std::stringstream ss(Str(n, "partitions", at));
  for (std::string part; std::getline(ss, part, ',');)
    if (!part.empty()) out.partitions.push_back(part);
}

// 22.05 names it free_memory and prints the uint64 as a signed int:
// NO_VAL64 is -2.
void FreeMem(const json& n, const At& at, NodeIn& out) {
  if (Find(n, "free_mem")) {
    out.free_mem = N(n, "free_mem", at);
    return;
  }
  out.free_mem = N(n, "free_memory", at);
  if (out.free_mem.has() && out.free_mem.value < 0) out.free_mem = {Num::kUnset, 0};
}

// ---- Job quirks ----------------------------------------------------------------

void JobId(const json& j, const At& at, JobIn& out) {
  out.job_id = RequiredInt(j, "job_id", at, "the job id (an integer)");
  if (out.job_id <= 0 || out.job_id > 0xFFFFFFFDLL)
    throw InputError(at.Key("job_id").str() + ": " + std::to_string(out.job_id) +
                     " is out of range; expected a job id from 1 to 4294967293");
}

void JobState(const json& j, const At& at, JobIn& out) {
  out.state = StateWords(j, "job_state", at, "the job state (a list of state words)");
}

// null leaves the model's "None", as slurmctld's default reason.
void StateReason(const json& j, const At& at, JobIn& out) {
  if (const json* r = Find(j, "state_reason"); r && !r->is_null())
    out.state_reason = Str(j, "state_reason", at);
}

// v0.0.38-v0.0.40: allocated_nodes[] with a socket/core map; a node
// without a cpus count counts its allocated cores (controller.cc reconciles
// them with the node).
AllocIn OldAllocatedNode(const json& a, const At& e) {
  RequireObject(a, e, "an allocated node object");
  AllocIn x;
  x.node = Str(a, "nodename", e);
  x.memory_mb = N(a, "memory_allocated", e).or_else(0);
  if (const json* c = Find(a, "cpus")) {
    x.cpus = c->is_number() ? AsInt(*c, e.Key("cpus"), "an integer") : 0;
    return x;
  }
  const json* s = Find(a, "sockets");
  if (!s || !s->is_object()) return x;
  for (const auto& [sock, sv] : s->items()) {
    const json* cores = sv.is_object() ? Find(sv, "cores") : nullptr;
    if (!cores || !cores->is_object()) continue;
    for (const auto& [core, cv] : cores->items())
      if (cv.is_string() && cv.get_ref<const std::string&>().find("allocated") == 0) ++x.cpus;
  }
  return x;
}

void ReadJobResources(const json& j, const At& job_at, JobIn& out) {
  const json* r = Find(j, "job_resources");
  if (!r || r->is_null()) return;
  const At at = job_at.Key("job_resources");
  RequireObject(*r, at, "a job_resources object");
  std::vector<AllocIn>& alloc = out.alloc.emplace();
  if (const json* nodes = Find(*r, "nodes"); nodes && nodes->is_object()) {
    ForEachIfAny(Find(*nodes, "allocation"), at.Key("nodes").Key("allocation"),
                 "a list of node allocations", [&](const json& a, const At& e) {
                   RequireObject(a, e, "a node allocation object");
                   ReadFields(a, e, AllocFields(), alloc.emplace_back());
                 });
    return;
  }
  ForEachIfAny(Find(*r, "allocated_nodes"), at.Key("allocated_nodes"),
               "a list of allocated nodes",
               [&](const json& a, const At& e) { alloc.push_back(OldAllocatedNode(a, e)); });
}

// v0.0.41+'s job_resources: one entry per node with its CPUs and memory.
void WriteJobResources(Object& o, std::string_view key, const JobIn& j,
                       const WriteContext& c) {
  if (!j.alloc) return;
  Object resources(o.Member(key));
  Object nodes(resources.Member("nodes"));
  nodes.Int("count", static_cast<int64_t>(j.alloc->size()));
  nodes.Str("list", j.nodes);
  std::string& list = nodes.Member("allocation");
  list += '[';
  for (size_t i = 0; i < j.alloc->size(); ++i) {
    if (i) list += ',';
    Object e(list);
    e.Int("index", static_cast<int64_t>(i));
    WriteFields(e, AllocFields(), (*j.alloc)[i], c);
  }
  list += ']';
}

}  // namespace

const std::vector<Field<NodeIn>>& NodeFields() {
  static const std::vector<Field<NodeIn>> f = {
      Row("name", &NodeIn::name).Required("the node name (a string)"),
      Row("state", &NodeIn::state).ReadWith(NodeState),
      Row("address", &NodeIn::address),
      Row("hostname", &NodeIn::hostname),
      Row("comment", &NodeIn::comment),
      Row("reason", &NodeIn::reason),
      Struct("reason_changed_at", &NodeIn::reason_time),
      Row("instance_id", &NodeIn::instance_id),
      Row("reservation", &NodeIn::reservation),
      Row("partitions", &NodeIn::partitions).ReadWith(NodePartitions),
      Plain("cpus", &NodeIn::cpus),
      Plain("effective_cpus", &NodeIn::effective_cpus),
      Plain("alloc_cpus", &NodeIn::alloc_cpus),
      Plain("cores", &NodeIn::cores),
      Plain("sockets", &NodeIn::sockets),
      Plain("threads", &NodeIn::threads),
      Plain("real_memory", &NodeIn::real_memory),
      Plain("alloc_memory", &NodeIn::alloc_memory),
      Plain("specialized_memory", &NodeIn::specialized_memory),
      Struct("free_mem", &NodeIn::free_mem).ReadWith(FreeMem),
      Row("tres", &NodeIn::tres),
      Row("tres_used", &NodeIn::tres_used),
      // Read only: generate's nodes carry no reading (docs/shim.md,
      // "Adding a field").
      Struct("energy.current_watts", &NodeIn::energy_current_watts).ReadOnly(),
      Plain("energy.average_watts", &NodeIn::energy_average_watts).ReadOnly(),
      Plain("energy.consumed_energy", &NodeIn::energy_consumed).ReadOnly(),
      Plain("energy.last_collected", &NodeIn::energy_last_collected).ReadOnly(),
  };
  return f;
}

const std::vector<Field<JobIn>>& JobFields() {
  static const std::vector<Field<JobIn>> f = {
      Plain("job_id", &JobIn::job_id).ReadWith(JobId),
      Row("name", &JobIn::name),
      Row("job_state", &JobIn::state).ReadWith(JobState),
      Row("state_reason", &JobIn::state_reason).ReadWith(StateReason),
      Row("state_description", &JobIn::state_description).ReadOnly(),
      Row("partition", &JobIn::partition),
      Row("account", &JobIn::account),
      Plain("user_id", &JobIn::user_id),
      Row("user_name", &JobIn::user_name),
      Row("mail_user", &JobIn::mail_user),
      Row("standard_output", &JobIn::std_out),
      Row("standard_error", &JobIn::std_err),
      Row("current_working_directory", &JobIn::work_dir),
      Row("batch_flag", &JobIn::batch),
      Row("nodes", &JobIn::nodes),
      Struct("node_count", &JobIn::node_count),
      Struct("cpus", &JobIn::cpus),
      Struct("memory_per_node", &JobIn::memory_per_node),
      Struct("memory_per_cpu", &JobIn::memory_per_cpu),
      Struct("array_job_id", &JobIn::array_job_id),
      Struct("array_task_id", &JobIn::array_task_id),
      Row("array_task_string", &JobIn::array_task_string),
      Struct("array_max_tasks", &JobIn::array_max_tasks),
      Struct("submit_time", &JobIn::submit_time),
      Struct("start_time", &JobIn::start_time),
      Struct("end_time", &JobIn::end_time),
      Struct("time_limit", &JobIn::time_limit),
      Struct("priority", &JobIn::priority),
      Row("tres_alloc_str", &JobIn::tres_alloc),
      Row("tres_req_str", &JobIn::tres_req),
      Struct("max_nodes", &JobIn::max_nodes),
      Row("gres_detail", &JobIn::gres_detail)
          .What("a list of GRES strings (gpu:a100:1(IDX:0))")
          .ReadOnly(),
      Computed<JobIn>("job_resources", WriteJobResources).ReadWith(ReadJobResources),
  };
  return f;
}

const std::vector<Field<AllocIn>>& AllocFields() {
  static const std::vector<Field<AllocIn>> f = {
      Row("name", &AllocIn::node),
      Plain("cpus.count|cpus", &AllocIn::cpus),
      Plain("memory.allocated|memory_allocated", &AllocIn::memory_mb),
  };
  return f;
}

const std::vector<Field<PartitionIn>>& PartitionFields() {
  static const std::vector<Field<PartitionIn>> f = {
      Row("name", &PartitionIn::name).Required("the partition name"),
      Struct("maximums.time|max_time", &PartitionIn::max_time),
      Struct("maximums.nodes|max_nodes", &PartitionIn::max_nodes),
  };
  return f;
}

}  // namespace shim::fields
