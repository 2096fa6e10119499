// SPDX-License-Identifier: GPL-2.0-or-later
// slurm.conf's PrivateData in our terms. Slurm hides these kinds of
// information from users who are not operators; we hide the series that
// would reveal them from scrapers that did not authenticate. The adapter
// maps Slurm's PRIVATE_DATA_* bits to these; the core decides which
// families reveal what, from their label names (one rule for every
// family, present and future) plus what a family declares itself.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace sm {

struct FamilyDef;

using PrivateData = uint16_t;

namespace private_data {
inline constexpr PrivateData kJobs = 1u << 0;
inline constexpr PrivateData kNodes = 1u << 1;
inline constexpr PrivateData kPartitions = 1u << 2;
inline constexpr PrivateData kUsage = 1u << 3;
inline constexpr PrivateData kUsers = 1u << 4;
inline constexpr PrivateData kAccounts = 1u << 5;
inline constexpr PrivateData kReservations = 1u << 6;
}  // namespace private_data

// What the series of `def` reveal: the classes its label names name
// (job_id: jobs; user_name, user, user_id, username, user_mail: users;
// account: accounts; node_name, node: nodes; partition, slurm_partition:
// partitions; reservation_name, reservation: reservations), plus
// def.reveals (e.g. usage, which no label name tells).
PrivateData Reveals(const FamilyDef& def);

// "jobs,users" in slurm.conf's words and order; "" for none.
std::string PrivateDataNames(PrivateData p);

}  // namespace sm
