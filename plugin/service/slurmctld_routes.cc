// SPDX-License-Identifier: GPL-2.0-or-later
#include "slurmctld_routes.h"

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

}  // namespace

std::span<const SoperatorPath> SoperatorPaths() { return kRoutes; }

const SoperatorPath* FindSoperatorPath(std::string_view path) {
  for (const SoperatorPath& r : kRoutes) {
    if (path == r.path) return &r;
  }
  return nullptr;
}

HttpResponse ServeSlurmctldRoute(Exporter& exporter, const HttpRequest& req,
                                 const SlurmctldSite& site,
                                 const std::function<SlurmctldCaller()>& authenticate) {
  const SoperatorPath* route = FindSoperatorPath(req.path);
  if (!route) return SlurmctldError(404, req, "Unknown URL path");

  // _metrics_redirect_to_primary(): a standby backup has no data of its own.
  // Its self-monitoring is its own, though, and says it is a standby
  // (slurm_exporter_controller_active 0): redirected, a scraper would store
  // the primary's under the backup's name.
  if (site.standby && route->endpoint) {
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

  HttpRequest http = req;
  SlurmctldCaller caller;  // outlives `http`, which may point into it
  http.accepts_gzip = NegotiateGzip(req.accept_encoding);  // as on our listener
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
  if (!route->endpoint) return exporter.ServeSelfMonitoring(http);
  // /metrics/soperator is our /metrics: Soperator counts those requests.
  // No wait for the first collection here: this runs on one of slurmctld's
  // conmgr workers, which also carry its RPCs. Before it: 503.
  return exporter.ServeEndpoint(*route->endpoint, http,
                                *route->endpoint == Endpoint::kEverything,
                                std::chrono::milliseconds(0));
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
