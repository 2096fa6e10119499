// SPDX-License-Identifier: GPL-2.0-or-later
// MIXED is never stored: slurmctld keeps a node ALLOCATED (or IDLE, ...)
// and whoever shows the node decides MIXED from its allocation. This is the
// one place that rule is written; the adapter uses it for what clients of
// this release print and for the class Slurm's statistics count a node in,
// and the shim to warn when a dump says otherwise.
#pragma once

#include <cstdint>

#include "slurm_api.h"
#include "model/snapshot.h"

namespace sm::slurm {

// select's allocated-TRES string is set: the node holds CPUs, memory or
// GPUs of some job (cons_tres formats it from exactly these).
inline bool HasAllocTres(int64_t alloc_cpus, int64_t alloc_memory_mb,
                         int64_t alloc_gpus) {
  return alloc_cpus > 0 || alloc_memory_mb > 0 || alloc_gpus > 0;
}

// The rule of 23.02+ clients (src/api/node_info.c _set_node_mixed_op())
// and of 26.05's statistics_get_nodes(), in Slurm's uint16 arithmetic:
// some but not all effective CPUs idle, or nothing allocated but some TRES
// (memory, GPUs).
inline bool MixedByAllocation(uint16_t cpus_efctv, uint16_t alloc_cpus,
                              bool alloc_tres) {
  const auto idle = static_cast<uint16_t>(cpus_efctv - alloc_cpus);
  return (idle && idle < cpus_efctv) || (alloc_tres && idle == cpus_efctv);
}

// MIXED as `scontrol show nodes`/slurmrestd of the release we build for
// print it (SHOW_MIXED), whatever the stored base.
inline bool ClientShowsMixed(uint16_t cpus_efctv, uint16_t alloc_cpus,
                             bool alloc_tres) {
#if SM_SLURM_AT_LEAST(23, 2)
  return MixedByAllocation(cpus_efctv, alloc_cpus, alloc_tres);
#else
  // 22.05's _set_node_mixed(): some, but not all, effective CPUs in use.
  (void)alloc_tres;
  return alloc_cpus && alloc_cpus != cpus_efctv;
#endif
}

// The class statistics_get_nodes() of Slurm 26.05's metrics/openmetrics
// counts a node in (what Node::statistics_base holds): FUTURE and DOWN
// first, then MIXED by allocation, then the stored ALLOCATED, IDLE or
// UNKNOWN; ERROR counts in none.
inline NodeBase StatisticsBase(NodeBase stored, uint16_t cpus_efctv,
                               uint16_t alloc_cpus, bool alloc_tres) {
  if (stored == NodeBase::kFuture || stored == NodeBase::kDown) return stored;
  if (stored == NodeBase::kMixed ||
      MixedByAllocation(cpus_efctv, alloc_cpus, alloc_tres))
    return NodeBase::kMixed;
  if (stored == NodeBase::kAllocated || stored == NodeBase::kIdle ||
      stored == NodeBase::kUnknown)
    return stored;
  return NodeBase::kNone;
}

}  // namespace sm::slurm
