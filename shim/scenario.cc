// SPDX-License-Identifier: GPL-2.0-or-later
#include "scenario.h"

#include <filesystem>

#include "input.h"

namespace shim {
namespace {

constexpr double kDefaultAdvance = 30;  // Soperator's CollectionInterval

const char* const kParts[] = {"nodes", "jobs", "partitions", "diag"};

double Seconds(const json& v, const At& at) {
  if (!v.is_number()) throw InputError(at.str() + ": expected a number of seconds");
  const double s = v.get<double>();
  if (!(s >= 0) || s > 1e10)
    throw InputError(at.str() + ": expected a number of seconds >= 0");
  return s;
}

// The strings of a list, each one of `allowed` (when given).
std::vector<std::string> Words(const json& v, const At& at, const char* what,
                               const std::vector<std::string>& allowed) {
  if (!v.is_array()) throw InputError(at.str() + ": expected a list of " + what);
  std::vector<std::string> out;
  for (size_t k = 0; k < v.size(); ++k) {
    const std::string w = v[k].is_string() ? v[k].get<std::string>() : "";
    const bool ok = allowed.empty()
                        ? !w.empty()
                        : std::find(allowed.begin(), allowed.end(), w) != allowed.end();
    if (!ok) {
      std::string list;
      for (const std::string& a : allowed) list += (list.empty() ? "" : ", ") + a;
      throw InputError(at.Index(k).str() + ": expected " +
                       (allowed.empty() ? std::string("a ") + what : "one of " + list));
    }
    out.push_back(w);
  }
  return out;
}

void CheckKeys(const json& s, const At& at) {
  static const char* const kKeys[] = {"name", "advance", "at", "files", "nodes",
                                      "jobs", "partitions", "diag", "drop",
                                      "collect", "duration", "fail", "fetch",
                                      "description"};
  for (const auto& [k, v] : s.items()) {
    if (std::find_if(std::begin(kKeys), std::end(kKeys),
                     [&](const char* x) { return k == x; }) == std::end(kKeys))
      throw InputError(at.Key(k).str() +
                       ": unknown key; a step has name, advance or at, files, nodes, "
                       "jobs, partitions, diag, drop, collect, duration, fail, fetch");
  }
}

// The step's time: `at`, `advance` after the previous step's end, or the
// default interval after it. Never before `end`, the previous step's end.
double StepTime(const json& s, const At& at, size_t index, double end) {
  if (s.contains("advance") && s.contains("at"))
    throw InputError(at.str() + ": give either advance or at, not both");
  if (s.contains("at")) {
    const double t = Seconds(s["at"], at.Key("at"));
    if (t < end)
      throw InputError(at.Key("at").str() + ": " + std::to_string(t) +
                       " is before the previous step's end (" + std::to_string(end) + ")");
    return t;
  }
  if (s.contains("advance")) return end + Seconds(s["advance"], at.Key("advance"));
  return index > 0 ? end + kDefaultAdvance : end;
}

void Drop(const json& s, const At& at, ClusterIn& carried) {
  if (!s.contains("drop")) return;
  for (const std::string& part :
       Words(s["drop"], at.Key("drop"), "parts", {"nodes", "jobs", "partitions", "diag"})) {
    if (part == "nodes") carried.nodes.reset();
    else if (part == "jobs") carried.jobs.reset();
    else if (part == "partitions") carried.partitions.reset();
    else carried.diag.reset();
  }
}

// What the step gives: its files, then its inline parts.
ClusterIn Delta(const json& s, const At& at, const std::filesystem::path& base,
                UserTable& users) {
  ClusterIn delta;
  if (s.contains("files")) {
    for (const std::string& f : Words(s["files"], at.Key("files"), "paths", {})) {
      std::filesystem::path p = f;
      if (p.is_relative()) p = base / p;
      ReadInputFile(p.string(), delta, users);
    }
  }
  for (const char* part : kParts) {
    if (!s.contains(part)) continue;
    const std::string_view which = part;
    // A step's "diag" is sdiag's "statistics" object.
    AddPart(which == "diag" ? "statistics" : which, s[part], at.Key(part), delta, users);
    if (which == "nodes" && !delta.nodes) delta.nodes.emplace();
    if (which == "jobs" && !delta.jobs) delta.jobs.emplace();
  }
  return delta;
}

// Replaces the parts `delta` provides.
void Apply(ClusterIn& state, ClusterIn&& delta) {
  if (delta.nodes) state.nodes = std::move(delta.nodes);
  if (delta.jobs) state.jobs = std::move(delta.jobs);
  if (delta.partitions) state.partitions = std::move(delta.partitions);
  if (delta.diag) state.diag = std::move(delta.diag);
  if (!delta.cluster_name.empty()) state.cluster_name = delta.cluster_name;
  state.req_time = delta.req_time;
  state.last_update = delta.last_update;
  state.latest_event = delta.latest_event;
}

// collect, duration, fail and fetch; `holding` says whether a collection
// is held before this step, and after it on return.
void Control(const json& s, const At& at, ScenarioStep& step, bool& holding) {
  if (s.contains("collect")) {
    const json& c = s["collect"];
    const std::string w = c.is_string() ? c.get<std::string>() : "";
    if (w == "none") step.collect = Collect::kNone;
    else if (w == "hold") step.collect = Collect::kHold;
    else if (w == "release") step.collect = Collect::kRelease;
    else if (w != "now")
      throw InputError(at.Key("collect").str() + ": expected one of now, none, hold, release");
  }
  if (step.collect == Collect::kHold && holding)
    throw InputError(at.Key("collect").str() + ": a collection is held already");
  if (step.collect == Collect::kRelease && !holding)
    throw InputError(at.Key("collect").str() + ": no collection is held");
  // While one is held, a step's collection is held too (or skipped).
  const bool runs = (step.collect == Collect::kNow && !holding) ||
                    step.collect == Collect::kRelease;
  if (s.contains("duration")) {
    step.duration = Seconds(s["duration"], at.Key("duration"));
    if (step.collect != Collect::kNow || holding)
      throw InputError(at.Key("duration").str() +
                       ": only a step's own collection (collect \"now\", nothing held) "
                       "has a duration");
  }
  if (s.contains("fail")) {
    if (!runs)
      throw InputError(at.Key("fail").str() +
                       ": no collection runs in this step (fail applies to collect "
                       "\"now\" with nothing held, or to \"release\")");
    for (const std::string& c : Words(s["fail"], at.Key("fail"), "collectors",
                                      {"nodes", "jobs", "diag"})) {
      if (c == "nodes") step.fail_nodes = true;
      else if (c == "jobs") step.fail_jobs = true;
      else step.fail_diag = true;
    }
  }
  if (s.contains("fetch")) {
    step.fetch = Words(s["fetch"], at.Key("fetch"), "paths", {});
    for (size_t k = 0; k < step.fetch.size(); ++k)
      if (step.fetch[k][0] != '/')
        throw InputError(at.Key("fetch").Index(k).str() + ": expected a path (/metrics, "
                         "/monitoring, ...)");
  }
  if (step.collect == Collect::kHold) holding = true;
  if (step.collect == Collect::kRelease) holding = false;
}

int64_t StartTime(const json& doc, const At& root, const ClusterIn& first, double at) {
  if (doc.contains("start")) {
    const json& st = doc["start"];
    if (!st.is_number_integer())
      throw InputError(root.Key("start").str() + ": expected unix seconds (an integer)");
    return st.get<int64_t>();
  }
  if (const auto t = first.DumpTime()) return *t - static_cast<int64_t>(at);
  throw InputError(root.Key("start").str() +
                   ": missing, and the first step's dumps carry no time; "
                   "give the unix time at the start");
}

}  // namespace

Scenario LoadScenario(const std::string& path, UserTable& users) {
  const json doc = ParseJsonText(ReadWholeFile(path), path);
  const At root{path, ""};
  if (!doc.is_object()) throw InputError(root.str() + ": expected a scenario object with \"steps\"");
  for (const auto& [k, v] : doc.items()) {
    if (k != "start" && k != "steps" && k != "description" && k != "format")
      throw InputError(root.Key(k).str() +
                       ": unknown key; a scenario has description, start and steps");
  }
  const json* steps = doc.contains("steps") ? &doc["steps"] : nullptr;
  if (!steps || !steps->is_array() || steps->empty())
    throw InputError(root.Key("steps").str() + ": expected a non-empty list of steps");
  const std::filesystem::path base = std::filesystem::path(path).parent_path();

  Scenario sc;
  ClusterIn carried;
  double end = 0;  // when the previous step's collection ended
  bool holding = false;
  size_t hold_step = 0;
  for (size_t i = 0; i < steps->size(); ++i) {
    const json& s = (*steps)[i];
    const At at = root.Key("steps").Index(i);
    if (!s.is_object()) throw InputError(at.str() + ": expected a step object");
    CheckKeys(s, at);
    ScenarioStep step;
    step.name = "step " + std::to_string(i + 1);
    if (s.contains("name")) {
      if (!s["name"].is_string()) throw InputError(at.Key("name").str() + ": expected a string");
      step.name = s["name"].get<std::string>();
    }
    step.at = StepTime(s, at, i, end);
    Control(s, at, step, holding);
    if (step.collect == Collect::kHold) hold_step = i;
    end = step.at + step.duration;
    Drop(s, at, carried);
    Apply(carried, Delta(s, at, base, users));
    if (i == 0) sc.start_unix = StartTime(doc, root, carried, step.at);
    step.state = carried;
    sc.steps.push_back(std::move(step));
  }
  if (holding)
    throw InputError(root.Key("steps").Index(hold_step).Key("collect").str() +
                     ": the held collection needs a later step with collect \"release\"");
  return sc;
}

}  // namespace shim
