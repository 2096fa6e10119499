// SPDX-License-Identifier: GPL-2.0-or-later
#include "render/render_planner.h"

#include <string>

#include "base/log.h"

namespace sm {
namespace {

// What a render sizes its output after: the body it replaces, or nothing.
size_t TextSize(const std::shared_ptr<const Body>& body) {
  return body ? body->text().size() : 0;
}

}  // namespace

RenderPlanner::RenderPlanner(std::mutex& mu, BodyCache& cache, StateStore& store,
                             const std::atomic<PrivateData>& hidden,
                             const CollectorOptions& options, SelfMonitoring& monitoring)
    : mu_(mu),
      cache_(cache),
      store_(store),
      hidden_(hidden),
      options_(options),
      monitoring_(monitoring) {}

bool RenderPlanner::RenderAll(uint64_t epoch) {
  if (epoch != store_.epoch()) return false;
  RenderPlan plan;
  {
    std::lock_guard lock(mu_);
    PlanLocked(options_.monotonic_now(), plan);
  }
  // The gauge covers the whole pass: every wanted endpoint and format, and
  // the compression of those scraped with gzip.
  const double t0 = options_.monotonic_now();
  WriteStats stats;
  if (RenderPlanned(plan, stats))
    monitoring_.Rendered(options_.monotonic_now() - t0, stats);
  std::lock_guard lock(mu_);
  return PublishLocked(epoch, plan);
}

void RenderPlanner::PlanLocked(double now, RenderPlan& plan) {
  plan.hidden = hidden_.load();
  cache_.Plan(now, plan);
}

bool RenderPlanner::RenderPlanned(RenderPlan& plan, WriteStats& stats) {
  bool rendered = false;
  RenderTally tally;
  // Public views exist only while something is hidden (see Collector::Get()).
  const bool views_differ = plan.hidden != 0;
  for (int e = 0; e < kEndpointCount; ++e) {
    for (View view : {View::kFull, View::kPublic}) {
      if (view == View::kPublic && !views_differ) continue;
      const auto endpoint = static_cast<Endpoint>(e);
      const size_t text = Slot(endpoint, view, Format::kText);
      const size_t om = Slot(endpoint, view, Format::kOpenMetrics);
      if (!plan.wanted[text] && !plan.wanted[om]) continue;
      const RenderRequest request{
          endpoint, view == View::kPublic ? plan.hidden : PrivateData{0},
          {plan.wanted[text], plan.wanted[om]},
          {TextSize(plan.earlier[text]), TextSize(plan.earlier[om])},
          {plan.earlier[text].get(), plan.earlier[om].get()}};
      RenderedBodies bodies;
      {
        std::lock_guard lock(store_.mu());
        bodies = RenderEndpoint(request, store_.state(), options_, tally);
      }
      plan.fresh[text] = std::move(bodies[0]);
      plan.fresh[om] = std::move(bodies[1]);
      rendered = true;
    }
  }
  stats = tally.stats;
  // Compress outside the apply lock so a finishing collection is not held up.
  Compress(plan, stats);
  if (rendered)
    LogDebug("render: " + std::to_string(tally.groups_taken) +
             " group(s) of families taken from the bodies replaced");
  return rendered;
}

// Pieces the body it replaces has are copied from that one's gzip form.
void RenderPlanner::Compress(RenderPlan& plan, WriteStats& stats) const {
  for (size_t i = 0; i < plan.fresh.size(); ++i) {
    if (!plan.fresh[i] || !plan.gzip[i]) continue;
    const Body* earlier = options_.incremental_render ? plan.earlier[i].get() : nullptr;
    plan.fresh[i]->gzipped(earlier);
    stats.gzip_pieces_reused += plan.fresh[i]->gzip_pieces_reused();
    stats.gzip_pieces_compressed +=
        plan.fresh[i]->gzip_pieces() - plan.fresh[i]->gzip_pieces_reused();
  }
}

bool RenderPlanner::PublishLocked(uint64_t epoch, RenderPlan& plan) {
  // Deactivate() bumps the epoch before it clears the bodies under mu_:
  // either we see the bump here, or it clears what we publish.
  if (epoch != store_.epoch()) return false;
  const PrivateData hidden_now = hidden_.load();
  cache_.Publish(
      plan, [&](size_t slot) { return MaskCurrent(slot, plan.hidden, hidden_now); },
      options_.monotonic_now());
  return true;
}

std::shared_ptr<const Body> RenderPlanner::RenderOnRequest(Endpoint e, View view,
                                                           size_t slot, size_t size_hint,
                                                           uint64_t& epoch,
                                                           PrivateData& hidden) {
  RenderRequest request{e};
  request.formats[slot % 2] = true;
  request.reserve[slot % 2] = size_hint;
  // No earlier body: a slot rendered per request has none kept.
  RenderTally tally;
  std::lock_guard lock(store_.mu());
  epoch = store_.epoch();
  hidden = view == View::kPublic ? hidden_.load() : PrivateData{0};
  request.hidden = hidden;
  return std::move(RenderEndpoint(request, store_.state(), options_, tally)[slot % 2]);
}

}  // namespace sm
