// SPDX-License-Identifier: GPL-2.0-or-later
// `soperator-metrics-shim slurmctld`, the driver side of the stand-in for
// slurmctld's HTTP router: loads the stand-in
// (shim/slurmctld_router_standin.cc, its own .so) and sends it the
// requests read as JSON lines, so the metrics carrier's routes on
// slurmctld's port (Slurm 25.11+) are exercised on releases that have no
// router. See docs/shim.md.
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
// {"collect": true} runs one collection (with `slurmctld --no-collect`
// the first); a request with "background": true runs on its own thread,
// its answer written after the next {"release": true}, which lets requests
// held by "X-SLURM-USER-TOKEN: hold" (26.05 stand-in) go on;
// {"wait_held": true} waits until one is held; {"fini": true} calls the
// plugin's fini() and answers {"fini_seconds"}. {"slurmctld_path":
// "/metrics/nodes"} (or another of slurmctld's own five) is answered as
// slurmctld's own handler would (parse, dump, free_set; always 200 with
// what dump left), in the same {"bound", "rc", "wire_hex"} form.
void ServeSlurmctldRequests(std::istream& in, std::ostream& out, PluginHost& host);

}  // namespace shim
