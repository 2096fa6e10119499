// SPDX-License-Identifier: GPL-2.0-or-later
// What every carrier does on init/fini: read the configuration, route our
// log into slurmctld's, start or stop the exporter. Never throws.
#pragma once

#include "exporter.h"

namespace sm::slurm {

// Returns the running exporter or nullptr; failures are logged only:
// a metrics plugin must never stop slurmctld from starting.
Exporter* StartRuntime(Carrier carrier);
void StopRuntime();
Exporter* CurrentRuntime();

}  // namespace sm::slurm
