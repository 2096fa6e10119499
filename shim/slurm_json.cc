// SPDX-License-Identifier: GPL-2.0-or-later
#include "slurm_json.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
#include <span>
#include <utility>

#include "input.h"
#include "json_writer.h"
#include "record_fields.h"

namespace shim {
namespace {

// data_parser's {"set", "infinite", "number"}: how v0.0.40+ prints numbers
// that may be unset or infinite (times, limits, counts of a request).
ordered_json Struct(const Num& n) {
  return {{"set", n.has()},
          {"infinite", n.kind == Num::kInfinite},
          {"number", n.has() ? n.value : 0}};
}

// sdiag's timestamps are the only statistics printed as numbers with a
// set flag.
bool DiagTimestamp(const std::string& key) {
  for (const fields::DiagValue& v : fields::DiagValues())
    if (v.form == fields::Form::kStruct && key == v.key) return true;
  return false;
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
template <typename Records, typename Write>
void WriteRecordsDocument(const std::string& path, const std::string& open,
                          const Records& records, Write write, const std::string& close,
                          const ordered_json& envelope) {
  File f(path);
  std::string buf = open;
  bool first = true;
  for (const auto& record : records) {
    if (!std::exchange(first, false)) buf += ',';
    write(buf, record);
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

// A record's members as its description (record_fields.h) gives them.
template <typename R>
auto Writer(const std::vector<fields::Field<R>>& fields, const ClusterIn& c) {
  return [&fields, context = fields::WriteContext{c}](std::string& out, const R& r) {
    Object o(out);
    fields::WriteFields(o, fields, r, context);
  };
}

template <typename R>
void WriteArrayDocument(const std::string& path, const char* key, const std::vector<R>& records,
                        const std::vector<fields::Field<R>>& fields, const ClusterIn& c,
                        const ordered_json& envelope) {
  WriteRecordsDocument(path, "{" + Dump(key) + ":[", records, Writer(fields, c), "],", envelope);
}

template <typename R>
void WriteList(Object& o, const char* key, const std::vector<R>& records,
               const std::vector<fields::Field<R>>& fields, const ClusterIn& c) {
  std::string& list = o.Member(key);
  list += '[';
  for (size_t i = 0; i < records.size(); ++i) {
    if (i) list += ',';
    Writer(fields, c)(list, records[i]);
  }
  list += ']';
}

// sdiag --json's "statistics": server_thread_count, the values (the "a.b"
// ones as members of sdiag's nested objects, schedule_exit and bf_exit),
// then the RPC entries. A value named server_thread_count takes that
// member's place when the model has one, else its own.
void WriteDiag(std::string& out, const DiagIn& d, const ClusterIn& c) {
  Object s(out);
  const bool thread_count_first = d.server_thread_count.has();
  if (thread_count_first) {
    const auto it = d.values.find("server_thread_count");
    s.Int("server_thread_count", it != d.values.end() ? it->second : d.server_thread_count.value);
  }
  std::unique_ptr<Object> nested;
  std::string nested_key;
  for (const auto& [key, value] : d.values) {
    const size_t dot = key.find('.');
    if (dot == std::string::npos || key.compare(0, dot, nested_key) != 0) nested.reset();
    if (dot != std::string::npos) {
      if (!nested) nested = std::make_unique<Object>(s.Member(nested_key = key.substr(0, dot)));
      nested->Int(key.substr(dot + 1), value);
    } else if (DiagTimestamp(key)) {
      s.Struct(key, Num::Of(value));
    } else if (!thread_count_first || key != "server_thread_count") {
      s.Int(key, value);
    }
  }
  nested.reset();
  WriteList(s, "rpcs_by_message_type", d.rpc_types, fields::RpcTypeFields(), c);
  WriteList(s, "rpcs_by_user", d.rpc_users, fields::RpcUserFields(), c);
}

}  // namespace

void WriteDumps(const ClusterIn& c, int64_t now, const std::string& dir) {
  const std::string& cluster = c.cluster_name;
  if (c.nodes)
    WriteArrayDocument(dir + "/nodes.json", "nodes", *c.nodes, fields::NodeFields(), c,
                       Envelope("scontrol show nodes --json", cluster, now));
  if (c.jobs)
    WriteArrayDocument(dir + "/jobs.json", "jobs", *c.jobs, fields::JobFields(), c,
                       Envelope("scontrol show jobs --json", cluster, now));
  if (c.partitions)
    WriteArrayDocument(dir + "/partitions.json", "partitions", *c.partitions,
                       fields::PartitionFields(), c,
                       Envelope("scontrol show partitions --json", cluster, now));
  if (c.licenses)
    WriteArrayDocument(dir + "/licenses.json", "licenses", *c.licenses, fields::LicenseFields(),
                       c, Envelope2411({"show"}, cluster, &now));
  if (c.reservations)
    WriteArrayDocument(dir + "/reservations.json", "reservations", *c.reservations,
                       fields::ReservationFields(), c, Envelope2411({"show"}, cluster, &now));
  if (c.qos)
    WriteArrayDocument(dir + "/qos.json", "qos", *c.qos, fields::QosFields(), c,
                       Envelope2411({}, cluster, nullptr));
  // sshare's {"shares": {"shares": [...], "total_shares": N}}: slurmctld
  // never sets tot_shares, so 24.11.5 prints 0.
  if (c.shares)
    WriteRecordsDocument(dir + "/sshare.json", "{\"shares\":{\"shares\":[", *c.shares,
                         Writer(fields::ShareFields(), c), "],\"total_shares\":0},",
                         Envelope2411({"sshare", "-a"}, cluster, nullptr));
  if (c.diag)
    WriteRecordsDocument(dir + "/sdiag.json", "{\"statistics\":", std::span(&*c.diag, 1),
                         [&](std::string& out, const DiagIn& d) { WriteDiag(out, d, c); }, ",",
                         Envelope("sdiag --json", cluster, now));
}

}  // namespace shim
