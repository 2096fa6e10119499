// SPDX-License-Identifier: GPL-2.0-or-later
#include "families/accounting/reservations.h"

#include <array>
#include <map>
#include <vector>

#include "families/family_rows.h"

namespace sm {
namespace {

using Row = FamilyRow<Reservation>;

template <typename T>
double D(T v) {
  return static_cast<double>(v);
}

// SckyzO's names, labels and HELP texts verbatim.
const Row kRows[] = {
    {{"slurm_reservation_info",
      "A metric with a constant '1' value labeled by reservation name, state, "
      "users, nodes, partition, and flags.",
      MetricType::kGauge,
      {"reservation_name", "state", "users", "nodes", "partition", "flags"}},
     [](Family& f, const Reservation& r) {
       f.Add({r.name, r.state, r.users, r.nodes, r.partition, r.flags}, 1);
     }},
    {{"slurm_reservation_start_time_seconds",
      "The start time of the reservation in seconds since the Unix epoch.",
      MetricType::kGauge, {"reservation_name"}},
     [](Family& f, const Reservation& r) {
       if (r.start_time) f.Add({r.name}, D(*r.start_time));
     }},
    {{"slurm_reservation_end_time_seconds",
      "The end time of the reservation in seconds since the Unix epoch.",
      MetricType::kGauge, {"reservation_name"}},
     [](Family& f, const Reservation& r) {
       if (r.end_time) f.Add({r.name}, D(*r.end_time));
     }},
    {{"slurm_reservation_node_count",
      "The number of nodes allocated to the reservation.", MetricType::kGauge,
      {"reservation_name"}},
     [](Family& f, const Reservation& r) { f.Add({r.name}, D(r.node_count)); }},
    {{"slurm_reservation_core_count",
      "The number of cores allocated to the reservation.", MetricType::kGauge,
      {"reservation_name"}},
     [](Family& f, const Reservation& r) { f.Add({r.name}, D(r.core_count)); }},
};

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

}  // namespace

std::span<const FamilyDef* const> ReservationFamilies() {
  return FamilyList<kRows>();
}
std::span<const FamilyDef* const> ReservationNodeFamilies() {
  return FamilyList<kNodeFamilies>();
}

void AddReservationFamilies(MetricSet& set, const ReservationSnapshot& snap) {
  AddRows<Reservation>(set, kRows, snap.reservations);
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
