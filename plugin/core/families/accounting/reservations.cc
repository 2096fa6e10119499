// SPDX-License-Identifier: GPL-2.0-or-later
#include "families/accounting/reservations.h"

#include <array>
#include <map>
#include <vector>

#include "base/immortal.h"

namespace sm {
namespace {

// SckyzO's names, labels and HELP texts verbatim.
const FamilyDef kInfo{
    "slurm_reservation_info",
    "A metric with a constant '1' value labeled by reservation name, state, "
    "users, nodes, partition, and flags.",
    MetricType::kGauge,
    {"reservation_name", "state", "users", "nodes", "partition", "flags"}};
const FamilyDef kStart{
    "slurm_reservation_start_time_seconds",
    "The start time of the reservation in seconds since the Unix epoch.",
    MetricType::kGauge, {"reservation_name"}};
const FamilyDef kEnd{
    "slurm_reservation_end_time_seconds",
    "The end time of the reservation in seconds since the Unix epoch.",
    MetricType::kGauge, {"reservation_name"}};
const FamilyDef kNodeCount{"slurm_reservation_node_count",
                           "The number of nodes allocated to the reservation.",
                           MetricType::kGauge, {"reservation_name"}};
const FamilyDef kCoreCount{"slurm_reservation_core_count",
                           "The number of cores allocated to the reservation.",
                           MetricType::kGauge, {"reservation_name"}};

enum NodeCount { kAlloc, kIdle, kMix, kDown, kDrain, kPlanned, kOther, kHealthy };

// The count each base state adds to, by NodeBase.
constexpr NodeCount kByBase[] = {
    kOther,  // kNone
    kOther,  // kUnknown
    kDown,   // kDown
    kIdle,   // kIdle
    kAlloc,  // kAllocated
    kOther,  // kError
    kMix,    // kMixed
    kOther,  // kFuture
};
static_assert(std::size(kByBase) == static_cast<size_t>(NodeBase::kFuture) + 1);
const std::array<FamilyDef, 8> kNodeFamilies = {{
    {"slurm_reservation_nodes_alloc", "Allocated nodes in reservation",
     MetricType::kGauge, {"reservation"}},
    {"slurm_reservation_nodes_idle", "Idle nodes in reservation",
     MetricType::kGauge, {"reservation"}},
    {"slurm_reservation_nodes_mix", "Mixed nodes in reservation",
     MetricType::kGauge, {"reservation"}},
    {"slurm_reservation_nodes_down", "Down nodes in reservation",
     MetricType::kGauge, {"reservation"}},
    {"slurm_reservation_nodes_drain", "Drained nodes in reservation",
     MetricType::kGauge, {"reservation"}},
    {"slurm_reservation_nodes_planned", "Planned nodes in reservation",
     MetricType::kGauge, {"reservation"}},
    {"slurm_reservation_nodes_other", "Nodes in other states in reservation",
     MetricType::kGauge, {"reservation"}},
    {"slurm_reservation_nodes_healthy",
     "Healthy nodes in reservation (up base state, not drained)",
     MetricType::kGauge, {"reservation"}},
}};

const FamilyDef* const kAll[] = {&kInfo, &kStart, &kEnd, &kNodeCount,
                                 &kCoreCount};

}  // namespace

std::span<const FamilyDef* const> ReservationFamilies() { return kAll; }

std::span<const FamilyDef* const> ReservationNodeFamilies() {
  static const auto& kNodes = Immortal([] {
    std::vector<const FamilyDef*> out;
    for (const FamilyDef& f : kNodeFamilies) out.push_back(&f);
    return out;
  }());
  return kNodes;
}

void AddReservationFamilies(MetricSet& set, const ReservationSnapshot& snap) {
  Family& info = set.Add(kInfo);
  Family& start = set.Add(kStart);
  Family& end = set.Add(kEnd);
  Family& node_count = set.Add(kNodeCount);
  Family& core_count = set.Add(kCoreCount);
  for (const Reservation& r : snap.reservations) {
    info.Add({r.name, r.state, r.users, r.nodes, r.partition, r.flags}, 1);
    const std::string_view name[] = {r.name};
    if (r.start_time) start.Add(name, static_cast<double>(*r.start_time));
    if (r.end_time) end.Add(name, static_cast<double>(*r.end_time));
    node_count.Add(name, static_cast<double>(r.node_count));
    core_count.Add(name, static_cast<double>(r.core_count));
  }
}

void AddReservationNodeFamilies(MetricSet& set, const NodeSnapshot& nodes) {
  std::array<Family*, kNodeFamilies.size()> families;
  for (size_t i = 0; i < kNodeFamilies.size(); ++i)
    families[i] = &set.Add(kNodeFamilies[i]);
  // SckyzO counts from the State= word of `scontrol show nodes -o`: the base
  // state (MIXED as the clients derive it) and the DRAIN/PLANNED flags.
  std::map<std::string_view, std::array<uint64_t, kNodeFamilies.size()>> counts;
  for (const Node& n : nodes.nodes) {
    if (n.reservation.empty()) continue;
    auto& c = counts[n.reservation];
    const NodeCount base = kByBase[static_cast<size_t>(n.state.base)];
    ++c[base];
    const bool up = base != kDown && base != kOther;
    const bool drained = n.state.has(node_flag::kDrain);
    if (drained) ++c[kDrain];
    if (n.state.has(node_flag::kPlanned)) ++c[kPlanned];
    if (up && !drained) ++c[kHealthy];
  }
  for (const auto& [name, c] : counts) {
    const std::string_view label[] = {name};
    for (size_t i = 0; i < c.size(); ++i)
      families[i]->Add(label, static_cast<double>(c[i]));
  }
}

}  // namespace sm
