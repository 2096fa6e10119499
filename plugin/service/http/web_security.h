// SPDX-License-Identifier: GPL-2.0-or-later
// What a web config file (web_config.h) makes of a listener: the TLS
// context (OpenSSL), the client-certificate and basic-auth checks, response
// headers and the rate limit. Files are rechecked at most once a second and
// a changed set is loaded anew; an invalid change is logged once and fails
// every request closed (500) until it is fixed, as exporter-toolkit does.
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "http/types.h"
#include "http/web_config.h"

typedef struct ssl_st SSL;
typedef struct ssl_ctx_st SSL_CTX;

namespace sm {

// Whose bcrypt budget a request from `peer` ("192.0.2.1", "2001:db8::1")
// spends: its IPv4 address (also when written IPv4-mapped), or the /64 of
// its IPv6 address, as one host usually holds a whole /64.
std::string BcryptBudgetKey(std::string_view peer);

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

  // At most this many bcrypt checks run or wait at once, and at most
  // kMaxBcryptPerPeer of them for one client (an IPv4 address, an IPv6
  // /64); more get 429. A flood of guesses from one client thus leaves a
  // slot for everybody else's first login.
  static constexpr int kMaxBcryptQueue = 2;
  static constexpr int kMaxBcryptPerPeer = 1;
  // Verdicts kept so a scrape does not cost a bcrypt: successes and
  // failures apart, so that failures (which any client can make at will)
  // never evict a success (docs/configuration.md, basic_auth_users).
  static constexpr size_t kSuccessCacheSize = 32;
  static constexpr size_t kFailureCacheSize = 100;
  // The largest certificate chain a client may send (the whole Certificate
  // message): a chain of a few real certificates is 2 to 10 KB; OpenSSL's
  // default is 100 KB. TLS servers keep no session (web_security.cc,
  // LimitWhatClientsLeave).
  static constexpr long kMaxClientCertListBytes = 32 * 1024;

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
  std::optional<bool> Cached(const std::string& key);
  void Remember(const std::string& key, bool ok);
  // A bcrypt slot for `peer`: false when the budget (above) is spent.
  bool TakeBcryptSlot(const std::string& peer);
  void ReturnBcryptSlot(const std::string& peer);
  bool CheckPassword(const std::string& hash, const std::string& password);

  std::string path_;
  bool tls_ = false;
  std::mutex mu_;
  std::shared_ptr<const State> state_;
  std::string broken_;  // non-empty: the files changed and are invalid
  std::chrono::steady_clock::time_point next_check_;
  // sha256(user, hash, password) -> when last used (a counter), for the
  // least recently used success to go first; failures go at random.
  std::mutex cache_mu_;
  std::unordered_map<std::string, uint64_t> successes_;
  std::unordered_set<std::string> failures_;
  uint64_t cache_clock_ = 0;
  std::mutex bcrypt_mu_;  // one bcrypt at a time, as exporter-toolkit
  std::mutex budget_mu_;  // guards the two below
  int bcrypt_queue_ = 0;
  std::unordered_map<std::string, int> bcrypt_per_peer_;
  // rate_limit token bucket.
  std::mutex rate_mu_;
  double tokens_ = 0;
  std::chrono::steady_clock::time_point rate_last_;
};

}  // namespace sm
