// SPDX-License-Identifier: GPL-2.0-or-later
// `soperator-metrics-shim slurmctld`: the metrics carrier's routes on
// slurmctld's port (Slurm 25.11+), driven through a stand-in for
// slurmctld's router (shim/slurmctld_http_standin.cc) on releases that
// have none. See docs/shim.md.
#pragma once

#include <iosfwd>
#include <string>

namespace shim {

class PluginHost;

// dlopen()s the stand-in RTLD_GLOBAL, so the plugin's init() finds its
// router there; call before the plugin is loaded. Applies `first_line`
// when it is a "configure" line (e.g. HTTP disabled before init()).
void LoadSlurmctldStandin(const std::string& path, const std::string& first_line);

// Reads JSON lines from `in`: {"configure": {...}} sets what slurmctld's
// config and listeners would say; {"method", "path", "query", "https",
// "headers": [[name, value], ...]} is one request, answered on `out` with
// {"bound", "rc", "wire_hex"}: what went on the wire, hex-encoded.
void ServeSlurmctldRequests(std::istream& in, std::ostream& out);

}  // namespace shim
