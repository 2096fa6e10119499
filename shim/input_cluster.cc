// SPDX-License-Identifier: GPL-2.0-or-later
// Nodes, jobs and partitions of Slurm's dumps into the model (input.h):
// their fields as record_fields.h describes them, and what each record
// tells about the dump's time.
#include <algorithm>
#include <iterator>

#include "input_reader.h"
#include "record_fields.h"

namespace shim {
namespace reader {

NodeIn ParseNode(const json& n, const At& at, ClusterIn& state) {
  auto out = fields::ReadRecord(n, at, "a node object", fields::NodeFields());
  NoteEvent(state, {Num::kValue, out.reason_time});
  for (const char* k : {"last_busy", "boot_time", "slurmd_start_time"}) NoteEvent(state, N(n, k, at));
  return out;
}

bool LooksLikeNode(const json& o) {
  return o.is_object() && o.contains("name") && o.contains("state") &&
         !o.contains("job_id");
}

bool LooksLikeJob(const json& o) {
  return o.is_object() && o.contains("job_id");
}

namespace {

bool TerminalWord(const std::string& s) {
  static const char* const kTerminal[] = {
      "COMPLETED", "CANCELLED", "FAILED", "TIMEOUT", "NODE_FAIL", "PREEMPTED",
      "BOOT_FAIL", "DEADLINE", "OUT_OF_MEMORY"};
  return std::find_if(std::begin(kTerminal), std::end(kTerminal),
                      [&](const char* t) { return s == t; }) != std::end(kTerminal);
}

}  // namespace

JobIn ParseJob(const json& j, const At& at, ClusterIn& state, UserTable& users) {
  auto out = fields::ReadRecord(j, at, "a job object", fields::JobFields());
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

// One record object, or a list of them.
template <typename Parse>
void AddOneOrMany(const json& v, const At& at, const char* what, Parse parse) {
  if (v.is_object()) return parse(v, at);
  ForEach(v, at, what, parse);
}

}  // namespace

void AddNodes(const json& v, const At& at, ClusterIn& state) {
  auto& nodes = state.nodes ? *state.nodes : state.nodes.emplace();
  if (v.is_array()) nodes.reserve(nodes.size() + v.size());
  AddOneOrMany(v, at, "a list of node objects", [&](const json& n, const At& a) {
    nodes.push_back(ParseNode(n, a, state));
  });
}

void AddJobs(const json& v, const At& at, ClusterIn& state, UserTable& users) {
  auto& jobs = state.jobs ? *state.jobs : state.jobs.emplace();
  if (v.is_array()) jobs.reserve(jobs.size() + v.size());
  AddOneOrMany(v, at, "a list of job objects", [&](const json& j, const At& a) {
    jobs.push_back(ParseJob(j, a, state, users));
  });
}

void AddPartitions(const json& v, const At& at, ClusterIn& state) {
  if (!v.is_array()) Expected(at, "a list of partition objects", v);
  auto& partitions = state.partitions ? *state.partitions : state.partitions.emplace();
  ForEach(v, at, "a list of partition objects", [&](const json& p, const At& a) {
    partitions.push_back(fields::ReadRecord(p, a, "a partition object", fields::PartitionFields()));
  });
}

}  // namespace shim
