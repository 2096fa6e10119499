// SPDX-License-Identifier: GPL-2.0-or-later
#include "private_data.h"

#include "exposition.h"

namespace sm {
namespace {

struct LabelClass {
  std::string_view label;
  PrivateData reveals;
};

// A label that names one of these things reveals it.
constexpr LabelClass kLabelClasses[] = {
    {"job_id", private_data::kJobs},
    {"user_name", private_data::kUsers},
    {"user", private_data::kUsers},
    {"user_id", private_data::kUsers},
    {"username", private_data::kUsers},
    {"user_mail", private_data::kUsers},
    {"account", private_data::kAccounts},
    {"node_name", private_data::kNodes},
    {"node", private_data::kNodes},
    {"partition", private_data::kPartitions},
    {"slurm_partition", private_data::kPartitions},
    {"reservation_name", private_data::kReservations},
    {"reservation", private_data::kReservations},
};

// slurm.conf's spelling, in the order scontrol show config prints them.
constexpr std::pair<PrivateData, std::string_view> kNames[] = {
    {private_data::kAccounts, "accounts"},
    {private_data::kJobs, "jobs"},
    {private_data::kNodes, "nodes"},
    {private_data::kPartitions, "partitions"},
    {private_data::kReservations, "reservations"},
    {private_data::kUsage, "usage"},
    {private_data::kUsers, "users"},
};

}  // namespace

PrivateData Reveals(const FamilyDef& def) {
  PrivateData p = def.reveals;
  for (std::string_view label : def.labels) {
    for (const LabelClass& c : kLabelClasses) {
      if (label == c.label) p |= c.reveals;
    }
  }
  return p;
}

std::string PrivateDataNames(PrivateData p) {
  std::string out;
  for (const auto& [bit, name] : kNames) {
    if (!(p & bit)) continue;
    if (!out.empty()) out.push_back(',');
    out.append(name);
  }
  return out;
}

}  // namespace sm
