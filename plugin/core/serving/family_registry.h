// SPDX-License-Identifier: GPL-2.0-or-later
// Every family the metrics paths serve, in one table of groups: which
// families a group has, which endpoints serve it, which parts of the
// controller's state it reads and the function that adds it. The endpoints
// (endpoints.cc), the sub-collectors a DisabledFamilies list can switch off
// (sub_collectors.h), the names a builder leaves to another group, and the
// check of DisabledFamilies (exporter_config.cc) all read this table.
// docs/testing.md, "Adding a family", says what a new family touches.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string_view>

#include "serving/endpoints.h"
#include "serving/group_inputs.h"
#include "exposition/exposition.h"
#include "families/soperator/node_history.h"
#include "families/ours/queue_wait.h"

namespace sm {

struct Config;  // config/exporter_config.h

// A set of endpoints, one bit per Endpoint.
using EndpointSet = uint8_t;
constexpr EndpointSet Endpoints(std::initializer_list<Endpoint> endpoints) {
  EndpointSet set = 0;
  for (Endpoint e : endpoints) set |= EndpointSet{1} << static_cast<int>(e);
  return set;
}
constexpr bool Contains(EndpointSet set, Endpoint e) {
  return (set >> static_cast<int>(e)) & 1;
}

// Every group of families: where it is served, what it reads and the
// function that adds it. Rows name their fields (family_registry.cc);
// what a row leaves out is 0 or null.
struct FamilyGroup {
  std::string_view name;  // for tests and messages
  EndpointSet endpoints = 0;  // where it is served
  // Endpoints where a family name this group shares with another group
  // served there is left to the other one: a body carries one family of a
  // name (docs/metrics-native.md).
  EndpointSet yields = 0;
  // The parts that must be there for the group to be added.
  StateParts needs = 0;
  // The rest of what `add` reads (GroupInputs): a part used when present,
  // the clock, a history.
  StateParts also_reads = 0;
  // Every family `add` can add, in the order it adds them.
  std::span<const FamilyDef* const> (*families)() = nullptr;
  void (*add)(MetricSet& set, const GroupInputs& in) = nullptr;
  // The parts its families follow from, with the render options, when
  // that is all they follow from (not the clock, not a history): a render
  // may take them from the body it replaces while those parts' content is
  // what it was (GroupReuse, plugin/service/render/group_reuse.h). 0:
  // built every render. What `add` reads must be among them
  // (group_inputs.h).
  StateParts follows = 0;
};

// The table, in the order the families are added to a body (the order
// matters only between families of one name; see MetricSet::Seal).
std::span<const FamilyGroup> FamilyGroups();

// The group named `name`, or null.
const FamilyGroup* FindFamilyGroup(std::string_view name);

// The names of `group` not built on `e` (GroupInputs::skip).
std::span<const std::string_view> YieldedNames(const FamilyGroup& group,
                                               Endpoint e);

// Every family of `part`'s groups, for a sub-collector whose part feeds
// nothing else (SubCollectorDef::families).
template <StateParts part>
std::span<const FamilyDef* const> FamiliesOfPart();
std::span<const FamilyDef* const> FamiliesOfPart(StateParts part);

// Families served on none of the endpoints above but on the
// self-monitoring path (exporter.cc, ServeSelfMonitoring): the
// slurm_exporter_* families and the accounting-status ones. DisabledFamilies
// knows and drops them like the groups' families.
std::span<const FamilyDef* const> FamiliesServedBeside();

// A cardinality switch (docs/configuration.md): set to no, it disables its
// families as DisabledFamilies would.
struct FamilySwitch {
  std::string_view option;  // its name in soperator_metrics.conf
  bool Config::*on;
  std::span<const FamilyDef* const> (*families)();
};
std::span<const FamilySwitch> FamilySwitches();

// Whether some group, or the self-monitoring path, has a family of this
// name: what DisabledFamilies accepts.
bool IsKnownFamily(std::string_view name);

// The known family name closest to `name` (edit distance, case ignored),
// when one is close enough to be a likely misspelling.
std::optional<std::string_view> NearestFamily(std::string_view name);

template <StateParts part>
std::span<const FamilyDef* const> FamiliesOfPart() {
  return FamiliesOfPart(part);
}

}  // namespace sm
