// SPDX-License-Identifier: GPL-2.0-or-later
// slurm.conf's PrivateData in our terms. Slurm hides these kinds of
// information from users who are not operators; we hide the series that
// would reveal them from scrapers that did not authenticate. The adapter
// maps Slurm's PRIVATE_DATA_* bits to these; the core decides which
// families reveal what, from a table of every label name (one rule for
// every family, present and future) plus what a family declares itself.
#pragma once

#include <cstdint>
#include <span>
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
inline constexpr PrivateData kEveryPrivateData = 0x7f;
}  // namespace private_data

// What one label name tells, decided against what Slurm shows a user who
// is not an operator under each PrivateData flag (docs/configuration.md,
// "PrivateData and slurmctld's own metrics port"). `only_in`: the label
// name means this only in that family; anywhere else it is unclassified.
struct LabelClass {
  std::string_view label;
  PrivateData reveals;  // 0: names nothing PrivateData hides
  std::string_view only_in = {};
};
// Every label name any family carries. A label missing here makes its
// family hidden whenever any PrivateData is set (fail closed), and
// tests/unit/private_data_test.cc fails for it.
std::span<const LabelClass> LabelClasses();
// The class of `label` in family `family`; nullptr when unclassified.
const LabelClass* FindLabelClass(std::string_view family, std::string_view label);

// What the series of `def` reveal: the classes of its label names
// (LabelClasses()), plus def.reveals (e.g. usage, which no label name
// tells); every class when a label name is unclassified.
PrivateData Reveals(const FamilyDef& def);

// Tests: called with every family Reveals() is asked about (MetricSet::Add
// asks for each family while anything is hidden), to enumerate families.
// nullptr: none.
void SetRevealsObserver(void (*observer)(const FamilyDef&));

// "jobs,users" in slurm.conf's words and order; "" for none.
std::string PrivateDataNames(PrivateData p);

}  // namespace sm
