// SPDX-License-Identifier: GPL-2.0-or-later
// Reservations as `scontrol show reservation` prints them, and the states
// of each active reservation's nodes as `scontrol show nodes` prints them:
// SckyzO's reservations and reservation_nodes collectors.
#pragma once

#include "model/accounting_snapshot.h"
#include "exposition/exposition.h"
#include "model/snapshot.h"

namespace sm {

// Every family AddReservationFamilies() can build (not the node states).
std::span<const FamilyDef* const> ReservationFamilies();

void AddReservationFamilies(MetricSet& set, const ReservationSnapshot& resv);

// From the node snapshot: every listed node whose active reservation is set
// counts in that reservation's slurm_reservation_nodes_* families.
// Every family AddReservationNodeFamilies() builds.
std::span<const FamilyDef* const> ReservationNodeFamilies();
void AddReservationNodeFamilies(MetricSet& set, const NodeSnapshot& nodes);

}  // namespace sm
