// SPDX-License-Identifier: GPL-2.0-or-later
// What every carrier does on init/fini: read the configuration, route our
// log into slurmctld's, start or stop the exporter. Never throws.
#pragma once

#include <memory>

#include "exporter.h"

namespace sm::slurm {

// Returns the running exporter or nullptr; failures are logged only:
// a metrics plugin must never stop slurmctld from starting.
Exporter* StartRuntime(Carrier carrier);
// Stops the exporter and lets go of it, without waiting for a thread that
// may be waiting for slurmctld's or assoc_mgr's locks (the caller may hold
// them: docs/architecture.md, "Stopping"); such threads end on their own
// and what they read is never freed. One that a caller of
// CurrentRuntime() still holds (a 25.11+ route handler on one of
// slurmctld's threads, still inside when fini() gave up waiting) is
// deleted when that caller lets go of it, never under it.
void StopRuntime();
// The running exporter, kept alive for as long as the caller holds it.
std::shared_ptr<Exporter> CurrentRuntime();

// Defined only by shim/offline_hooks.cc, which only the shim's builds of
// the carriers link (shim/meson.build): the virtual clocks and manual ticks
// the shim handed over before init(). Weak and hidden, so in the installed
// carriers it is null (StartRuntime then runs on the real clocks with the
// collector's own ticker) and nothing outside the .so can reach it.
[[gnu::weak, gnu::visibility("hidden")]] OfflineControl OfflineHooks();

}  // namespace sm::slurm
