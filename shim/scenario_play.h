// SPDX-License-Identifier: GPL-2.0-or-later
// Plays a loaded scenario (scenario.h) against a running plugin: the clock,
// the state, the collections (held, failing, with a duration) and the
// bodies printed after each step. Format in docs/shim.md, "Scenarios".
#pragma once

#include <functional>
#include <string>

#include "plugin_host.h"
#include "scenario.h"

namespace shim {

struct PlayOptions {
  std::string path = "/metrics";  // --path
  bool openmetrics = false;
  bool every_step = false;
  // --gzip-dir: each body fetched is fetched again with Accept-Encoding:
  // gzip and written there as it came, DIR/1.gz, DIR/2.gz, ... in output
  // order (tests/shim/incremental_render.py reads them).
  std::string gzip_dir;
  // Writes one fetched body to stdout (an HTTP failure throws).
  std::function<void(const HttpResult&, const std::string& path)> emit;
};

// The plugin is initialised, its clock at the scenario's start.
void PlayScenario(const Scenario& scenario, PluginHost& host, const PlayOptions& options);

}  // namespace shim
