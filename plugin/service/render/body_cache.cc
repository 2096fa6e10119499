// SPDX-License-Identifier: GPL-2.0-or-later
#include "render/body_cache.h"

#include <malloc.h>

#include <algorithm>
#include <limits>

namespace sm {

BodyCache::BodyCache(uint64_t limit, double keep_seconds, SelfMonitoring& monitoring)
    : limit_(limit), keep_seconds_(keep_seconds), monitoring_(monitoring) {
  asked_.fill(-std::numeric_limits<double>::infinity());
  gzip_asked_.fill(-std::numeric_limits<double>::infinity());
}

void BodyCache::Clear() {
  bodies_.fill(nullptr);
  ready_ = false;
}

void BodyCache::DropPublic() {
  for (size_t i = 0; i < bodies_.size(); ++i) {
    if (IsPublicSlot(i)) bodies_[i] = nullptr;
  }
}

void BodyCache::Warm(size_t slot, double now) {
  asked_[slot] = now;
  kept_[slot] = true;
}

void BodyCache::NoteAsked(size_t slot, bool gzip, double now) {
  asked_[slot] = now;
  if (gzip) gzip_asked_[slot] = now;
}

uint64_t BodyCache::CachedBytes() const {
  uint64_t bytes = 0;
  for (const auto& body : bodies_) {
    if (body) bytes += body->text().size() + body->gzipped_size();
  }
  return bytes;
}

uint64_t BodyCache::Limit(double now) const {
  if (limit_) return limit_;
  uint64_t largest = 0;
  for (size_t i = 0; i < kSlots; ++i) {
    if (now - asked_[i] <= keep_seconds_) largest = std::max(largest, last_bytes_[i]);
  }
  return std::max(kMinLimit, kLimitFactor * largest);
}

void BodyCache::Fit(double now, size_t keep) {
  const uint64_t limit = Limit(now);
  uint64_t bytes = CachedBytes();
  while (bytes > limit) {
    // The stalest first: not asked for within keep_seconds_ counts as
    // oldest anyway, since asked_ is older still.
    size_t victim = kSlots;
    for (size_t i = 0; i < kSlots; ++i) {
      if (!bodies_[i] || i == keep) continue;
      if (victim == kSlots || asked_[i] < asked_[victim]) victim = i;
    }
    if (victim == kSlots) break;
    bytes -= bodies_[victim]->text().size() + bodies_[victim]->gzipped_size();
    bodies_[victim] = nullptr;
    kept_[victim] = false;
  }
  monitoring_.CachedBodies(bytes, limit);
}

bool BodyCache::MayGzip(const Body& body, double now) const {
  return CachedBytes() + reserved_ + body.text().size() / 4 <= Limit(now);
}

bool BodyCache::Admit(size_t slot, bool gzip, double now, Admission& admit) {
  // What keeping it would cost, by its last render (or the largest body,
  // never rendered yet).
  uint64_t cost = last_bytes_[slot];
  if (!cost) {
    for (uint64_t b : last_bytes_) cost = std::max(cost, b);
  }
  admit.cost_hint = last_bytes_[slot];
  cost += gzip ? cost / 4 : 0;
  if (CachedBytes() + reserved_ + cost <= Limit(now)) {
    reserved_ += cost;
    admit.reserved = cost;
  } else if (uncached_inflight_ < kMaxUncachedRenders &&
             uncached_held_->load() + cost <= Limit(now)) {
    ++uncached_inflight_;
    admit.uncached = true;
  } else {
    monitoring_.UncachedRequest(/*refused=*/true);
    return false;
  }
  return true;
}

void BodyCache::Release(const Admission& admit) {
  reserved_ -= admit.reserved;
  if (admit.uncached) --uncached_inflight_;
}

std::shared_ptr<const Body> BodyCache::HandOut(size_t slot,
                                               std::shared_ptr<const Body> body,
                                               const Admission& admit, bool may_keep,
                                               double now) {
  last_bytes_[slot] = body->text().size();
  if (bodies_[slot]) return bodies_[slot];  // another request kept it meanwhile
  if (!admit.uncached && may_keep &&
      CachedBytes() + (reserved_ - admit.reserved) + body->text().size() <= Limit(now)) {
    // Kept: every render pass keeps it fresh while it is asked for.
    bodies_[slot] = body;
    kept_[slot] = true;
    Fit(now, slot);
    return body;
  }
  return HoldUncached(std::move(body));
}

// Served to one request alone: never kept, so the cache never grows past
// the limit (docs/configuration.md, "Cached bodies"). Once sent and freed,
// its pages go back to the kernel: glibc would keep them in the arena of
// the thread that rendered it, so each uncached render would leave
// slurmctld a body larger (tests/shim/cached_bodies.py).
std::shared_ptr<const Body> BodyCache::HoldUncached(std::shared_ptr<const Body> body) {
  monitoring_.UncachedRequest(/*refused=*/false);
  const Body* raw = body.get();
  // Its gzip form, if the request makes one, counts at a quarter of the
  // text, as in Admit().
  const uint64_t held_bytes = raw->text().size() + raw->text().size() / 4;
  *uncached_held_ += held_bytes;
  return std::shared_ptr<const Body>(
      raw, [held = std::move(body), count = uncached_held_, held_bytes](const Body*) mutable {
        held.reset();
        *count -= held_bytes;
        malloc_trim(0);
      });
}

void BodyCache::Plan(double now, RenderPlan& plan) {
  // The most recently asked for first: they keep their place under the
  // limit, by the size of their last render (a new one may differ;
  // Publish() checks again).
  std::array<size_t, kSlots> order;
  for (size_t i = 0; i < kSlots; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [this](size_t a, size_t b) { return asked_[a] > asked_[b]; });
  const uint64_t limit = Limit(now);
  uint64_t planned = 0;
  for (size_t i : order) {
    if (!kept_[i]) continue;
    if (now - asked_[i] > keep_seconds_) {
      kept_[i] = false;  // nobody asked lately: dropped, no longer rendered
      continue;
    }
    const bool compressed = now - gzip_asked_[i] <= keep_seconds_;
    const uint64_t cost = last_bytes_[i] + (compressed ? last_bytes_[i] / 4 : 0);
    if (planned + cost > limit) {
      kept_[i] = false;  // does not fit: rendered per request from now on
      continue;
    }
    planned += cost;
    plan.wanted[i] = true;
    plan.gzip[i] = compressed;
    plan.earlier[i] = bodies_[i];
  }
}

void BodyCache::Publish(RenderPlan& plan, const std::function<bool(size_t)>& current,
                        double now) {
  for (size_t i = 0; i < plan.fresh.size(); ++i) {
    if (plan.fresh[i]) last_bytes_[i] = plan.fresh[i]->text().size();
    if (plan.wanted[i] && !current(i)) {
      // PrivateData changed while this render ran: the public bodies were
      // dropped, and one made with the old mask never comes back
      // (tests/unit/collector_test.cc,
      // PublicBodyOfAnOldPrivateDataIsNeverServed).
      bodies_[i] = nullptr;
    } else if (plan.wanted[i]) {
      bodies_[i] = std::move(plan.fresh[i]);
    } else if (!kept_[i]) {
      // Not asked for lately, or no room: dropped (a scrape still sending
      // it keeps its own reference). One a request kept during this
      // render (kept_ again) stays.
      bodies_[i] = nullptr;
    }
  }
  // The new renders by their real sizes: the least recently asked for go
  // if they no longer fit.
  Fit(now);
  ready_ = true;
}

}  // namespace sm
