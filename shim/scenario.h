// SPDX-License-Identifier: GPL-2.0-or-later
// Scenarios: successive cluster states with the clock advanced between
// them, one collection per step (format in docs/shim.md).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model.h"

namespace shim {

struct ScenarioStep {
  std::string name;      // "step 2" unless named
  double at = 0;         // seconds since the plugin's init()
  ClusterIn state;       // the whole controller state at this step
};

struct Scenario {
  int64_t start_unix = 0;  // wall clock at init()
  std::vector<ScenarioStep> steps;
};

// Reads and validates the whole scenario (every step's inputs) up front;
// InputError names the scenario file and the step.
Scenario LoadScenario(const std::string& path, UserTable& users);

}  // namespace shim
