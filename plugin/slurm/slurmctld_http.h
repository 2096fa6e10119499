// SPDX-License-Identifier: GPL-2.0-or-later
// Our routes on slurmctld's own HTTP server (SlurmctldPort), Slurm 25.11
// and later: the thin binding between slurmctld's router and connection
// calls and plugin/service/slurmctld_routes.h, which decides everything.
#pragma once

namespace sm::slurm {

// Binds GET and HEAD of every path in SoperatorPaths() on slurmctld's
// router. Call from the metrics carrier's init() only: slurmctld runs it on
// its main thread while its listening sockets do not accept yet, so no
// request can read the router while we add to it (docs/compat.md, "Our
// routes on slurmctld's port"). Logs and binds nothing when this slurmctld
// has no router or serves no HTTP.
void BindSlurmctldRoutes();

// From fini(): our handlers answer 503 from now on, and this returns once
// none is running (bounded), so the exporter can be stopped.
void CloseSlurmctldRoutes();

}  // namespace sm::slurm
