// SPDX-License-Identifier: GPL-2.0-or-later
#include "exporter.h"

#include <optional>

#include "log.h"
#include "negotiation.h"

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
  o.disabled_families = config.disabled_families;
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

// civetweb's listening_ports syntax, until our own listener replaces it.
static std::optional<std::string> CivetwebPorts(const std::string& address) {
  std::string why;
  const auto a = ParseBindAddress(address, &why);
  if (!a) return std::nullopt;
  if (a->family == BindAddress::Family::kAny) return std::to_string(a->port);
  return a->str();
}

void Exporter::Start() {
  collector_.Start(!manual_ticks_);
  if (!WantsListener(carrier_, config_)) return;
  const auto main_ports = CivetwebPorts(config_.metrics_bind_address);
  if (main_ports) {
    main_ = std::make_unique<HttpListener>(
        "metrics listener", *main_ports, config_.listener_threads,
        [this](const HttpRequest& r) { return ServeMain(r); });
    main_->Start();
  }
  const auto mon_ports = CivetwebPorts(config_.monitoring_bind_address);
  if (mon_ports && config_.monitoring_bind_address != config_.metrics_bind_address) {
    monitoring_listener_ = std::make_unique<HttpListener>(
        "monitoring listener", *mon_ports, 2,
        [this](const HttpRequest& r) { return ServeMonitoring(r); });
    monitoring_listener_->Start();
  }
}

void Exporter::Stop() {
  // Listeners first: their handlers read the collector.
  if (main_) main_->Stop();
  if (monitoring_listener_) monitoring_listener_->Stop();
  collector_.Stop();
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
  if (const auto e = ListenerEndpoint(req.path, carrier_)) {
    const Format f = NegotiateFormat(req.accept);
    auto body = collector_.Get(*e, f, req.accepts_gzip);
    // Soperator counts every request to /metrics, whatever its method.
    if (req.path == "/metrics") monitoring_.MetricsRequest(body->series());
    if (!Readable(req)) {
      HttpResponse r = Text(405, "method not allowed\n");
      r.headers.emplace_back("Allow", "GET, HEAD");
      return r;
    }
    return Exposition(std::move(body), req, f);
  }
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

HttpResponse Exporter::ServeMonitoring(const HttpRequest& req) {
  if (req.path != "/metrics") return Text(404, "not found\n");
  if (!Readable(req)) {
    HttpResponse r = Text(405, "method not allowed\n");
    r.headers.emplace_back("Allow", "GET, HEAD");
    return r;
  }
  const Format f = NegotiateFormat(req.accept);
  MetricSet set;
  monitoring_.AddFamilies(set);
  set.Seal();
  std::string out;
  set.Write(f, out);
  return Exposition(std::make_shared<const Body>(std::move(out), set.stats().series),
                    req, f);
}

}  // namespace sm
