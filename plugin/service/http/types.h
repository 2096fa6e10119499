// SPDX-License-Identifier: GPL-2.0-or-later
// A request as our routing sees it and the response it gives back: the seam
// between the routing (exporter.cc) and whichever HTTP server carries it
// (our listener, or slurmctld's own router on Slurm 25.11+).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sm {

class Body;

// Who the server established the client to be.
enum class PrincipalKind {
  kNone,               // anonymous
  kBasicAuthUser,      // basic_auth_users of the web config
  kClientCertificate,  // a client certificate verified against client_ca
  kSlurmctldAuth,      // slurmctld's http_auth on its own port (26.05 JWT)
};

struct HttpRequest {
  std::string_view method;
  std::string_view path;   // percent-decoded, no query
  std::string_view query;  // raw, without '?'
  std::string_view accept;           // raw Accept
  std::string_view accept_encoding;  // raw Accept-Encoding
  bool accepts_gzip = false;         // NegotiateGzip(accept_encoding)
  std::string_view peer;             // "127.0.0.1", "::1"
  bool tls = false;
  // True when the client proved who it is (password or verified
  // certificate); false for anonymous requests, also on listeners that do
  // not ask (no web config).
  bool authenticated = false;
  PrincipalKind principal_kind = PrincipalKind::kNone;
  std::string_view principal;  // user name or certificate subject (RFC 2253)
  // May see what slurm.conf's PrivateData hides from users: on our
  // listener, an authenticated client; on slurmctld's port, any request
  // slurmctld's own metrics access rule lets through (that rule already
  // asks for authentication while PrivateData is set, unless the admin set
  // ignore_private_data).
  bool sees_private = false;
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::shared_ptr<const Body> body;  // cached exposition, or
  std::string text;                  // a small literal body
  bool gzip = false;                 // send body->gzipped()
  std::vector<std::pair<std::string, std::string>> headers;
};

using HttpHandler = std::function<HttpResponse(const HttpRequest&)>;

}  // namespace sm
