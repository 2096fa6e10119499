// SPDX-License-Identifier: GPL-2.0-or-later
// Synthetic clusters of any size, for scale tests and benchmarks: built as
// the shim's model and written as Slurm 26.05's JSON (slurm_json.h), the
// accounting side as 24.11.5's.
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
  // --accounts, --user-accounts (associations per user), --qos,
  // --licenses, --odd-names (hostile names added to each of these kinds)
  int64_t accounts = 7, user_accounts = 1, qos = 4, licenses = 4, odd_names = 1;
  uint64_t seed = 1;
  int64_t now = 1800000000;  // the dumps' "now"
  std::string out;
  // The RPC types of the Slurm release the shim is built for (KnownRpcs(),
  // vocabulary.h), which sdiag's per-type statistics name. Given by the
  // caller, so that the generator needs no Slurm header (shim/meson.build).
  std::vector<std::pair<uint16_t, std::string>> known_rpcs;
};

// The synthetic cluster: nodes, jobs, sdiag statistics, associations, QoS,
// licenses and reservations.
ClusterIn GenerateCluster(const GenerateOptions& options);

// Creates OUT if needed and writes OUT/nodes.json, OUT/jobs.json,
// OUT/sdiag.json, OUT/sshare.json, OUT/qos.json, OUT/licenses.json and
// OUT/reservations.json; prints a summary on stderr.
void Generate(const GenerateOptions& options);

}  // namespace shim
