// SPDX-License-Identifier: GPL-2.0-or-later
// MetricsType=metrics/soperator (Slurm 25.11+). Two ways onto slurmctld's
// own port:
// - our routes, /metrics/soperator and below (slurmctld_http.cc): cached
//   bodies, no controller lock, no RPC, no walk over jobs;
// - slurmctld's five /metrics/{jobs,nodes,partitions,scheduler,
//   jobs-users-accts}: slurmctld first builds its statistics structs under
//   its own locks (a walk over every job for three of them; docs/
//   performance.md), then calls parse -> dump -> free_set on a conmgr
//   worker. We ignore those structs and hand back our cached body, but the
//   walk has already been paid.
#include <cstring>
#include <memory>

#include "metrics_interface.h"
#include "runtime.h"
#include "slurm_api.h"
#include "slurmctld_http.h"
#include "slurmctld_routes.h"

#if __has_include("src/interfaces/metrics.h")
extern "C" {
#include "src/interfaces/metrics.h"
}
#include <cstddef>
// slurmctld passes its metric_set_t; ours must be the same object.
static_assert(sizeof(metric_set_t) == sizeof(sm_metric_set_t));
static_assert(offsetof(metric_set_t, arg) == offsetof(sm_metric_set_t, arg));
static_assert(offsetof(metric_set_t, plugin_id) ==
              offsetof(sm_metric_set_t, plugin_id));
static_assert(offsetof(metric_set_t, plugin_type) ==
              offsetof(sm_metric_set_t, plugin_type));
#endif

#define SM_EXPORT extern "C" __attribute__((visibility("default")))

// A declaration directly inside extern "C" (no braces) is extern, so these
// const objects get external linkage and slurmctld's dlsym() finds them.
SM_EXPORT const char plugin_name[] = "Soperator metrics exporter";
SM_EXPORT const char plugin_type[] = "metrics/soperator";
SM_EXPORT const uint32_t plugin_version = SLURM_VERSION_NUMBER;

namespace {

// What a set carries from parse to dump: the body, or the text that stands
// for a 503 (slurmctld_routes.h, NativePathAnswer).
using CachedBody = sm::NativePathAnswer;

sm_metric_set_t* MakeSet(sm::Endpoint e) {
  try {
    auto set = std::make_unique<sm_metric_set_t>();
    set->plugin_type = plugin_type;
    const auto ex = sm::slurm::CurrentRuntime();
    set->arg = new CachedBody(sm::AnswerSlurmctldNativePath(ex.get(), e));
    return set.release();
  } catch (...) {
    return nullptr;  // out of memory: slurmctld then answers an empty 200
  }
}

}  // namespace

SM_EXPORT int init(void) {
  if (sm::slurm::StartRuntime(sm::Carrier::kMetrics)) sm::slurm::BindSlurmctldRoutes();
  return SLURM_SUCCESS;  // never fail slurmctld's start over metrics
}

SM_EXPORT void fini(void) {
  sm::slurm::CloseSlurmctldRoutes();
  sm::slurm::StopRuntime();
}

SM_EXPORT sm_metric_set_t* metrics_p_parse_jobs_metrics(void*) {
  return MakeSet(sm::Endpoint::kJobs);
}
SM_EXPORT sm_metric_set_t* metrics_p_parse_nodes_metrics(void*) {
  return MakeSet(sm::Endpoint::kNodes);
}
SM_EXPORT sm_metric_set_t* metrics_p_parse_parts_metrics(void*) {
  return MakeSet(sm::Endpoint::kPartitions);
}
SM_EXPORT sm_metric_set_t* metrics_p_parse_sched_metrics(void*) {
  return MakeSet(sm::Endpoint::kScheduler);
}
SM_EXPORT sm_metric_set_t* metrics_p_parse_ua_metrics(void*) {
  return MakeSet(sm::Endpoint::kJobsUsersAccts);
}

// slurmctld xfree()s *buf: it must come from Slurm's allocator, whose
// header sits in front of the bytes.
SM_EXPORT int metrics_p_dump(sm_metric_set_t* set, char** buf) {
  if (!set || !buf || *buf) return SLURM_ERROR;
  const auto* cached = static_cast<const CachedBody*>(set->arg);
  if (!cached) return SLURM_SUCCESS;
  const std::string& text = cached->body ? cached->body->text() : cached->error;
  char* out = static_cast<char*>(xmalloc(text.size() + 1));
  std::memcpy(out, text.data(), text.size());
  out[text.size()] = '\0';
  *buf = out;
  return SLURM_SUCCESS;
}

SM_EXPORT int metrics_p_free_set(sm_metric_set_t* set) {
  if (!set) return SLURM_SUCCESS;
  delete static_cast<CachedBody*>(set->arg);
  delete set;
  return SLURM_SUCCESS;
}
