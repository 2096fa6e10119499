// SPDX-License-Identifier: GPL-2.0-or-later
// Where a body lives among the collector's cached bodies: one slot per
// endpoint, view and format, and what one render pass does with them.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "body.h"
#include "exposition/exposition.h"
#include "serving/endpoints.h"
#include "serving/private_data.h"

namespace sm {

// Who a body is for. kPublic leaves out the families that reveal what
// slurm.conf's PrivateData hides (private_data.h); while PrivateData hides
// nothing, or IgnorePrivateData is set, both views are the same body.
enum class View : uint8_t {
  kFull,    // authenticated scrapers, slurmctld's own access-checked paths
  kPublic,  // anyone else
};

inline constexpr size_t kSlots = kEndpointCount * 2 * 2;

// Text and OpenMetrics of one endpoint and view are neighbours: Slot() % 2
// is the format.
inline size_t Slot(Endpoint e, View v, Format f) {
  return (static_cast<size_t>(e) * 2 + static_cast<size_t>(v)) * 2 +
         (f == Format::kOpenMetrics ? 1 : 0);
}
inline bool IsPublicSlot(size_t slot) {
  return (slot / 2) % 2 == static_cast<size_t>(View::kPublic);
}

// False when a body of `slot` made with the mask `made_with` must not be
// kept or served: a public body made before the PrivateData mask changed
// to `hidden_now` (tests/unit/collector_test.cc,
// PublicBodyOfAnOldPrivateDataIsNeverServed).
inline bool MaskCurrent(size_t slot, PrivateData made_with, PrivateData hidden_now) {
  return !IsPublicSlot(slot) || made_with == hidden_now;
}

// What one render pass (RenderPlanner::RenderAll) renders, by slot.
struct RenderPlan {
  // What the public view leaves out, as the plan was made: the public
  // bodies are made with it, and published only if it is still current.
  PrivateData hidden = 0;
  std::array<bool, kSlots> wanted{};
  std::array<bool, kSlots> gzip{};
  // The bodies the fresh ones replace, held until they are published.
  std::array<std::shared_ptr<const Body>, kSlots> earlier;
  std::array<std::shared_ptr<const Body>, kSlots> fresh;
};

}  // namespace sm
