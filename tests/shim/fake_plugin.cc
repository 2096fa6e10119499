// SPDX-License-Identifier: GPL-2.0-or-later
// Plugins the shim must refuse, as slurmctld would: built with
// -DFAKE_VERSION_DELTA=1 (one micro release off), -DFAKE_NO_TYPE (no
// plugin_type symbol) or neither (a valid Slurm plugin without the
// soperator-metrics offline hooks).
#include <cstdint>

#include "slurm/slurm_version.h"

#ifndef FAKE_VERSION_DELTA
#define FAKE_VERSION_DELTA 0
#endif

#define FAKE_EXPORT __attribute__((visibility("default")))

extern "C" {
FAKE_EXPORT extern const char plugin_name[] = "fake plugin for the shim tests";
#ifndef FAKE_NO_TYPE
FAKE_EXPORT extern const char plugin_type[] = "job_submit/fake";
#endif
FAKE_EXPORT extern const uint32_t plugin_version =
    SLURM_VERSION_NUMBER + FAKE_VERSION_DELTA;
FAKE_EXPORT int init(void) { return 0; }
FAKE_EXPORT int fini(void) { return 0; }
}
