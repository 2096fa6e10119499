// SPDX-License-Identifier: GPL-2.0-or-later
// The collector's cached bodies under their byte budget: which body each
// slot holds, when each was last asked for, which are kept fresh by every
// tick, and the renders a request admits past them (docs/configuration.md,
// "Cached bodies"). It has no lock of its own: every method is called with
// the collector's mu_ held (docs/architecture.md, "Threads and locks").
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>

#include "body.h"
#include "families/soperator/self_monitoring.h"
#include "render/slots.h"

namespace sm {

class BodyCache {
 public:
  // The default limit: one scraper of every path in one format, with gzip,
  // fits; a client asking for every variant does not.
  static constexpr uint64_t kLimitFactor = 4;
  static constexpr uint64_t kMinLimit = uint64_t{16} << 20;
  // Renders for a request alone (not cached) at a time; more are refused.
  // Each holds a body's worth of memory until it is sent.
  static constexpr int kMaxUncachedRenders = 1;

  // `limit`: CollectorOptions::cached_body_limit (0: the default).
  // `keep_seconds`: how long a body not asked for is still rendered.
  BodyCache(uint64_t limit, double keep_seconds, SelfMonitoring& monitoring);

  // Published at least once since the last Clear(): what Ready() says.
  bool ready() const { return ready_; }
  const std::shared_ptr<const Body>& body(size_t slot) const { return bodies_[slot]; }
  // Drops every body (standby, a Stop() that left threads): not ready.
  void Clear();
  // Drops the public bodies: PrivateData changed what they leave out.
  void DropPublic();
  // Kept and as if just asked for: the carrier's own paths, from start.
  void Warm(size_t slot, double now);
  void NoteAsked(size_t slot, bool gzip, double now);

  // Bytes the cached bodies hold (plain and the gzip forms made so far),
  // and their limit now.
  uint64_t CachedBytes() const;
  uint64_t Limit(double now) const;
  // Drops cached bodies until they fit under the limit: those not asked
  // for within keep_seconds first, then the least recently asked for
  // (except `keep`, the one a request is about to get). Publishes the
  // gauge.
  void Fit(double now, size_t keep = kSlots);
  // Whether a scrape may compress `body` into the cache (about a quarter
  // of the text at most, level 1): only if that fits.
  bool MayGzip(const Body& body, double now) const;

  // A body rendered on request: either its bytes are reserved under the
  // limit to keep it, or it is rendered for this request alone.
  struct Admission {
    uint64_t reserved = 0;  // bytes reserved under the limit to keep it
    bool uncached = false;  // rendered for this request alone
    size_t cost_hint = 0;   // its last render's size
  };
  // False when neither fits (the request is busy: counted as refused).
  bool Admit(size_t slot, bool gzip, double now, Admission& admit);
  // The reservation goes, whatever the render did.
  void Release(const Admission& admit);
  // What a request rendered gets: the body another request kept meanwhile,
  // `body` kept (if it fits and `may_keep`), or `body` for this request
  // alone, its bytes counted until it is freed.
  std::shared_ptr<const Body> HandOut(size_t slot, std::shared_ptr<const Body> body,
                                      const Admission& admit, bool may_keep, double now);

  // Which kept bodies a render pass renders again, most recently asked
  // for first, within the limit; drops the rest from the kept ones.
  void Plan(double now, RenderPlan& plan);
  // Swaps the fresh bodies of `plan` in (a public one only if
  // `current(slot)`), fits them under the limit and marks the cache ready.
  void Publish(RenderPlan& plan, const std::function<bool(size_t)>& current, double now);

 private:
  std::shared_ptr<const Body> HoldUncached(std::shared_ptr<const Body> body);

  uint64_t limit_;
  double keep_seconds_;
  SelfMonitoring& monitoring_;
  bool ready_ = false;
  // Published bodies by endpoint, view and format (Slot()); nullptr = not
  // rendered (yet, or no longer).
  std::array<std::shared_ptr<const Body>, kSlots> bodies_;
  // When each body was last asked for (monotonic seconds; -inf: never),
  // plain and gzip. A tick renders (and compresses) only what was asked
  // for within keep_seconds_; the rest is dropped, and rendered again on
  // the request that next asks for it.
  std::array<double, kSlots> asked_;
  std::array<double, kSlots> gzip_asked_;
  // Bodies admitted under the limit: a render pass renders these (while
  // asked for), and only these; a body that did not fit is rendered per
  // request.
  std::array<bool, kSlots> kept_{};
  // Size of each body's last render (text), kept after it is dropped: what
  // admitting it again would cost, and the "largest body" of the limit.
  std::array<uint64_t, kSlots> last_bytes_{};
  // Bytes of renders under way that are meant for the cache, and renders
  // under way for one request alone.
  uint64_t reserved_ = 0;
  int uncached_inflight_ = 0;
  // Bytes of bodies rendered for one request alone that requests still
  // hold (a slow reader keeps one up to the write deadline), their gzip
  // forms counted at a quarter: under the cache's limit too, past it
  // refused (docs/configuration.md, "Cached bodies"). Shared with the
  // bodies handed out, which may outlive the cache.
  std::shared_ptr<std::atomic<uint64_t>> uncached_held_ =
      std::make_shared<std::atomic<uint64_t>>(0);
};

}  // namespace sm
