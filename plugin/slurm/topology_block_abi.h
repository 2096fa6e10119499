// SPDX-License-Identifier: GPL-2.0-or-later
// topology/block's answer to topology_g_get(TOPO_DATA_TOPOLOGY_PTR), which
// the plugin defines in its own source only
// (src/plugins/topology/block/topology_block.c: topoinfo_bblock_t and
// topoinfo_block_t; the same from 24.11.5 to 26.05.3, while 23.11 and
// 24.05 have neither `aggregated` nor `size` and list base blocks only).
// Ours, so that node_groups.cc can read it and the shim can stand in for
// it; the real-daemon test compares what we read with `scontrol show
// topology` (tests/integration/test_node_groups.py).
#pragma once

#include <cstdint>

#include "slurm_api.h"

namespace sm::slurm::abi {

struct BlockRecord {
#if SM_SLURM_AT_LEAST(24, 11)
  bool aggregated;
#endif
  uint16_t block_index;
  char* name;
  char* nodes;
#if SM_SLURM_AT_LEAST(24, 11)
  uint32_t size;
#endif
};

struct BlockTopology {
  uint32_t record_count;
  BlockRecord* records;
};

inline bool IsAggregated([[maybe_unused]] const BlockRecord& r) {
#if SM_SLURM_AT_LEAST(24, 11)
  return r.aggregated;
#else
  return false;
#endif
}

}  // namespace sm::slurm::abi
