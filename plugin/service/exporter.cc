// SPDX-License-Identifier: GPL-2.0-or-later
#include "exporter.h"

#include <optional>

#include "base/log.h"
#include "exposition/negotiation.h"
#include "serving/family_registry.h"
#include "slurmctld_routes.h"
#include "http/web_security.h"

namespace sm {
namespace {

std::vector<Endpoint> EndpointsFor(Carrier c, bool listener) {
  if (c == Carrier::kJobSubmit) return {Endpoint::kSoperator};
  std::vector<Endpoint> e = {Endpoint::kNodes, Endpoint::kJobs,
                             Endpoint::kPartitions, Endpoint::kScheduler,
                             Endpoint::kJobsUsersAccts};
  if (listener) e.push_back(Endpoint::kEverything);
  return e;
}

// The listener is the job_submit carrier's whole point; under MetricsType
// slurmctld serves the paths itself and ours runs only when asked for.
bool WantsListener(Carrier c, const Config& config) {
  return c == Carrier::kJobSubmit || config.metrics_bind_address_set;
}

CollectorOptions MakeOptions(const Config& config, Carrier carrier,
                             const OfflineControl& offline) {
  CollectorOptions o;
  o.monotonic_now = offline.monotonic_now;
  o.unix_now = offline.unix_now;
  o.interval = config.collection_interval;
  o.max_inflight = config.max_collector_inflight;
  o.endpoints = EndpointsFor(carrier, WantsListener(carrier, config));
  o.render.native_values = config.native_values;
  o.ignore_private_data = config.ignore_private_data;
  o.incremental_render = config.incremental_render;
  o.disabled_families = config.disabled_families;
  // The cardinality switches turn whole families off, like
  // DisabledFamilies (and a part none of whose families is left is not
  // collected at all); QueueUserLabel changes labels instead.
  for (const FamilySwitch& s : FamilySwitches()) {
    if (config.*s.on) continue;
    for (const FamilyDef* f : s.families()) o.disabled_families.emplace_back(f->name);
  }
  o.render.pending_user_label = config.queue_user_label;
  o.render.node_info_nodeset = config.node_info_nodeset_label;
  if (config.job_source == JobSource::kAccounting) {
    FinishedJobLimits f;
    f.lookback_seconds = std::chrono::duration_cast<std::chrono::seconds>(
                             config.accounting_jobs_lookback)
                             .count();
    f.max_jobs = static_cast<size_t>(config.accounting_jobs_max);
    f.max_bytes = static_cast<size_t>(config.accounting_jobs_max_bytes);
    o.finished_jobs = f;
  }
  return o;
}

HttpResponse Text(int status, std::string text) {
  HttpResponse r;
  r.status = status;
  r.text = std::move(text);
  return r;
}

HttpResponse Exposition(std::shared_ptr<const Body> body, const HttpRequest& req,
                        Format f, bool may_gzip = true) {
  HttpResponse r;
  r.content_type = std::string(f == Format::kOpenMetrics
                                   ? kOpenMetricsContentType
                                   : kTextContentType);
  r.gzip = may_gzip && req.accepts_gzip && !body->text().empty();
  r.body = std::move(body);
  return r;
}

// What a 503 for data not (yet) there suggests: about one first collection
// at 50,000 jobs (docs/performance.md).
constexpr int kRetryAfterSeconds = 5;

bool Readable(const HttpRequest& req) {
  return req.method == "GET" || req.method == "HEAD";
}

}  // namespace

Exporter::Exporter(Source& source, Config config, Carrier carrier,
                   const OfflineControl& offline)
    : config_(std::move(config)),
      carrier_(carrier),
      manual_ticks_(offline.manual_ticks),
      collector_(source, MakeOptions(config_, carrier, offline), monitoring_) {}

// Never reached with threads left running: the runtime leaks an Exporter
// whose Stop() returned non-zero (plugin/slurm/runtime.cc).
Exporter::~Exporter() { Stop(); }

void Exporter::Start() {
  if (!WantsListener(carrier_, config_)) {
    collector_.Start(!manual_ticks_);
    return;
  }
  // Fail closed: a listener option that is wrong means no listener, never
  // one on an address or for peers the admin did not ask for. Then, on
  // the job_submit carrier, nothing can be served at all, and the
  // collector does not run either: it would take slurmctld's locks every
  // interval for nobody (docs/troubleshooting.md, "Nothing listens").
  // Under MetricsType slurmctld's own routes still serve: it runs.
  const char* collecting = carrier_ == Carrier::kJobSubmit
                               ? "; the listeners and the collector do not start"
                               : "; the listeners do not start";
  const auto refuse = [&](const std::string& why) {
    LogError(why + collecting);
    if (carrier_ != Carrier::kJobSubmit) collector_.Start(!manual_ticks_);
  };
  if (!config_.listener_config_error.empty()) {
    refuse(config_.listener_config_error);
    return;
  }
  // One WebSecurity per listener: its rate_limit bucket is per listener
  // (docs/configuration.md), so /metrics scrapes cannot use up the
  // monitoring listener's budget.
  std::shared_ptr<WebSecurity> security, monitoring_security;
  if (!config_.web_config_file.empty()) {
    std::string error;
    security = WebSecurity::Load(config_.web_config_file, &error);
    if (security) monitoring_security = WebSecurity::Load(config_.web_config_file, &error);
    if (!security || !monitoring_security) {
      refuse("WebConfigFile " + config_.web_config_file + ": " + error);
      return;
    }
  }
  collector_.Start(!manual_ticks_);
  auto options = [&](const char* name, const std::string& address, int threads,
                     std::shared_ptr<WebSecurity> web) {
    ListenerOptions o;
    o.name = name;
    std::string why;
    o.address = *ParseBindAddress(address, &why);  // checked by LoadConfig
    o.threads = threads;
    o.security = std::move(web);
    o.allowed_networks = config_.allowed_networks;
    return o;
  };
  main_ = std::make_unique<HttpListener>(
      options("metrics listener", config_.metrics_bind_address, config_.listener_threads,
              security),
      [this](const HttpRequest& r) { return ServeMain(r); });
  main_->Start();
  if (!config_.monitoring_conflicts) {
    monitoring_listener_ = std::make_unique<HttpListener>(
        options("monitoring listener", config_.monitoring_bind_address, 2,
                monitoring_security),
        [this](const HttpRequest& r) { return ServeMonitoring(r); });
    monitoring_listener_->Start();
  }
}

int Exporter::Stop() {
  StopServing();  // listeners first: their handlers read the collector
  if (!abandoned_) abandoned_ = collector_.Stop();
  return abandoned_;
}

void Exporter::StopServing() {
  // The collector first: it ends a listener worker's wait for the first
  // collection (up to 5 s) at once, so joining the listeners below waits
  // for no such wait (fini() may hold slurmctld's locks). Their handlers
  // may still read the collector meanwhile: it stays whole.
  collector_.StopRendering();
  if (main_) main_->Stop();
  if (monitoring_listener_) monitoring_listener_->Stop();
}

// "/metrics" is Soperator's endpoint (everything under MetricsType); the
// five paths of Slurm's own metrics/openmetrics are served too, so releases
// before 25.11, which have none, get Slurm's vocabulary as well.
static std::optional<Endpoint> ListenerEndpoint(std::string_view path, Carrier c) {
  if (path == "/metrics")
    return c == Carrier::kJobSubmit ? Endpoint::kSoperator : Endpoint::kEverything;
  for (Endpoint e : {Endpoint::kNodes, Endpoint::kJobs, Endpoint::kPartitions,
                     Endpoint::kScheduler, Endpoint::kJobsUsersAccts}) {
    if (path == EndpointPath(e)) return e;
  }
  return std::nullopt;
}

HttpResponse Exporter::ServeMain(const HttpRequest& req) {
  if (const SoperatorPath* p = FindSoperatorPath(req.path)) {
    if (!p->endpoint) return ServeSelfMonitoring(req);
    return ServeEndpoint(*p->endpoint, req, *p->endpoint == Endpoint::kEverything);
  }
  if (const auto e = ListenerEndpoint(req.path, carrier_))
    return ServeEndpoint(*e, req, req.path == "/metrics");
  const bool known = req.path == "/health" || req.path == "/livez" ||
                     req.path == "/readyz";
  if (!known) return Text(404, "not found\n");
  if (!Readable(req)) {
    HttpResponse r = Text(405, "method not allowed\n");
    r.headers.emplace_back("Allow", "GET, HEAD");
    return r;
  }
  // /health and /livez: the listener answers (Soperator's /health says
  // no more); /readyz: the data is current (docs/scraping.md).
  if (req.path == "/health") return Text(200, "healthy");
  if (req.path == "/livez") return Text(200, "ok\n");
  const Collector::Readiness ready = collector_.GetReadiness();
  return Text(ready.ready ? 200 : 503, ready.why + "\n");
}

HttpResponse Exporter::ServeEndpoint(Endpoint e, const HttpRequest& req,
                                     bool counted,
                                     std::chrono::milliseconds wait_ready,
                                     Collector::OnRequest on_request) {
  const Format f = NegotiateFormat(req.accept);
  const View view = req.sees_private ? View::kFull : View::kPublic;
  if (!Readable(req)) {
    // Soperator counts every request to /metrics, whatever its method.
    if (counted) monitoring_.MetricsRequest(collector_.Get(e, f, view)->series());
    HttpResponse r = Text(405, "method not allowed\n");
    r.headers.emplace_back("Allow", "GET, HEAD");
    return r;
  }
  Collector::Served served =
      collector_.Serve(e, f, view, req.accepts_gzip, wait_ready, on_request);
  if (served.status == Collector::Served::Status::kNotCached) {
    HttpResponse r;
    r.status = 0;  // not answered: see exporter.h
    return r;
  }
  if (counted) monitoring_.MetricsRequest(served.body ? served.body->series() : 0);
  if (served.status == Collector::Served::Status::kBusy) {
    // Past the cached body limit with another uncached render running
    // (docs/configuration.md, "Cached bodies").
    HttpResponse r = Text(503, "busy: this body is not cached and another "
                               "uncached one is being rendered; try again\n");
    r.headers.emplace_back("Retry-After", "1");
    return r;
  }
  if (!served.body) {
    // 503, not an empty 200: a scraper then records up 0 instead of a
    // target with no series (docs/scraping.md, "Before the first
    // collection").
    HttpResponse r = Text(503, "no collection yet: the metrics are not ready\n");
    r.headers.emplace_back("Retry-After", std::to_string(kRetryAfterSeconds));
    return r;
  }
  return Exposition(std::move(served.body), req, f, served.may_gzip);
}

HttpResponse Exporter::ServeMonitoring(const HttpRequest& req) {
  if (req.path != "/metrics") return Text(404, "not found\n");
  return ServeSelfMonitoring(req);
}

HttpResponse Exporter::ServeSelfMonitoring(const HttpRequest& req) {
  if (!Readable(req)) {
    HttpResponse r = Text(405, "method not allowed\n");
    r.headers.emplace_back("Allow", "GET, HEAD");
    return r;
  }
  const Format f = NegotiateFormat(req.accept);
  // DisabledFamilies drops self-monitoring and accounting-status families
  // too (family_registry.h, FamiliesServedBeside).
  MetricSet set(&config_.disabled_families);
  monitoring_.AddFamilies(set);
  collector_.AddStateFamilies(set);
  set.Seal();
  std::string out;
  set.Write(f, out);
  return Exposition(std::make_shared<const Body>(std::move(out), set.stats().series),
                    req, f);
}

}  // namespace sm
