// SPDX-License-Identifier: GPL-2.0-or-later
// The shim's model (model.h) written back as Slurm 26.05's JSON
// (data_parser v0.0.45: `scontrol show nodes --json`, `scontrol show jobs
// --json`, `scontrol show partitions --json`, `sdiag --json`), and its
// accounting side as Slurm 24.11.5's (data_parser v0.0.42: `sshare -a
// --json`, `sacctmgr show qos --json`, `scontrol show licenses|reservations
// --json`, the forms of tests/fixtures/24.11.5-accounting), the form the
// reader (input.h) takes. Each record is written as its description says
// (record_fields.h), so a new input kind adds one table and one WriteDumps
// line. Only what the model
// holds is written; what Slurm prints besides (and the reader ignores) is
// left out.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "model.h"

namespace shim {

using ordered_json = nlohmann::ordered_json;

// Writes DIR/nodes.json, DIR/jobs.json, DIR/partitions.json,
// DIR/sdiag.json, DIR/licenses.json, DIR/reservations.json, DIR/qos.json
// and DIR/sshare.json for the parts `cluster` has (the directory must exist),
// each stamped with the cluster name and `now` as slurmctld stamps its
// responses. Records are written one at a time, never as one tree, so a
// 100,000-job file costs one job's JSON of memory. InputError when a file
// cannot be written.
void WriteDumps(const ClusterIn& cluster, int64_t now, const std::string& dir);

}  // namespace shim
