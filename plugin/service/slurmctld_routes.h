// SPDX-License-Identifier: GPL-2.0-or-later
// Our routes on slurmctld's own HTTP server (MetricsType=metrics/soperator,
// Slurm 25.11 and later): which path serves which cached body, and the
// decisions slurmctld's own /metrics/* routes make on that release (standby
// redirect, access rule, authentication outcome), all without Slurm
// headers. plugin/slurm/slurmctld_http.cc only gathers the facts from
// slurmctld and puts the answer on the wire.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "serving/endpoints.h"
#include "http/types.h"

namespace sm {

class Body;
class Exporter;

// Our paths under /metrics/soperator: every family on the first, the
// metrics/openmetrics groups (with Soperator's families where they have a
// counterpart) on the next five, the slurm_exporter_* families on the last
// (no endpoint). Bound on slurmctld's port (GET and HEAD each), and served
// the same by our listener, so one scrape config fits either.
struct SoperatorPath {
  std::string_view path;
  std::optional<Endpoint> endpoint;  // nullopt: self-monitoring
};
std::span<const SoperatorPath> SoperatorPaths();
const SoperatorPath* FindSoperatorPath(std::string_view path);

// The access rule of slurmctld's own /metrics/* routes, from its config.
struct SlurmctldAccess {
  enum class Rule {
    kOpen,          // 25.11 without PrivateData; 26.05 without metrics_auth
    kUnauthorized,  // 25.11 with PrivateData: 401 for everyone
    kAuthenticate,  // 26.05 with metrics_auth (MetricsAuthUsers, or
                    // PrivateData without MetricsParameters=ignore_private_data)
  };
  Rule rule = Rule::kOpen;
  // MetricsAuthUsers as written (comma-separated names); nullopt when unset,
  // then only root and SlurmUser pass.
  std::optional<std::string> auth_users;
};

// What slurmctld's HTTP authentication (26.05 http_auth plugins) said
// about the caller. Only asked for when the rule is kAuthenticate.
struct SlurmctldCaller {
  bool authenticated = false;
  // When not authenticated: slurmctld's status for the error (401 for
  // missing or bad credentials) and its text.
  int failure_status = 401;
  std::string failure;
  bool privileged = false;  // root or SlurmUser
  std::string user;         // the authenticated uid's name
};

// This slurmctld, at the time of the request.
struct SlurmctldSite {
  bool standby = false;      // a backup that does not hold control
  std::string primary_host;  // SlurmctldHost[0]'s address; empty if unknown
  unsigned port = 0;         // SlurmctldPort
  SlurmctldAccess access;
  // The longest header line ("Name: value\r\n") slurmctld can send; longer
  // ones fail mid-response (http_con.c MAX_HEADER_BYTES). 0: no limit.
  size_t max_header_line = 0;
};

// The answer to one request on one of our routes, in slurmctld's order:
// standby redirect first (not for /metrics/soperator/monitoring, this
// process's own families), then the access rule, then the body (content
// negotiation and gzip as on our listener: accepts_gzip is set here from
// accept_encoding). `req.tls` is a TLS connection or an https:// request
// URL. `authenticate` is called at most once, and only when the rule asks
// for it. A redirect whose Location would not fit slurmctld's header line
// becomes a 503 naming the primary.
HttpResponse ServeSlurmctldRoute(Exporter& exporter, const HttpRequest& req,
                                 const SlurmctldSite& site,
                                 const std::function<SlurmctldCaller()>& authenticate);

// Renders on slurmctld's connection-manager workers, which also carry its
// RPCs: a body not cached (never asked for, or not lately) is rendered on
// the request that asks for it, and its first gzip made there. At most
// kMax requests on our routes and on slurmctld's own five paths together
// may be where that can happen; the others are answered at once, 503 with
// Retry-After: 1 on our routes (the bodies of slurmctld's own paths:
// AnswerSlurmctldNativePath), and never wait for a turn
// (docs/configuration.md, "Cached bodies"). Taken on construction if one
// is free; the self-monitoring path needs none.
class SlurmctldRenderSlot {
 public:
  static constexpr int kMax = 1;
  SlurmctldRenderSlot();
  ~SlurmctldRenderSlot();
  SlurmctldRenderSlot(const SlurmctldRenderSlot&) = delete;
  SlurmctldRenderSlot& operator=(const SlurmctldRenderSlot&) = delete;
  explicit operator bool() const { return held_; }

 private:
  bool held_ = false;
};

// What slurmctld's own /metrics/{nodes,jobs,partitions,scheduler,
// jobs-users-accts} get from us under MetricsType=metrics/soperator
// (metrics_soperator.cc: parse, then dump). slurmctld answers 200 with
// whatever dump leaves, an empty body for none: Slurm 25.11.7 and 26.05.3
// ignore dump's return code and never send another status from there
// (src/slurmctld/http.c, _send_metrics_resp). So where our routes answer
// 503 (no collection yet, this render refused, the plugin not running),
// the body is `error` instead: comment lines saying why, then a line no
// exposition parser accepts, so Prometheus records a failed scrape (up 0),
// as for a 503, not a successful one without series; VictoriaMetrics logs
// the line and drops it (docs/scraping.md, "Before the first collection").
struct NativePathAnswer {
  std::shared_ptr<const Body> body;  // set when there is one to serve
  std::string error;                 // else what to send
};
// `exporter` may be null: the plugin is not running.
NativePathAnswer AnswerSlurmctldNativePath(Exporter* exporter, Endpoint e);

// The bytes and headers to send for a response (the binding adds nothing
// of its own): Content-Encoding for gzip, and for HEAD the Content-Length
// and Content-Type a GET would carry, with no payload. A Content-Type
// longer than `max_header_line` allows loses parameters from the end
// (OpenMetrics' "; escaping=underscores" first; our names never need it).
struct WireResponse {
  int status = 200;
  std::string content_type;
  std::string_view payload;  // empty for HEAD; points into the response
  bool head = false;
  std::vector<std::pair<std::string, std::string>> headers;
};
WireResponse ToWire(const HttpRequest& req, const HttpResponse& resp,
                    size_t max_header_line = 0);

}  // namespace sm
