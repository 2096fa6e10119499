// SPDX-License-Identifier: GPL-2.0-or-later
// Which kind a dump is, told by its content, and where its parts go;
// the parts themselves are read in input_cluster.cc, input_accounting.cc,
// input_diag.cc and input_sdiag_text.cc.
#include "input.h"

#include <algorithm>

#include "input_reader.h"

namespace shim {

using namespace reader;

namespace {

// Like ParseJsonText() + AddDocument(), but the elements of a top-level
// "nodes" or "jobs" array are turned into the model as soon as each is
// parsed and then dropped, so a 100 000-job dump never sits in memory as
// a JSON tree.
void ParseDocumentStreaming(const std::string& text, const std::string& file,
                            ClusterIn& state, UserTable& users) {
  using E = json::parse_event_t;
  std::string key;
  bool in_array = false;
  size_t index = 0;
  auto callback = [&](int depth, E event, json& parsed) -> bool {
    if (depth == 1) {
      if (event == E::key) {
        key = parsed.get<std::string>();
        in_array = false;
      } else if (event == E::array_start) {
        in_array = key == "nodes" || key == "jobs";
        index = 0;
      } else if (event == E::array_end) {
        in_array = false;
      }
      return true;
    }
    if (depth != 2 || !in_array) return true;
    if (event != E::object_end && event != E::value && event != E::array_end) return true;
    const At at = At{file, ""}.Key(key).Index(index++);
    if (event != E::object_end)
      Expected(at, key == "nodes" ? "a node object" : "a job object", parsed);
    if (key == "nodes")
      AddNodes(parsed, at, state);  // one node object
    else
      AddJobs(parsed, at, state, users);
    return false;  // parsed: drop it from the tree
  };
  const json doc = ParseBounded(text, file, callback);
  AddDocument(doc, At{file, ""}, state, users);
}

// The parts a dump object may hold, in the order they are read: the key,
// whether it is an object (else a list), and where it goes.
struct Part {
  const char* key;
  bool object;
  void (*add)(const json& v, const At& at, ClusterIn& state, UserTable& users);
};

template <void (*Add)(const json&, const At&, ClusterIn&)>
void WithoutUsers(const json& v, const At& at, ClusterIn& state, UserTable&) {
  Add(v, at, state);
}

constexpr Part kParts[] = {
    {"nodes", false, WithoutUsers<AddNodes>},
    {"jobs", false, AddJobs},
    {"partitions", false, WithoutUsers<AddPartitions>},
    {"statistics", true, SetDiag},
    {"licenses", false, WithoutUsers<AddLicenses>},
    {"reservations", false, WithoutUsers<AddReservations>},
    {"qos", false, WithoutUsers<AddQos>},
    {"shares", true, WithoutUsers<AddShares>},
};

}  // namespace

void AddDocument(const json& doc, const At& at, ClusterIn& state, UserTable& users) {
  if (doc.is_array()) {
    if (doc.empty()) return;
    if (LooksLikeJob(doc[0])) return AddJobs(doc, at, state, users);
    if (LooksLikeNode(doc[0])) return AddNodes(doc, at, state);
    Expected(at.Index(0), "a node object (with name and state) or a job object (with job_id)",
             doc[0]);
  }
  if (!doc.is_object())
    Expected(at, "a JSON object from scontrol/squeue/sinfo/sdiag --json or slurmrestd", doc);
  if (doc.contains("steps"))
    throw InputError(at.str() + ": this is a scenario; run it with the `scenario` subcommand");
  // One record (Soperator's fixtures) before the dumps: a node's own
  // "partitions" is its list of partition names, not a partitions dump.
  if (LooksLikeJob(doc)) return AddJobs(doc, at, state, users);
  if (LooksLikeNode(doc)) return AddNodes(doc, at, state);
  if (const json* meta = Find(doc, "meta"); meta && meta->is_object()) {
    const json* s = Find(*meta, "slurm");
    if (s && s->is_object())
      if (const json* c = Find(*s, "cluster"); c && c->is_string() && state.cluster_name.empty())
        state.cluster_name = c->get<std::string>();
  }
  bool known = false;
  for (const Part& part : kParts) {
    const json* v = Find(doc, part.key);
    if (!v || (part.object ? !v->is_object() : !v->is_array())) continue;
    part.add(*v, at.Key(part.key), state, users);
    known = true;
  }
  if (known) {
    // The controller stamps each response with its own clock.
    const Num lu = N(doc, "last_update", at);
    if (lu.has() && lu.value > 0)
      state.last_update = std::max(state.last_update.value_or(0), lu.value);
    return;
  }
  if (Find(doc, "sinfo"))
    throw InputError(at.str() +
                     ": `sinfo --json` of Slurm 23.02 and later groups nodes and "
                     "cannot be replayed; dump `scontrol show nodes --json` instead");
  if (doc.contains("rpcs_by_message_type") || doc.contains("server_thread_count"))
    return SetDiag(doc, at, state, users);
  if (const json* e = Find(doc, "errors"); e && e->is_array() && !e->empty())
    throw InputError(at.str() + ": a Slurm error response: " + e->dump());
  throw InputError(
      at.str() +
      ": expected a Slurm dump: an object with \"nodes\", \"jobs\", "
      "\"partitions\", \"statistics\", \"licenses\", \"reservations\", "
      "\"qos\" or \"shares\" (scontrol show nodes|jobs|partitions|licenses|"
      "reservations --json, squeue --json, sdiag --json, sacctmgr show qos "
      "--json, sshare --json, 22.05's sinfo --json, slurmrestd /nodes /jobs "
      "/diag), or one node or job object");
}

void AddPart(std::string_view key, const json& v, const At& at, ClusterIn& state,
             UserTable& users) {
  if (v.is_object() && v.contains(key)) return AddDocument(v, at, state, users);
  for (const Part& part : kParts)
    if (part.key == key) return part.add(v, at, state, users);
}

void ReadInputText(const std::string& text, const std::string& path,
                   ClusterIn& state, UserTable& users) {
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos)
    throw InputError(path + ": empty file; expected a Slurm JSON dump");
  if (text[first] != '{' && text[first] != '[') {
    if (ReadNodeGroupsText(text, path, state)) return;
    ReadSdiagText(text, path, state, users);
    return;
  }
  ParseDocumentStreaming(text, path, state, users);
}

void ReadInputFile(const std::string& path, ClusterIn& state, UserTable& users) {
  ReadInputText(ReadWholeFile(path), path, state, users);
}

}  // namespace shim
