// SPDX-License-Identifier: GPL-2.0-or-later
// Scenarios: successive cluster states with the clock advanced between
// them, one collection per step (format in docs/shim.md).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model.h"

namespace shim {

// What a step does about collections (docs/shim.md, "Scenarios").
enum class Collect {
  kNow,      // one collection, finished before the step's output
  kNone,     // none
  kHold,     // one that waits on slurmctld's locks until a kRelease step
  kRelease,  // the held collections finish, on this step's state
};

struct ScenarioStep {
  std::string name;      // "step 2" unless named
  double at = 0;         // seconds since the plugin's init()
  ClusterIn state;       // the whole controller state at this step
  Collect collect = Collect::kNow;
  // Virtual seconds a kNow collection waits on slurmctld's locks before it
  // runs (the clock moves on by as much during the step).
  double duration = 0;
  // Collectors that fail in the collection this step runs.
  bool fail_nodes = false, fail_jobs = false, fail_diag = false;
  // Paths printed after the step; empty: --path after the last step (every
  // step with --every-step).
  std::vector<std::string> fetch;
};

struct Scenario {
  int64_t start_unix = 0;  // wall clock at init()
  std::vector<ScenarioStep> steps;
};

// Reads and validates the whole scenario (every step's inputs) up front;
// InputError names the scenario file and the step.
Scenario LoadScenario(const std::string& path, UserTable& users);

}  // namespace shim
