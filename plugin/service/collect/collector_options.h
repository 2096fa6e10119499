// SPDX-License-Identifier: GPL-2.0-or-later
// What a Collector is configured with (exporter.cc makes it from the
// configuration; tests make their own). Its own header, so that each of
// the collector's roles (collect/, render/) reads it without collector.h.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "model/finished_jobs.h"
#include "serving/endpoints.h"

namespace sm {

struct CollectorOptions {
  std::chrono::milliseconds interval{30000};
  int max_inflight = 1;
  std::vector<Endpoint> endpoints;  // what to render
  // NativeValues, QueueUserLabel, NodeInfoNodesetLabel: how families are
  // rendered; `now` is set from unix_now at each render.
  RenderOptions render;
  std::vector<std::string> disabled_families;
  // IgnorePrivateData=yes: everyone gets the full view.
  bool ignore_private_data = false;
  // Most bytes the cached bodies (every endpoint, format and view, plain
  // and gzip) may hold together; 0: the default, kCachedBodyLimitFactor
  // times the largest body asked for lately, at least kMinCachedBodyLimit
  // (docs/configuration.md, "Cached bodies").
  uint64_t cached_body_limit = 0;
  // JobSource=accounting: finished jobs served for the lookback
  // (docs/configuration.md, "Finished jobs"); none: JobSource=controller.
  std::optional<FinishedJobLimits> finished_jobs;
  // IncrementalRender=no: every render writes every family and compresses
  // every byte again (docs/configuration.md; the comparison the tests
  // make).
  bool incremental_render = true;
  // Clocks, injectable for tests: monotonic seconds and unix seconds.
  std::function<double()> monotonic_now;
  std::function<int64_t()> unix_now;
};

}  // namespace sm
