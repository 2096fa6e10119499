// SPDX-License-Identifier: GPL-2.0-or-later
// The description of each Slurm record the shim reads and writes: one
// table (fields.h) per record, in the order the writer prints its members
// (data_parser v0.0.45 for the cluster side, v0.0.42 for the accounting
// side, slurm_json.h). Dialect quirks are named functions next to their
// table (record_fields_cluster.cc, record_fields_accounting.cc,
// record_fields_diag.cc).
#pragma once

#include <vector>

#include "fields.h"

namespace shim::fields {

const std::vector<Field<NodeIn>>& NodeFields();
const std::vector<Field<JobIn>>& JobFields();
// One node of a job's job_resources (v0.0.41+; older ones are a quirk of
// JobFields()).
const std::vector<Field<AllocIn>>& AllocFields();
const std::vector<Field<PartitionIn>>& PartitionFields();
const std::vector<Field<LicenseIn>>& LicenseFields();
const std::vector<Field<ReservationIn>>& ReservationFields();
const std::vector<Field<QosIn>>& QosFields();
const std::vector<Field<ShareIn>>& ShareFields();
// sdiag's rpcs_by_message_type and rpcs_by_user entries.
const std::vector<Field<RpcTypeIn>>& RpcTypeFields();
const std::vector<Field<RpcUserIn>>& RpcUserFields();

// sdiag's values the shim names; every other number sdiag --json prints is
// kept by its key too (DiagIn::values). `label` is the line's name in the
// `section` of 22.05's sdiag text; the form is how sdiag --json prints it
// (timestamps as data_parser structs).
enum class SdiagSection : uint8_t { kNone, kGeneral, kMain, kBackfill };
struct DiagValue {
  const char* key;
  SdiagSection section;
  const char* label;
  Form form = Form::kPlain;
};
const std::vector<DiagValue>& DiagValues();

}  // namespace shim::fields
