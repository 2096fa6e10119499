// SPDX-License-Identifier: GPL-2.0-or-later
#include "slurm_json.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "input.h"
#include "base/utf8.h"

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

// The accounting dumps are 24.11.5's (data_parser v0.0.42, the release of
// tests/fixtures/24.11.5-accounting): meta as its clients print it, argv
// after the command word included; scontrol's answers carry last_update
// first, sacctmgr's and sshare's none.
ordered_json Envelope2411(std::vector<std::string> argv, const std::string& cluster,
                          const int64_t* now) {
  ordered_json e = ordered_json::object();
  if (now) e["last_update"] = Struct(Num::Of(*now));
  e["meta"] = {
      {"plugin",
       {{"type", ""}, {"name", ""}, {"data_parser", "data_parser/v0.0.42"},
        {"accounting_storage", "accounting_storage/slurmdbd"}}},
      {"client", {{"source", ""}, {"user", "root"}, {"group", "root"}}},
      {"command", argv},
      {"slurm",
       {{"version", {{"major", "24"}, {"micro", "5"}, {"minor", "11"}}},
        {"release", "24.11.5"},
        {"cluster", cluster}}},
  };
  e["errors"] = ordered_json::array();
  e["warnings"] = ordered_json::array();
  return e;
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

// OPEN records... CLOSE <envelope's members>}: the records one by one,
// `write(out, record)` appending each to a buffer flushed every MiB. OPEN
// is `{"KEY":[` for a plain array document.
template <typename T, typename Write>
void WriteRecordsDocument(const std::string& path, const std::string& open,
                          const std::vector<T>& records, Write write, const std::string& close,
                          const ordered_json& envelope) {
  File f(path);
  std::string buf = open;
  for (size_t i = 0; i < records.size(); ++i) {
    if (i) buf += ',';
    write(buf, records[i]);
    if (buf.size() > (1 << 20)) {
      f.Put(buf);
      buf.clear();
    }
  }
  const std::string rest = Dump(envelope);  // "{...}": its members follow ours
  buf += close;
  buf += std::string_view(rest).substr(1);
  buf += "\n";
  f.Put(buf);
  f.Close();
}

template <typename T, typename Write>
void WriteArrayDocument(const std::string& path, const char* key,
                        const std::vector<T>& records, Write write,
                        const ordered_json& envelope) {
  WriteRecordsDocument(path, "{" + Dump(key) + ":[", records, write, "],", envelope);
}

// nlohmann's text for a string (dump() with error_handler_t::replace): the
// short escapes, \u00XX for the other control characters, invalid UTF-8
// repaired to U+FFFD.
void Quote(std::string& out, std::string_view s) {
  std::string repaired;
  if (!sm::IsValidUtf8(s)) {
    sm::AppendRepairedUtf8(repaired, s);
    s = repaired;
  }
  out += '"';
  for (const char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char b[8];
          snprintf(b, sizeof b, "\\u%04x", static_cast<unsigned>(c));
          out += b;
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

// One JSON object written member by member into `out`, as nlohmann would
// print it. Records are the bulk of a dump: building an nlohmann tree for
// each made 100,000 jobs cost 5 s; written straight they cost 0.5 s.
class Object {
 public:
  explicit Object(std::string& out) : out_(out) { out_ += '{'; }
  ~Object() { out_ += '}'; }
  Object(const Object&) = delete;
  Object& operator=(const Object&) = delete;

  // Starts member `key`; the caller writes its value into the string.
  std::string& Member(std::string_view key) {
    if (!first_) out_ += ',';
    first_ = false;
    Quote(out_, key);
    out_ += ':';
    return out_;
  }
  void Str(std::string_view key, std::string_view v) { Quote(Member(key), v); }
  void Int(std::string_view key, int64_t v) { Member(key) += std::to_string(v); }
  void Bool(std::string_view key, bool v) { Member(key) += v ? "true" : "false"; }
  void Strs(std::string_view key, const std::vector<std::string>& v) {
    std::string& out = Member(key);
    out += '[';
    for (size_t i = 0; i < v.size(); ++i) {
      if (i) out += ',';
      Quote(out, v[i]);
    }
    out += ']';
  }
  // data_parser's {"set", "infinite", "number"}; absent stays absent.
  void Struct(std::string_view key, const Num& n) {
    NoValStruct(key, n.kind, std::to_string(n.has() ? n.value : 0));
  }
  // Plain integers: Slurm prints no unset form for them.
  void Plain(std::string_view key, const Num& n) {
    if (n.has()) Int(key, n.value);
  }
  // A double in the same form (sshare's factors); numbers as nlohmann and
  // Slurm print them: shortest round trip, 1.0 for one.
  void RealStruct(std::string_view key, const Real& r) {
    NoValStruct(key, r.kind, ordered_json(r.has() ? r.value : 0.0).dump());
  }

 private:
  // The struct around `number`, the value's text: one form for integers and
  // doubles.
  void NoValStruct(std::string_view key, Num::Kind kind, const std::string& number) {
    if (kind == Num::kAbsent) return;
    std::string& out = Member(key);
    out += kind == Num::kValue ? "{\"set\":true," : "{\"set\":false,";
    out += kind == Num::kInfinite ? "\"infinite\":true," : "\"infinite\":false,";
    out += "\"number\":" + number + "}";
  }
  std::string& out_;
  bool first_ = true;
};

void WriteNode(std::string& out, const NodeIn& n) {
  Object o(out);
  o.Str("name", n.name);
  o.Strs("state", n.state);
  o.Str("address", n.address);
  o.Str("hostname", n.hostname);
  o.Str("comment", n.comment);
  o.Str("reason", n.reason);
  o.Struct("reason_changed_at", Num::Of(n.reason_time));
  o.Str("instance_id", n.instance_id);
  o.Str("reservation", n.reservation);
  o.Strs("partitions", n.partitions);
  o.Plain("cpus", n.cpus);
  o.Plain("effective_cpus", n.effective_cpus);
  o.Plain("alloc_cpus", n.alloc_cpus);
  o.Plain("cores", n.cores);
  o.Plain("sockets", n.sockets);
  o.Plain("threads", n.threads);
  o.Plain("real_memory", n.real_memory);
  o.Plain("alloc_memory", n.alloc_memory);
  o.Plain("specialized_memory", n.specialized_memory);
  o.Struct("free_mem", n.free_mem);
  o.Str("tres", n.tres);
  o.Str("tres_used", n.tres_used);
}

// v0.0.41+'s job_resources: one entry per node with its CPUs and memory.
void WriteAllocation(std::string& out, const JobIn& j) {
  Object resources(out);
  Object nodes(resources.Member("nodes"));
  nodes.Int("count", static_cast<int64_t>(j.alloc->size()));
  nodes.Str("list", j.nodes);
  std::string& list = nodes.Member("allocation");
  list += '[';
  for (size_t i = 0; i < j.alloc->size(); ++i) {
    const AllocIn& a = (*j.alloc)[i];
    if (i) list += ',';
    Object e(list);
    e.Int("index", static_cast<int64_t>(i));
    e.Str("name", a.node);
    Object(e.Member("cpus")).Int("count", a.cpus);
    Object(e.Member("memory")).Int("allocated", a.memory_mb);
  }
  list += ']';
}

void WriteJob(std::string& out, const JobIn& j) {
  Object o(out);
  o.Int("job_id", j.job_id);
  o.Str("name", j.name);
  o.Strs("job_state", j.state);
  o.Str("state_reason", j.state_reason);
  o.Str("partition", j.partition);
  o.Str("account", j.account);
  o.Int("user_id", j.user_id);
  if (j.user_name) o.Str("user_name", *j.user_name);
  if (j.mail_user) o.Str("mail_user", *j.mail_user);
  o.Str("standard_output", j.std_out);
  o.Str("standard_error", j.std_err);
  o.Str("current_working_directory", j.work_dir);
  o.Bool("batch_flag", j.batch);
  o.Str("nodes", j.nodes);
  o.Struct("node_count", j.node_count);
  o.Struct("cpus", j.cpus);
  o.Struct("memory_per_node", j.memory_per_node);
  o.Struct("memory_per_cpu", j.memory_per_cpu);
  o.Struct("array_job_id", j.array_job_id);
  o.Struct("array_task_id", j.array_task_id);
  o.Str("array_task_string", j.array_task_string);
  o.Struct("array_max_tasks", Num::Of(j.array_max_tasks));
  o.Struct("submit_time", j.submit_time);
  o.Struct("start_time", j.start_time);
  o.Struct("end_time", j.end_time);
  o.Struct("time_limit", j.time_limit);
  o.Struct("priority", j.priority);
  o.Str("tres_alloc_str", j.tres_alloc);
  o.Str("tres_req_str", j.tres_req);
  o.Struct("max_nodes", j.max_nodes);
  if (j.alloc) WriteAllocation(o.Member("job_resources"), j);
}


// ---- The accounting side, as 24.11.5's clients print it -------------------

// scontrol show licenses --json; Free as the client library computes it
// (slurm_protocol_pack.c: Total - Used - LastDeficit, 0 below that).
void WriteLicense(std::string& out, const LicenseIn& l) {
  Object o(out);
  o.Str("LicenseName", l.name);
  o.Int("Total", l.total);
  o.Int("Used", l.used);
  o.Int("Free", std::max<int64_t>(0, l.total - l.used - l.last_deficit));
  o.Bool("Remote", l.remote);
  o.Int("Reserved", l.reserved);
  o.Int("LastConsumed", l.last_consumed);
  o.Int("LastDeficit", l.last_deficit);
  o.Int("LastUpdate", l.last_update);
}

// scontrol show reservations --json.
void WriteReservation(std::string& out, const ReservationIn& r) {
  Object o(out);
  o.Plain("core_count", r.core_count);
  o.Struct("end_time", r.end_time);
  o.Strs("flags", r.flags);
  o.Str("name", r.name);
  o.Plain("node_count", r.node_count);
  o.Str("node_list", r.node_list);
  o.Str("partition", r.partition);
  Object(o.Member("purge_completed")).Struct("time", r.purge_completed);
  o.Struct("start_time", r.start_time);
  o.Str("users", r.users);
}

// data_parser's TRES list: "gres/gpu" is {"type": "gres", "name": "gpu"}.
void WriteTresList(std::string& out, const std::vector<TresIn>& list) {
  out += '[';
  for (size_t i = 0; i < list.size(); ++i) {
    if (i) out += ',';
    const size_t slash = list[i].name.find('/');
    Object t(out);
    t.Str("type", list[i].name.substr(0, slash));
    t.Str("name", slash == std::string::npos ? "" : list[i].name.substr(slash + 1));
    t.Int("count", list[i].count);
  }
  out += ']';
}

// sacctmgr show qos --json: the limits at data_parser v0.0.42's paths.
void WriteQos(std::string& out, const QosIn& q) {
  Object o(out);
  o.Int("id", q.id);
  {
    Object limits(o.Member("limits"));
    Object max(limits.Member("max"));
    Object(max.Member("active_jobs")).Struct("count", q.grp_jobs);
    {
      Object jobs(max.Member("jobs"));
      jobs.Struct("count", q.grp_submit_jobs);
      {
        Object active(jobs.Member("active_jobs"));
        Object(active.Member("per")).Struct("user", q.max_jobs_per_user);
      }
      Object(jobs.Member("per")).Struct("user", q.max_submit_jobs_per_user);
    }
    {
      Object tres(max.Member("tres"));
      WriteTresList(tres.Member("total"), q.grp_tres);
      Object per(tres.Member("per"));
      WriteTresList(per.Member("user"), q.max_tres_per_user);
    }
    Object wall(max.Member("wall_clock"));
    Object(wall.Member("per")).Struct("job", q.max_wall_per_job);
  }
  o.Str("name", q.name);
  o.Struct("priority", q.priority);
}

// One line of sshare -a --json. Every line lists assoc_mgr's TRES in its
// usage; the model holds no per-TRES usage (the plugin reads RawUsage), so
// those values are 0.
void WriteShare(std::string& out, const ShareIn& s, const std::string& cluster,
                const std::vector<std::string>& tres_names) {
  Object o(out);
  o.Int("id", s.id);
  o.Str("cluster", cluster);
  o.Str("name", s.name);
  o.Str("parent", s.parent);
  o.Str("partition", s.partition);
  o.RealStruct("shares_normalized", s.shares_normalized);
  o.Struct("shares", s.shares);
  {
    Object tres(o.Member("tres"));
    std::string& usage = tres.Member("usage");
    usage += '[';
    for (size_t i = 0; i < tres_names.size(); ++i) {
      if (i) usage += ',';
      Object t(usage);
      t.Str("name", tres_names[i]);
      t.Member("value") += "0.0";
    }
    usage += ']';
  }
  o.RealStruct("effective_usage", s.effective_usage);
  o.RealStruct("usage_normalized", s.usage_normalized);
  o.Int("usage", s.usage);
  {
    Object fairshare(o.Member("fairshare"));
    fairshare.RealStruct("factor", s.fairshare_factor);
    fairshare.RealStruct("level", s.fairshare_level);
  }
  o.Strs("type", {s.user ? "USER" : "ASSOCIATION"});
}

}  // namespace

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
    WriteArrayDocument(dir + "/nodes.json", "nodes", *c.nodes, WriteNode,
                       Envelope("scontrol show nodes --json", cluster, now));
  if (c.jobs)
    WriteArrayDocument(dir + "/jobs.json", "jobs", *c.jobs, WriteJob,
                       Envelope("scontrol show jobs --json", cluster, now));
  if (c.partitions)
    WriteArrayDocument(dir + "/partitions.json", "partitions", *c.partitions,
                       [](std::string& out, const PartitionIn& p) { out += Dump(PartitionJson(p)); },
                       Envelope("scontrol show partitions --json", cluster, now));
  if (c.licenses)
    WriteArrayDocument(dir + "/licenses.json", "licenses", *c.licenses, WriteLicense,
                       Envelope2411({"show"}, cluster, &now));
  if (c.reservations)
    WriteArrayDocument(dir + "/reservations.json", "reservations", *c.reservations,
                       WriteReservation, Envelope2411({"show"}, cluster, &now));
  if (c.qos)
    WriteArrayDocument(dir + "/qos.json", "qos", *c.qos, WriteQos,
                       Envelope2411({}, cluster, nullptr));
  // sshare's {"shares": {"shares": [...], "total_shares": N}}: slurmctld
  // never sets tot_shares, so 24.11.5 prints 0.
  if (c.shares)
    WriteRecordsDocument(
        dir + "/sshare.json", "{\"shares\":{\"shares\":[", *c.shares,
        [&](std::string& out, const ShareIn& s) { WriteShare(out, s, cluster, c.tres_names); },
        "],\"total_shares\":0},", Envelope2411({"sshare", "-a"}, cluster, nullptr));
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
