// SPDX-License-Identifier: GPL-2.0-or-later
// The parts of the controller's state the collector copies on each tick,
// one typed entry per part. Adding a part (associations, licenses, ...)
// is a Source method, a ClusterState field and one entry in
// kSubCollectors; the collector schedules, isolates, counts and applies
// every entry the same way.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>

#include "endpoints.h"
#include "node_history.h"
#include "source.h"

namespace sm {

// Everything a render reads, guarded by the collector's apply lock.
struct CollectedState {
  explicit CollectedState(double start) : history(start) {}
  ClusterState cluster;
  NodeHistory history;
};

// A successful copy, ready to be stored into the state at monotonic time
// `now` (only when it is not stale: the collector decides).
using Applier = std::function<void(CollectedState&, double now)>;

struct SubCollectorDef {
  std::string_view name;  // the `collector` label of self-monitoring
  // Calls the Source; an empty Applier, and `error` set, on failure.
  Applier (*collect)(Source&, LockTiming&, std::string& error);
};

namespace sub_collectors {

// What a part does after it is stored, besides being rendered.
inline void ObserveNodes(CollectedState& s, const NodeSnapshot& n, double now) {
  s.history.Observe(n, now);
}

// Source::*Collect's snapshot into ClusterState::*Field, then Then().
template <auto Collect, auto Field, auto Then = nullptr>
Applier Into(Source& source, LockTiming& timing, std::string& error) {
  auto snapshot = (source.*Collect)(timing, error);
  if (!snapshot) return {};
  return [snapshot = std::move(snapshot)](CollectedState& s, double now) {
    // A type test, not `Then != nullptr`: gcc's -fsanitize=undefined
    // (-fno-delete-null-pointer-checks) makes a function's address
    // non-constant, and that comparison does not compile there.
    if constexpr (!std::is_null_pointer_v<decltype(Then)>)
      Then(s, *snapshot, now);
    s.cluster.*Field = snapshot;
  };
}

}  // namespace sub_collectors

inline constexpr SubCollectorDef kSubCollectors[] = {
    {"nodes", sub_collectors::Into<&Source::CollectNodes, &ClusterState::nodes,
                                   &sub_collectors::ObserveNodes>},
    {"jobs", sub_collectors::Into<&Source::CollectJobs, &ClusterState::jobs>},
    {"diag", sub_collectors::Into<&Source::CollectDiag, &ClusterState::diag>},
};
inline constexpr int kSubCollectorCount = std::size(kSubCollectors);

}  // namespace sm
