// SPDX-License-Identifier: GPL-2.0-or-later
// The shim's half inside the plugin: linked into the shim's builds of the
// two carriers (job_submit_soperator_shim.so, metrics_soperator_shim.so;
// shim/meson.build), never into the installed ones, whose exports are only
// what slurmctld calls (tests/exports.py checks). They let a replay own
// time and decide when collections happen.
#include <mutex>

#include "runtime.h"

namespace {

std::mutex g_mu;
sm::OfflineControl g_offline;  // empty until soperator_metrics_offline()

}  // namespace

// Read once by StartRuntime() in init().
sm::OfflineControl sm::slurm::OfflineHooks() {
  std::lock_guard lock(g_mu);
  return g_offline;
}

extern "C" {

// Before init(): the replay's clocks, and no ticker (collections happen
// only through soperator_metrics_collect_now()).
__attribute__((visibility("default"))) void soperator_metrics_offline(
    double (*monotonic_now)(void), int64_t (*unix_now)(void)) {
  std::lock_guard lock(g_mu);
  g_offline.monotonic_now = monotonic_now;
  g_offline.unix_now = unix_now;
  g_offline.manual_ticks = true;
}

// One synchronous collection; -1 when the plugin is not running.
__attribute__((visibility("default"))) int soperator_metrics_collect_now(void) {
  const auto e = sm::slurm::CurrentRuntime();
  if (!e) return -1;
  try {
    e->collector().CollectOnce();
    return 0;
  } catch (...) {
    return -1;
  }
}

}  // extern "C"
