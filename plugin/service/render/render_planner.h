// SPDX-License-Identifier: GPL-2.0-or-later
// What a render pass renders, rendering it, and publishing it into the
// cached bodies; and the render of one body a request asks for that is not
// cached. Bodies are made from the collected state under the apply lock
// (StateStore), never under the collector's mu_, and published under mu_
// only if no Deactivate() ran meanwhile (docs/architecture.md, "Threads
// and locks").
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>

#include "collect/collector_options.h"
#include "collect/state_store.h"
#include "families/soperator/self_monitoring.h"
#include "render/body_cache.h"
#include "render/endpoint_render.h"
#include "render/slots.h"

namespace sm {

class RenderPlanner {
 public:
  // `mu`: the collector's lock `cache` lives under; `hidden`: what the
  // public view leaves out now (changed under mu).
  RenderPlanner(std::mutex& mu, BodyCache& cache, StateStore& store,
                const std::atomic<PrivateData>& hidden,
                const CollectorOptions& options, SelfMonitoring& monitoring);

  // Renders and publishes every wanted body, unless a Deactivate() ran
  // since the tick of `epoch` started: PlanLocked, RenderPlanned, then
  // PublishLocked. True when published.
  bool RenderAll(uint64_t epoch);

  // A body rendered now from the current state for a request (our own
  // locks only; slurmctld's are never taken here), sized after
  // `size_hint`. `epoch` and `hidden` are set to the store's epoch and the
  // PrivateData mask the body was made with.
  std::shared_ptr<const Body> RenderOnRequest(Endpoint e, View view, size_t slot,
                                              size_t size_hint, uint64_t& epoch,
                                              PrivateData& hidden);

 private:
  // Which kept bodies to render again. With mu_ held.
  void PlanLocked(double now, RenderPlan& plan);
  // Renders the planned bodies (the apply lock per endpoint), then
  // compresses those wanted gzipped; true if any was rendered.
  bool RenderPlanned(RenderPlan& plan, WriteStats& stats);
  void Compress(RenderPlan& plan, WriteStats& stats) const;
  // Swaps the fresh bodies in; false if Deactivate() ran since `epoch`.
  // With mu_ held.
  bool PublishLocked(uint64_t epoch, RenderPlan& plan);

  std::mutex& mu_;
  BodyCache& cache_;
  StateStore& store_;
  const std::atomic<PrivateData>& hidden_;
  const CollectorOptions& options_;
  SelfMonitoring& monitoring_;
};

}  // namespace sm
