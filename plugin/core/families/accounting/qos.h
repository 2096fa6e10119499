// SPDX-License-Identifier: GPL-2.0-or-later
// QoS usage (what `scontrol show assoc_mgr flags=qos` prints in brackets)
// and the limits set on each QoS (what `sacctmgr show qos` prints). No
// SckyzO equivalent: Prometheus naming.
#pragma once

#include "model/accounting_snapshot.h"
#include "exposition/exposition.h"

namespace sm {

// Every family AddQosFamilies() can build.
std::span<const FamilyDef* const> QosFamilies();

void AddQosFamilies(MetricSet& set, const QosSnapshot& qos);

}  // namespace sm
