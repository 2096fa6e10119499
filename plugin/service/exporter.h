// SPDX-License-Identifier: GPL-2.0-or-later
// Everything a carrier starts and stops: the collector, the self-monitoring
// state and the optional HTTP listeners, wired to one Source.
#pragma once

#include <memory>

#include "collector.h"
#include "config/exporter_config.h"
#include "http/listener.h"
#include "families/soperator/self_monitoring.h"
#include "source.h"

namespace sm {

enum class Carrier {
  kJobSubmit,  // JobSubmitPlugins=soperator: our listener is the product
  kMetrics,    // MetricsType=metrics/soperator: slurmctld serves the paths
};

// The carrier as Slurm names the plugin (build_info's `carrier` label).
inline const char* CarrierName(Carrier c) {
  return c == Carrier::kJobSubmit ? "job_submit/soperator" : "metrics/soperator";
}

// For drivers other than slurmctld: virtual clocks and collections on
// demand (unit tests; the shim's builds of the carriers, through
// shim/offline_hooks.cc). The installed carriers always pass the default:
// real clocks and the collector's own ticker.
struct OfflineControl {
  std::function<double()> monotonic_now;
  std::function<int64_t()> unix_now;
  bool manual_ticks = false;
};

class Exporter {
 public:
  Exporter(Source& source, Config config, Carrier carrier,
           const OfflineControl& offline = {});
  ~Exporter();

  void Start();
  // Stops the listeners and the collector; idempotent. Returns the number
  // of collection threads it did not wait for (Collector::Stop()): while
  // not 0 this Exporter and its Source must never be destroyed.
  int Stop();
  // For exit() without fini(): stops the listeners and the render thread,
  // joining them, and leaves the collection workers to stop on their own
  // (see Collector::StopRendering). Nothing of ours serves or renders
  // after it returns. Safe before or after Stop().
  void StopServing();

  Collector& collector() { return collector_; }
  SelfMonitoring& monitoring() { return monitoring_; }
  const Config& config() const { return config_; }
  HttpListener* main_listener() { return main_.get(); }
  HttpListener* monitoring_listener() { return monitoring_listener_.get(); }

  HttpResponse ServeMain(const HttpRequest& req);
  HttpResponse ServeMonitoring(const HttpRequest& req);
  // The slurm_exporter_* families, wherever they are served from.
  HttpResponse ServeSelfMonitoring(const HttpRequest& req);
  // One endpoint's cached body, negotiated (OpenMetrics, gzip); `counted`
  // adds the request to Soperator's request counter (its /metrics).
  // Before the first collection: waits up to `wait_ready` for it, then
  // 503 with Retry-After, never an empty 200 (docs/scraping.md, "Before
  // the first collection"). slurmctld's threads pass 0. With
  // OnRequest::kCachedOnly a body not cached is not rendered: the answer
  // then has status 0 and nothing is counted (slurmctld_routes.cc asks
  // again once it holds a render slot).
  HttpResponse ServeEndpoint(
      Endpoint e, const HttpRequest& req, bool counted,
      std::chrono::milliseconds wait_ready = Collector::kFirstCollectionWait,
      Collector::OnRequest on_request = Collector::OnRequest::kRender);

 private:
  Config config_;
  Carrier carrier_;
  bool manual_ticks_;
  SelfMonitoring monitoring_;
  Collector collector_;
  std::unique_ptr<HttpListener> main_;
  std::unique_ptr<HttpListener> monitoring_listener_;
  // Threads Stop() left to end on their own.
  int abandoned_ = 0;
};

}  // namespace sm
