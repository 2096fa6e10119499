// SPDX-License-Identifier: GPL-2.0-or-later
#include "slurmctld_routes.h"

#include <atomic>

#include "collector.h"
#include "exporter.h"
#include "exposition/negotiation.h"

namespace sm {
namespace {

constexpr SoperatorPath kRoutes[] = {
    {"/metrics/soperator", Endpoint::kEverything},
    {"/metrics/soperator/nodes", Endpoint::kNodes},
    {"/metrics/soperator/jobs", Endpoint::kJobs},
    {"/metrics/soperator/partitions", Endpoint::kPartitions},
    {"/metrics/soperator/scheduler", Endpoint::kScheduler},
    {"/metrics/soperator/jobs-users-accts", Endpoint::kJobsUsersAccts},
    {"/metrics/soperator/monitoring", std::nullopt},
};

HttpResponse Plain(int status, std::string text) {
  HttpResponse r;
  r.status = status;
  r.text = std::move(text);
  return r;
}

// slurmctld's _reply_error() body for a refused /metrics/* request.
HttpResponse SlurmctldError(int status, const HttpRequest& req, std::string_view failure) {
  std::string text = "slurmctld HTTP server request for '";
  text.append(req.method).append(" ").append(req.path).append("':\n");
  if (!failure.empty()) text.append("Failed: ").append(failure).append("\n");
  return Plain(status, std::move(text));
}

// _primary_slurmctld_url(): scheme by TLS, SlurmctldHost[0]'s address
// (bracketed when it is an IPv6 literal), SlurmctldPort, same path and query.
std::string PrimaryUrl(const HttpRequest& req, const SlurmctldSite& site) {
  std::string url = req.tls ? "https://" : "http://";
  if (site.primary_host.find(':') != std::string::npos)
    url.append("[").append(site.primary_host).append("]");
  else
    url.append(site.primary_host);
  url.append(":").append(std::to_string(site.port)).append(req.path);
  if (!req.query.empty()) url.append("?").append(req.query);
  return url;
}

bool Fits(size_t max_line, std::string_view name, std::string_view value) {
  return max_line == 0 || name.size() + 2 + value.size() + 2 <= max_line;
}

// MetricsAuthUsers is split like strtok_r(",") does: empty names never match.
bool Listed(std::string_view users, std::string_view user) {
  while (!users.empty()) {
    const size_t comma = users.find(',');
    const std::string_view name = users.substr(0, comma);
    if (!name.empty() && name == user) return true;
    if (comma == std::string_view::npos) break;
    users.remove_prefix(comma + 1);
  }
  return false;
}

// Requests in a SlurmctldRenderSlot now.
std::atomic<int> g_renders{0};

// What a request refused a render slot gets on our routes: at once, as the
// collector's own refusal of a second uncached render (exporter.cc).
HttpResponse RenderBusy() {
  HttpResponse r = Plain(503, "busy: another request is being rendered on slurmctld's "
                              "threads; try again\n");
  r.headers.emplace_back("Retry-After", "1");
  return r;
}

// The body slurmctld's own paths get where ours answer 503 (slurmctld_routes.h,
// NativePathAnswer): why, then a line no exposition parser takes.
std::string NativeError(std::string_view why, int retry_after) {
  std::string text = "# soperator-metrics: ";
  text.append(why).append("; try again in ").append(std::to_string(retry_after));
  text.append(" s\n# slurmctld answers 200 to whatever its metrics plugin returns: the "
              "next line fails the scrape on purpose (docs/scraping.md, \"Before the "
              "first collection\")\n503 Service Unavailable: ");
  text.append(why).append("\n");
  return text;
}

}  // namespace

SlurmctldRenderSlot::SlurmctldRenderSlot() {
  int n = g_renders.load();
  while (n < kMax && !g_renders.compare_exchange_weak(n, n + 1)) {
  }
  held_ = n < kMax;
}

SlurmctldRenderSlot::~SlurmctldRenderSlot() {
  if (held_) g_renders.fetch_sub(1);
}

NativePathAnswer AnswerSlurmctldNativePath(Exporter* exporter, Endpoint e) {
  NativePathAnswer a;
  if (!exporter) {
    a.error = NativeError("soperator-metrics is not running (see slurmctld's log)", 5);
    return a;
  }
  // slurmctld calls parse only past its own access rule for /metrics/*
  // (25.11: never while PrivateData is set; 26.05: authenticated then), and
  // never waits here: this is one of its conmgr workers. A cached body
  // needs no render slot; only a render for this request takes one.
  Collector::Served served = exporter->collector().Serve(
      e, Format::kText, View::kFull, /*gzip=*/false, std::chrono::milliseconds(0),
      Collector::OnRequest::kCachedOnly);
  std::optional<SlurmctldRenderSlot> slot;
  if (served.status == Collector::Served::Status::kNotCached) {
    slot.emplace();
    if (!*slot) {
      a.error =
          NativeError("busy: another request is being rendered on slurmctld's threads", 1);
      return a;
    }
    served = exporter->collector().Serve(e, Format::kText, View::kFull, /*gzip=*/false,
                                         std::chrono::milliseconds(0));
  }
  switch (served.status) {
    case Collector::Served::Status::kOk:
      a.body = std::move(served.body);
      break;
    case Collector::Served::Status::kNotReady:
      a.error = NativeError("no collection yet: the metrics are not ready", 5);
      break;
    case Collector::Served::Status::kBusy:
    case Collector::Served::Status::kNotCached:  // not after kRender: as busy
      a.error = NativeError("busy: this body is not cached and another uncached one is "
                            "being rendered", 1);
      break;
  }
  return a;
}

std::span<const SoperatorPath> SoperatorPaths() { return kRoutes; }

const SoperatorPath* FindSoperatorPath(std::string_view path) {
  for (const SoperatorPath& r : kRoutes) {
    if (path == r.path) return &r;
  }
  return nullptr;
}

namespace {

// _metrics_redirect_to_primary(): a standby backup has no data of its own.
// Its self-monitoring is its own, though, and says it is a standby
// (slurm_exporter_controller_active 0): redirected, a scraper would store
// the primary's under the backup's name.
HttpResponse RedirectToPrimary(const HttpRequest& req, const SlurmctldSite& site) {
  if (site.primary_host.empty()) {
    return Plain(503, "slurmctld: primary mode controller address unavailable\n");
  }
  std::string url = PrimaryUrl(req, site);
  if (!Fits(site.max_header_line, "Location", url)) {
    // slurmctld would send half a response; say where to go instead.
    return Plain(503, "slurmctld: standby backup; the primary serves " + url + "\n");
  }
  HttpResponse r;
  r.status = 303;
  r.headers.emplace_back("Location", std::move(url));
  return r;
}

// slurmctld's metrics access rule, applied to `http` (the caller's
// identity); a refusal to send instead, if any. `caller` outlives `http`,
// which may point into it.
std::optional<HttpResponse> ApplyAccessRule(
    const HttpRequest& req, const SlurmctldSite& site,
    const std::function<SlurmctldCaller()>& authenticate, SlurmctldCaller& caller,
    HttpRequest& http) {
  switch (site.access.rule) {
    case SlurmctldAccess::Rule::kOpen:
      break;
    case SlurmctldAccess::Rule::kUnauthorized:
      // 25.11 answers 401 with no body while PrivateData is set.
      return Plain(401, "");
    case SlurmctldAccess::Rule::kAuthenticate: {
      caller = authenticate();
      if (!caller.authenticated)
        return SlurmctldError(caller.failure_status, req, caller.failure);
      const bool allowed =
          caller.privileged ||
          (site.access.auth_users && Listed(*site.access.auth_users, caller.user));
      if (!allowed) return SlurmctldError(403, req, "Operation not permitted");
      http.authenticated = true;
      http.principal_kind = PrincipalKind::kSlurmctldAuth;
      http.principal = caller.user;
      break;
    }
  }
  // Past slurmctld's own metrics access rule: it already asks for
  // authentication while PrivateData is set (26.05; 25.11 refuses
  // everyone), unless the admin chose ignore_private_data.
  http.sees_private = true;
  return std::nullopt;
}

// No wait for the first collection here: this runs on one of slurmctld's
// conmgr workers, which also carry its RPCs. Before it: 503. A cached body
// is served without a render slot; a render for this request, or a body's
// first gzip, takes one: one at a time on slurmctld's workers, the rest
// refused at once (SlurmctldRenderSlot; tests/shim/slurmctld_routes.py,
// concurrent).
HttpResponse ServeBody(Exporter& exporter, Endpoint endpoint, const HttpRequest& http) {
  // /metrics/soperator is our /metrics: Soperator counts those requests.
  const bool counted = endpoint == Endpoint::kEverything;
  HttpResponse r = exporter.ServeEndpoint(endpoint, http, counted, std::chrono::milliseconds(0),
                                          Collector::OnRequest::kCachedOnly);
  std::optional<SlurmctldRenderSlot> slot;
  const auto take_slot = [&] {
    if (!slot) slot.emplace();
    return static_cast<bool>(*slot);
  };
  if (r.status == 0) {
    if (!take_slot()) {
      if (counted) exporter.monitoring().MetricsRequest(0);
      return RenderBusy();
    }
    r = exporter.ServeEndpoint(endpoint, http, counted, std::chrono::milliseconds(0));
  }
  // A body's first gzip is made by the scrape that first asks for it (the
  // collector's ticks make it from then on): here, inside the slot, not in
  // ToWire after the slot is given back; without a slot, sent plain.
  if (r.gzip && r.body && r.body->gzipped_size() == 0) {
    if (take_slot()) r.body->gzipped();
    else r.gzip = false;
  }
  return r;
}

}  // namespace

HttpResponse ServeSlurmctldRoute(Exporter& exporter, const HttpRequest& req,
                                 const SlurmctldSite& site,
                                 const std::function<SlurmctldCaller()>& authenticate) {
  const SoperatorPath* route = FindSoperatorPath(req.path);
  if (!route) return SlurmctldError(404, req, "Unknown URL path");
  if (site.standby && route->endpoint) return RedirectToPrimary(req, site);

  HttpRequest http = req;
  SlurmctldCaller caller;  // outlives `http`, which may point into it
  http.accepts_gzip = NegotiateGzip(req.accept_encoding);  // as on our listener
  if (auto refused = ApplyAccessRule(req, site, authenticate, caller, http)) return *refused;
  if (!route->endpoint) return exporter.ServeSelfMonitoring(http);
  return ServeBody(exporter, *route->endpoint, http);
}

WireResponse ToWire(const HttpRequest& req, const HttpResponse& resp,
                    size_t max_header_line) {
  WireResponse w;
  w.status = resp.status;
  w.content_type = resp.content_type;
  while (!Fits(max_header_line, "Content-Type", w.content_type)) {
    const size_t semicolon = w.content_type.rfind(';');
    if (semicolon == std::string::npos) break;
    w.content_type.resize(semicolon);
  }
  w.headers = resp.headers;
  std::string_view payload = resp.text;
  if (resp.body) {
    payload = resp.gzip ? std::string_view(resp.body->gzipped())
                        : std::string_view(resp.body->text());
    if (resp.gzip) w.headers.emplace_back("Content-Encoding", "gzip");
  }
  w.head = req.method == "HEAD";
  // slurmctld writes Content-Length and Content-Type only for a non-empty
  // body; a HEAD answer and an empty body still say what a GET carries.
  if (w.head || payload.empty()) {
    if (resp.status != 303) w.headers.emplace_back("Content-Type", w.content_type);
    w.headers.emplace_back("Content-Length", std::to_string(payload.size()));
    payload = {};
  }
  w.payload = payload;
  return w;
}

}  // namespace sm
