// SPDX-License-Identifier: GPL-2.0-or-later
// What a web config file (web_config.h) makes of a listener: the TLS
// context (tls_context.h), the client-certificate (client_cert.h) and
// basic-auth (basic_auth.h) checks, response headers and the rate limit.
// Files (security_files.h) are rechecked at most once a second and a
// changed set is loaded anew; an invalid change is logged once and fails
// every request closed (500) until it is fixed, as exporter-toolkit does.
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "http/basic_auth.h"
#include "http/tls_context.h"
#include "http/types.h"
#include "http/web_config.h"

typedef struct ssl_st SSL;
typedef struct ssl_ctx_st SSL_CTX;

namespace sm {

class WebSecurity {
 public:
  // Reads the file and every file it names. nullptr with *error (without
  // the file's name) when anything is wrong.
  // Never throws (slurmctld's init() calls it): out of memory is an error.
  static std::shared_ptr<WebSecurity> Load(const std::string& path,
                                           std::string* error) noexcept;
  ~WebSecurity();
  WebSecurity(const WebSecurity&) = delete;
  WebSecurity& operator=(const WebSecurity&) = delete;

  bool tls() const { return tls_; }
  const std::string& path() const { return path_; }

  // Event loop: reload if a file changed (rate-limited to once a second).
  // An exception (out of memory) keeps the files in use.
  void MaybeReload() noexcept;
  // Event loop: a new server-side SSL for an accepted socket (null on
  // allocation failure).
  SSL* NewSsl(int fd) noexcept;
  // Event loop, after a handshake: false (with *why) when the connection
  // must be dropped (client_allowed_sans). *verified: the certificate was
  // verified against client_ca; *subject its subject.
  bool CheckPeer(SSL* ssl, bool* verified, std::string* subject, std::string* why) noexcept;

  // Worker: a response to send instead of the handler's (401, 429, 500),
  // or nullopt with the request's principal filled in. `authorization` is
  // the raw Authorization field; `user` receives the basic-auth user name
  // (req->principal points into it). An exception inside gives 500 (only
  // building that 500 may still throw).
  std::optional<HttpResponse> Authorize(std::string_view authorization,
                                        HttpRequest* req, std::string* user);
  // Worker: the web config's http_server_config headers.
  void AddHeaders(HttpResponse& r) noexcept;

  // The largest certificate chain a client may send (tls_context.h).
  static constexpr long kMaxClientCertListBytes = web::kMaxClientCertListBytes;

 private:
  struct State;
  WebSecurity() = default;
  // Never null; *error set when the files are invalid (see web_security.cc).
  static std::shared_ptr<const State> LoadState(const std::string& path, std::string* error);
  static std::shared_ptr<WebSecurity> Create(const std::string& path, std::string* error);
  void ReloadIfChanged();
  bool CheckPeerOrThrow(SSL* ssl, bool* verified, std::string* subject, std::string* why);
  std::optional<HttpResponse> AuthorizeOrThrow(std::string_view authorization,
                                               HttpRequest* req, std::string* user);
  std::shared_ptr<const State> Current();

  std::string path_;
  bool tls_ = false;
  std::mutex mu_;
  std::shared_ptr<const State> state_;
  std::string broken_;  // non-empty: the files changed and are invalid
  std::chrono::steady_clock::time_point next_check_;
  web::BasicAuth basic_auth_;  // basic_auth_users' verdicts and bcrypt budget
  // rate_limit token bucket.
  std::mutex rate_mu_;
  double tokens_ = 0;
  std::chrono::steady_clock::time_point rate_last_;
};

}  // namespace sm
