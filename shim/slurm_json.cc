// SPDX-License-Identifier: GPL-2.0-or-later
#include "slurm_json.h"

#include <cerrno>
#include <cstring>
#include <fstream>

#include "input.h"

namespace shim {
namespace {

// data_parser's {"set", "infinite", "number"}: how v0.0.40+ prints numbers
// that may be unset or infinite (times, limits, counts of a request).
ordered_json Struct(const Num& n) {
  return {{"set", n.has()},
          {"infinite", n.kind == Num::kInfinite},
          {"number", n.has() ? n.value : 0}};
}

// Absent stays absent; the reader then sees what a dump without the key
// says.
void PutStruct(ordered_json& o, const char* key, const Num& n) {
  if (n.kind != Num::kAbsent) o[key] = Struct(n);
}

// Plain integers (node sizes, ids, sdiag counters): Slurm prints no unset
// form for them, so only a value is written.
void PutPlain(ordered_json& o, const char* key, const Num& n) {
  if (n.has()) o[key] = n.value;
}

// sdiag's timestamps are the only statistics printed as numbers with a
// set flag.
bool DiagTimestamp(const std::string& key) {
  return key == "req_time" || key == "req_time_start" || key == "job_states_ts" ||
         key == "bf_when_last_cycle";
}

ordered_json Meta(const char* command, const std::string& cluster) {
  return {
      {"plugin",
       {{"type", ""}, {"name", ""}, {"data_parser", "data_parser/v0.0.45"},
        {"accounting_storage", ""}}},
      {"client", {{"source", "soperator-metrics-shim"}, {"user", "root"}, {"group", "root"}}},
      {"command", {command}},
      {"slurm",
       {{"version", {{"major", "26"}, {"micro", "3"}, {"minor", "05"}}},
        {"release", "26.05.3"},
        {"cluster", cluster}}},
  };
}

// What slurmctld puts around every response: meta, last_update, errors.
ordered_json Envelope(const char* command, const std::string& cluster, int64_t now) {
  return {{"meta", Meta(command, cluster)},
          {"last_update", Struct(Num::Of(now))},
          {"errors", ordered_json::array()},
          {"warnings", ordered_json::array()}};
}

// Strings the model kept byte for byte (Slurm copies node reasons and job
// names unchecked) are not UTF-8: they come out with U+FFFD, as valid JSON.
std::string Dump(const ordered_json& j) {
  return j.dump(-1, ' ', false, ordered_json::error_handler_t::replace);
}

class File {
 public:
  explicit File(const std::string& path) : path_(path), f_(path, std::ios::binary) {
    if (!f_) throw InputError(path + ": cannot write: " + std::strerror(errno));
  }
  void Put(std::string_view s) { f_.write(s.data(), static_cast<std::streamsize>(s.size())); }
  void Close() {
    f_.close();
    if (!f_) throw InputError(path_ + ": write error");
  }

 private:
  std::string path_;
  std::ofstream f_;
};

// {"KEY": [records...], <envelope's members>}: the records one by one.
template <typename T, typename ToJson>
void WriteArrayDocument(const std::string& path, const char* key,
                        const std::vector<T>& records, ToJson to_json,
                        const ordered_json& envelope) {
  File f(path);
  f.Put("{" + Dump(key) + ":[");
  for (size_t i = 0; i < records.size(); ++i) {
    if (i) f.Put(",");
    f.Put(Dump(to_json(records[i])));
  }
  const std::string rest = Dump(envelope);  // "{...}": its members follow ours
  f.Put("],");
  f.Put(std::string_view(rest).substr(1));
  f.Put("\n");
  f.Close();
}

}  // namespace

ordered_json NodeJson(const NodeIn& n) {
  ordered_json o;
  o["name"] = n.name;
  o["state"] = n.state;
  o["address"] = n.address;
  o["hostname"] = n.hostname;
  o["comment"] = n.comment;
  o["reason"] = n.reason;
  o["reason_changed_at"] = Struct(Num::Of(n.reason_time));
  o["instance_id"] = n.instance_id;
  o["reservation"] = n.reservation;
  o["partitions"] = n.partitions;
  PutPlain(o, "cpus", n.cpus);
  PutPlain(o, "effective_cpus", n.effective_cpus);
  PutPlain(o, "alloc_cpus", n.alloc_cpus);
  PutPlain(o, "cores", n.cores);
  PutPlain(o, "sockets", n.sockets);
  PutPlain(o, "threads", n.threads);
  PutPlain(o, "real_memory", n.real_memory);
  PutPlain(o, "alloc_memory", n.alloc_memory);
  PutPlain(o, "specialized_memory", n.specialized_memory);
  PutStruct(o, "free_mem", n.free_mem);
  o["tres"] = n.tres;
  o["tres_used"] = n.tres_used;
  return o;
}

namespace {

// v0.0.41+'s job_resources: one entry per node with its CPUs and memory.
ordered_json Allocation(const JobIn& j) {
  ordered_json nodes = ordered_json::array();
  for (size_t i = 0; i < j.alloc->size(); ++i) {
    const AllocIn& a = (*j.alloc)[i];
    nodes.push_back({{"index", i},
                     {"name", a.node},
                     {"cpus", {{"count", a.cpus}}},
                     {"memory", {{"allocated", a.memory_mb}}}});
  }
  return {{"nodes", {{"count", j.alloc->size()}, {"list", j.nodes}, {"allocation", nodes}}}};
}

}  // namespace

ordered_json JobJson(const JobIn& j) {
  ordered_json o;
  o["job_id"] = j.job_id;
  o["name"] = j.name;
  o["job_state"] = j.state;
  o["state_reason"] = j.state_reason;
  o["partition"] = j.partition;
  o["account"] = j.account;
  o["user_id"] = j.user_id;
  if (j.user_name) o["user_name"] = *j.user_name;
  if (j.mail_user) o["mail_user"] = *j.mail_user;
  o["standard_output"] = j.std_out;
  o["standard_error"] = j.std_err;
  o["current_working_directory"] = j.work_dir;
  o["batch_flag"] = j.batch;
  o["nodes"] = j.nodes;
  PutStruct(o, "node_count", j.node_count);
  PutStruct(o, "cpus", j.cpus);
  PutStruct(o, "memory_per_node", j.memory_per_node);
  PutStruct(o, "memory_per_cpu", j.memory_per_cpu);
  PutStruct(o, "array_job_id", j.array_job_id);
  PutStruct(o, "array_task_id", j.array_task_id);
  o["array_task_string"] = j.array_task_string;
  o["array_max_tasks"] = Struct(Num::Of(j.array_max_tasks));
  PutStruct(o, "submit_time", j.submit_time);
  PutStruct(o, "start_time", j.start_time);
  PutStruct(o, "end_time", j.end_time);
  PutStruct(o, "time_limit", j.time_limit);
  PutStruct(o, "priority", j.priority);
  o["tres_alloc_str"] = j.tres_alloc;
  o["tres_req_str"] = j.tres_req;
  PutStruct(o, "max_nodes", j.max_nodes);
  if (j.alloc) o["job_resources"] = Allocation(j);
  return o;
}

ordered_json PartitionJson(const PartitionIn& p) {
  ordered_json maximums = ordered_json::object();
  PutStruct(maximums, "time", p.max_time);
  PutStruct(maximums, "nodes", p.max_nodes);
  return {{"name", p.name}, {"maximums", maximums}};
}

ordered_json DiagJson(const DiagIn& d) {
  ordered_json s = ordered_json::object();
  PutPlain(s, "server_thread_count", d.server_thread_count);
  // values' "a.b" keys are members of sdiag's nested objects
  // (schedule_exit, bf_exit).
  for (const auto& [key, value] : d.values) {
    const size_t dot = key.find('.');
    if (dot != std::string::npos)
      s[key.substr(0, dot)][key.substr(dot + 1)] = value;
    else if (DiagTimestamp(key))
      s[key] = Struct(Num::Of(value));
    else
      s[key] = value;
  }
  ordered_json types = ordered_json::array();
  for (const RpcTypeIn& r : d.rpc_types) {
    ordered_json t;
    if (r.type_id) t["type_id"] = *r.type_id;
    t["message_type"] = r.message_type;
    t["count"] = r.count;
    t["total_time"] = r.total_time_us;
    types.push_back(std::move(t));
  }
  s["rpcs_by_message_type"] = std::move(types);
  ordered_json users = ordered_json::array();
  for (const RpcUserIn& u : d.rpc_users)
    users.push_back({{"user_id", u.user_id}, {"user", u.user}, {"count", u.count},
                     {"total_time", u.total_time_us}});
  s["rpcs_by_user"] = std::move(users);
  return s;
}

void WriteDumps(const ClusterIn& c, int64_t now, const std::string& dir) {
  const std::string& cluster = c.cluster_name;
  if (c.nodes)
    WriteArrayDocument(dir + "/nodes.json", "nodes", *c.nodes, NodeJson,
                       Envelope("scontrol show nodes --json", cluster, now));
  if (c.jobs)
    WriteArrayDocument(dir + "/jobs.json", "jobs", *c.jobs, JobJson,
                       Envelope("scontrol show jobs --json", cluster, now));
  if (c.partitions)
    WriteArrayDocument(dir + "/partitions.json", "partitions", *c.partitions, PartitionJson,
                       Envelope("scontrol show partitions --json", cluster, now));
  if (c.diag) {
    ordered_json doc = {{"statistics", DiagJson(*c.diag)}};
    doc.update(Envelope("sdiag --json", cluster, now));
    File f(dir + "/sdiag.json");
    f.Put(Dump(doc));
    f.Put("\n");
    f.Close();
  }
}

}  // namespace shim
