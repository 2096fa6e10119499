// SPDX-License-Identifier: GPL-2.0-or-later
// Our declaration of Slurm's metrics plugin interface (MetricsType=,
// src/interfaces/metrics.h, 25.11 and later). Declared here so the carrier
// also builds against releases without it (22.05, 24.11), where the shim
// drives it exactly as slurmctld 25.11+ would; built against a tree that
// has the interface, metrics_soperator.cc checks this against Slurm's.
#pragma once

extern "C" {

// Opaque to slurmctld: it only hands a set back to dump() and free_set().
// Our own tag: Slurm's header (when present) defines struct metric_set,
// and metrics_soperator.cc checks the two layouts are the same.
typedef struct sm_metric_set {
  void* arg;
  int plugin_id;
  const char* plugin_type;
} sm_metric_set_t;

}  // extern "C"
