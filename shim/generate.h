// SPDX-License-Identifier: GPL-2.0-or-later
// Synthetic clusters of any size, for scale tests and benchmarks: built as
// the shim's model and written as Slurm 26.05's JSON (slurm_json.h).
// Deterministic for a given seed.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "model.h"

namespace shim {

struct GenerateOptions {
  int64_t nodes = 0, jobs = 0;  // --nodes, --jobs
  // --partitions, --reservations, --users, --rpc-types
  int64_t partitions = 4, reservations = 2, users = 50, rpc_types = 40;
  uint64_t seed = 1;
  int64_t now = 1800000000;  // the dumps' "now"
  std::string out;
};

// The synthetic cluster: nodes, jobs and sdiag statistics.
ClusterIn GenerateCluster(const GenerateOptions& options);

// Creates OUT if needed and writes OUT/nodes.json, OUT/jobs.json and OUT/sdiag.json; prints a
// summary on stderr.
void Generate(const GenerateOptions& options);

}  // namespace shim
