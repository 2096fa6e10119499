// SPDX-License-Identifier: GPL-2.0-or-later
#include "exporter.h"

#include <optional>

#include "fairshare.h"
#include "log.h"
#include "negotiation.h"
#include "node_gres.h"
#include "slurmctld_routes.h"
#include "web_security.h"

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
  o.native_values = config.native_values;
  o.ignore_private_data = config.ignore_private_data;
  o.disabled_families = config.disabled_families;
  // The cardinality switches turn whole families off, like
  // DisabledFamilies (and a part none of whose families is left is not
  // collected at all); QueueUserLabel changes labels instead.
  const auto disable = [&](std::span<const FamilyDef* const> families) {
    for (const FamilyDef* f : families) o.disabled_families.emplace_back(f->name);
  };
  if (!config.fairshare_user_metrics) disable(FairshareUserFamilies());
  if (!config.node_gres_metrics) disable(NodeGresFamilies());
  o.pending_user_label = config.queue_user_label;
  return o;
}

HttpResponse Text(int status, std::string text) {
  HttpResponse r;
  r.status = status;
  r.text = std::move(text);
  return r;
}

HttpResponse Exposition(std::shared_ptr<const Body> body, const HttpRequest& req,
                        Format f) {
  HttpResponse r;
  r.content_type = std::string(f == Format::kOpenMetrics
                                   ? kOpenMetricsContentType
                                   : kTextContentType);
  r.gzip = req.accepts_gzip && !body->text().empty();
  r.body = std::move(body);
  return r;
}

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

Exporter::~Exporter() { Stop(); }

void Exporter::Start() {
  collector_.Start(!manual_ticks_);
  if (!WantsListener(carrier_, config_)) return;
  // Fail closed: a listener option that is wrong means no listener, never
  // one on an address or for peers the admin did not ask for.
  if (!config_.listener_config_error.empty()) {
    LogError(config_.listener_config_error + "; the listeners do not start");
    return;
  }
  std::shared_ptr<WebSecurity> security;
  if (!config_.web_config_file.empty()) {
    std::string error;
    security = WebSecurity::Load(config_.web_config_file, &error);
    if (!security) {
      LogError("WebConfigFile " + config_.web_config_file + ": " + error +
               "; the listeners do not start");
      return;
    }
  }
  auto options = [&](const char* name, const std::string& address, int threads) {
    ListenerOptions o;
    o.name = name;
    std::string why;
    o.address = *ParseBindAddress(address, &why);  // checked by LoadConfig
    o.threads = threads;
    o.security = security;
    o.allowed_networks = config_.allowed_networks;
    return o;
  };
  main_ = std::make_unique<HttpListener>(
      options("metrics listener", config_.metrics_bind_address, config_.listener_threads),
      [this](const HttpRequest& r) { return ServeMain(r); });
  main_->Start();
  if (config_.monitoring_bind_address != config_.metrics_bind_address) {
    monitoring_listener_ = std::make_unique<HttpListener>(
        options("monitoring listener", config_.monitoring_bind_address, 2),
        [this](const HttpRequest& r) { return ServeMonitoring(r); });
    monitoring_listener_->Start();
  }
}

void Exporter::Stop() {
  StopServing();  // listeners first: their handlers read the collector
  collector_.Stop();
}

void Exporter::StopServing() {
  if (main_) main_->Stop();
  if (monitoring_listener_) monitoring_listener_->Stop();
  collector_.StopRendering();
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
  if (req.path == "/health") return Text(200, "healthy");
  if (req.path == "/livez") return Text(200, "ok\n");
  return collector_.Ready() ? Text(200, "ok\n")
                            : Text(503, "no collection yet\n");
}

HttpResponse Exporter::ServeEndpoint(Endpoint e, const HttpRequest& req,
                                     bool counted) {
  const Format f = NegotiateFormat(req.accept);
  auto body = collector_.Get(e, f, req.sees_private ? View::kFull : View::kPublic,
                             req.accepts_gzip);
  // Soperator counts every request to /metrics, whatever its method.
  if (counted) monitoring_.MetricsRequest(body->series());
  if (!Readable(req)) {
    HttpResponse r = Text(405, "method not allowed\n");
    r.headers.emplace_back("Allow", "GET, HEAD");
    return r;
  }
  return Exposition(std::move(body), req, f);
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
  MetricSet set;
  monitoring_.AddFamilies(set);
  collector_.AddStateFamilies(set);
  set.Seal();
  std::string out;
  set.Write(f, out);
  return Exposition(std::make_shared<const Body>(std::move(out), set.stats().series),
                    req, f);
}

}  // namespace sm
