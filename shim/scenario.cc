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
  double now = 0;
  for (size_t i = 0; i < steps->size(); ++i) {
    const json& s = (*steps)[i];
    const At at = root.Key("steps").Index(i);
    if (!s.is_object()) throw InputError(at.str() + ": expected a step object");
    ScenarioStep step;
    step.name = "step " + std::to_string(i + 1);
    for (const auto& [k, v] : s.items()) {
      static const char* const kKeys[] = {"name", "advance", "at", "files",
                                          "nodes", "jobs", "partitions", "diag",
                                          "drop", "description"};
      if (std::find_if(std::begin(kKeys), std::end(kKeys),
                       [&](const char* x) { return k == x; }) == std::end(kKeys))
        throw InputError(at.Key(k).str() +
                         ": unknown key; a step has name, advance or at, files, "
                         "nodes, jobs, partitions, diag, drop");
    }
    if (s.contains("name")) {
      if (!s["name"].is_string()) throw InputError(at.Key("name").str() + ": expected a string");
      step.name = s["name"].get<std::string>();
    }
    if (s.contains("advance") && s.contains("at"))
      throw InputError(at.str() + ": give either advance or at, not both");
    if (s.contains("at")) {
      const double t = Seconds(s["at"], at.Key("at"));
      if (t < now)
        throw InputError(at.Key("at").str() + ": " + std::to_string(t) +
                         " is before the previous step (" + std::to_string(now) + ")");
      now = t;
    } else if (s.contains("advance")) {
      now += Seconds(s["advance"], at.Key("advance"));
    } else if (i > 0) {
      now += kDefaultAdvance;
    }
    step.at = now;

    if (s.contains("drop")) {
      const json& d = s["drop"];
      if (!d.is_array()) throw InputError(at.Key("drop").str() + ": expected a list of parts");
      for (size_t k = 0; k < d.size(); ++k) {
        const std::string part = d[k].is_string() ? d[k].get<std::string>() : "";
        if (part == "nodes") carried.nodes.reset();
        else if (part == "jobs") carried.jobs.reset();
        else if (part == "partitions") carried.partitions.reset();
        else if (part == "diag") carried.diag.reset();
        else
          throw InputError(at.Key("drop").Index(k).str() +
                           ": expected one of nodes, jobs, partitions, diag");
      }
    }
    ClusterIn delta;
    if (s.contains("files")) {
      const json& f = s["files"];
      if (!f.is_array()) throw InputError(at.Key("files").str() + ": expected a list of paths");
      for (size_t k = 0; k < f.size(); ++k) {
        if (!f[k].is_string())
          throw InputError(at.Key("files").Index(k).str() + ": expected a path");
        std::filesystem::path p = f[k].get<std::string>();
        if (p.is_relative()) p = base / p;
        ReadInputFile(p.string(), delta, users);
      }
    }
    for (const char* part : kParts) {
      if (!s.contains(part)) continue;
      const json& v = s[part];
      const At pat = at.Key(part);
      const std::string which = part;
      if (which == "nodes") {
        if (v.is_object() && v.contains("nodes")) AddDocument(v, pat, delta, users);
        else AddNodes(v, pat, delta);
        if (!delta.nodes) delta.nodes.emplace();
      } else if (which == "jobs") {
        if (v.is_object() && v.contains("jobs")) AddDocument(v, pat, delta, users);
        else AddJobs(v, pat, delta, users);
        if (!delta.jobs) delta.jobs.emplace();
      } else if (which == "partitions") {
        if (v.is_object() && v.contains("partitions")) AddDocument(v, pat, delta, users);
        else AddPartitions(v, pat, delta);
      } else {
        if (v.is_object() && v.contains("statistics")) AddDocument(v, pat, delta, users);
        else SetDiag(v, pat, delta, users);
      }
    }
    Apply(carried, std::move(delta));
    if (i == 0) {
      if (doc.contains("start")) {
        const json& st = doc["start"];
        if (!st.is_number_integer())
          throw InputError(root.Key("start").str() + ": expected unix seconds (an integer)");
        sc.start_unix = st.get<int64_t>();
      } else if (const auto t = carried.DumpTime()) {
        sc.start_unix = *t - static_cast<int64_t>(now);
      } else {
        throw InputError(root.Key("start").str() +
                         ": missing, and the first step's dumps carry no time; "
                         "give the unix time at the start");
      }
    }
    step.state = carried;
    sc.steps.push_back(std::move(step));
  }
  return sc;
}

}  // namespace shim
