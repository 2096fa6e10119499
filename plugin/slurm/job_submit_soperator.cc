// SPDX-License-Identifier: GPL-2.0-or-later
// JobSubmitPlugins=soperator: a job_submit plugin that changes no job. It is
// the one plugin type every Slurm release loads into slurmctld only, so its
// init() is where our collector and listener start.
#include "runtime.h"
#include "slurm_api.h"

extern "C" {

// `extern` gives these external linkage in C++ and the attribute exports
// them despite -fvisibility=hidden, so slurmctld's dlsym() finds them.
#define SM_EXPORT __attribute__((visibility("default")))
SM_EXPORT extern const char plugin_name[] = "Soperator metrics exporter";
SM_EXPORT extern const char plugin_type[] = "job_submit/soperator";
SM_EXPORT extern const uint32_t plugin_version = SLURM_VERSION_NUMBER;

SM_EXPORT int init(void) {
  sm::slurm::StartRuntime(sm::Carrier::kJobSubmit);
  return SLURM_SUCCESS;  // never fail slurmctld's start over metrics
}

SM_EXPORT int fini(void) {
  sm::slurm::StopRuntime();
  return SLURM_SUCCESS;
}

SM_EXPORT int job_submit(job_desc_msg_t*,
                                                      uint32_t, char**) {
  return SLURM_SUCCESS;
}

#if SM_SLURM_AT_LEAST(23, 2)
SM_EXPORT int job_modify(job_desc_msg_t*,
                                                      job_record_t*, uint32_t,
                                                      char**) {
  return SLURM_SUCCESS;
}
#else
SM_EXPORT int job_modify(job_desc_msg_t*,
                                                      job_record_t*,
                                                      uint32_t) {
  return SLURM_SUCCESS;
}
#endif

}  // extern "C"
