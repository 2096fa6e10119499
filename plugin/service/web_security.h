// SPDX-License-Identifier: GPL-2.0-or-later
// What a web config file (web_config.h) makes of a listener: the TLS
// context (OpenSSL), the client-certificate and basic-auth checks, response
// headers and the rate limit. Files are rechecked at most once a second and
// a changed set is loaded anew; an invalid change is logged once and fails
// every request closed (500) until it is fixed, as exporter-toolkit does.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "http_types.h"
#include "web_config.h"

typedef struct ssl_st SSL;
typedef struct ssl_ctx_st SSL_CTX;

namespace sm {

class WebSecurity {
 public:
  // Reads the file and every file it names. nullptr with *error (without
  // the file's name) when anything is wrong.
  static std::shared_ptr<WebSecurity> Load(const std::string& path, std::string* error);
  ~WebSecurity();
  WebSecurity(const WebSecurity&) = delete;
  WebSecurity& operator=(const WebSecurity&) = delete;

  bool tls() const { return tls_; }
  const std::string& path() const { return path_; }

  // Event loop: reload if a file changed (rate-limited to once a second).
  void MaybeReload();
  // Event loop: a new server-side SSL for an accepted socket (null on
  // allocation failure).
  SSL* NewSsl(int fd);
  // Event loop, after a handshake: false (with *why) when the connection
  // must be dropped (client_allowed_sans). *verified: the certificate was
  // verified against client_ca; *subject its subject.
  bool CheckPeer(SSL* ssl, bool* verified, std::string* subject, std::string* why);

  // Worker: a response to send instead of the handler's (401, 429, 500),
  // or nullopt with the request's principal filled in. `authorization` is
  // the raw Authorization field; `user` receives the basic-auth user name
  // (req->principal points into it).
  std::optional<HttpResponse> Authorize(std::string_view authorization,
                                        HttpRequest* req, std::string* user);
  // Worker: the web config's http_server_config headers.
  void AddHeaders(HttpResponse& r);

  // At most this many bcrypt checks run or wait at once; more get 429.
  static constexpr int kMaxBcryptQueue = 2;

 private:
  struct State;
  WebSecurity() = default;
  static std::shared_ptr<const State> LoadState(const std::string& path, std::string* error);
  std::shared_ptr<const State> Current();
  std::optional<bool> Cached(const std::string& key);
  bool CheckPassword(const std::string& key, const std::string& hash,
                     const std::string& password);

  std::string path_;
  bool tls_ = false;
  std::mutex mu_;
  std::shared_ptr<const State> state_;
  std::string broken_;  // non-empty: the files changed and are invalid
  std::chrono::steady_clock::time_point next_check_;
  // Verified credentials: sha256(user, hash, password) -> ok, at most
  // kCacheSize entries, so a scrape does not cost a bcrypt.
  static constexpr size_t kCacheSize = 100;
  std::mutex cache_mu_;
  std::unordered_map<std::string, bool> cache_;
  std::mutex bcrypt_mu_;  // one bcrypt at a time, as exporter-toolkit
  std::atomic<int> bcrypt_queue_{0};
  // rate_limit token bucket.
  std::mutex rate_mu_;
  double tokens_ = 0;
  std::chrono::steady_clock::time_point rate_last_;
};

}  // namespace sm
