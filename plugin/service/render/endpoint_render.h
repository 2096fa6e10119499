// SPDX-License-Identifier: GPL-2.0-or-later
// The one render path: one endpoint's families built from the collected
// state once and written in the formats asked for, taking what did not
// change from the bodies they replace (docs/performance.md, "Render cost
// that follows change").
#pragma once

#include <array>
#include <cstddef>
#include <memory>

#include "body.h"
#include "collect/collector_options.h"
#include "sub_collectors.h"

namespace sm {

// What to render: one endpoint and view, in one or both formats (indexed
// like Slot() % 2: text, then OpenMetrics).
struct RenderRequest {
  Endpoint endpoint = Endpoint::kSoperator;
  PrivateData hidden = 0;  // what the body leaves out (0 for View::kFull)
  std::array<bool, 2> formats{};
  // Each output is sized after the previous body: one allocation, not a
  // doubling series.
  std::array<size_t, 2> reserve{};
  // The bodies the new ones replace (null: none): unless
  // IncrementalRender=no, what did not change is copied from them.
  std::array<const Body*, 2> earlier{};
};

// What a render pass adds up over its renders.
struct RenderTally {
  WriteStats stats;
  size_t groups_taken = 0;  // groups of families taken whole
  size_t rebuilt = 0;       // renders done again without taking groups
};

using RenderedBodies = std::array<std::shared_ptr<const Body>, 2>;

// Renders `request` from `state` (read under the apply lock). Groups of
// families are taken from the earlier bodies where their inputs did not
// change; should one not be there after all, the endpoint is rendered
// again without taking any (a body is never served short of families).
RenderedBodies RenderEndpoint(const RenderRequest& request, const CollectedState& state,
                              const CollectorOptions& options, RenderTally& tally);

}  // namespace sm
