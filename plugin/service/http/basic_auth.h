// SPDX-License-Identifier: GPL-2.0-or-later
// basic_auth_users (http/web_config.h): the Authorization field checked
// against bcrypt hashes, with a verdict cache so a scrape does not cost a
// bcrypt, and a bcrypt budget so a flood of guesses cannot take the CPU.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "http/types.h"

namespace sm {

// Whose bcrypt budget a request from `peer` ("192.0.2.1", "2001:db8::1")
// spends: its IPv4 address (also when written IPv4-mapped), or the /64 of
// its IPv6 address, as one host usually holds a whole /64.
std::string BcryptBudgetKey(std::string_view peer);

namespace web {

// A text/plain answer of ours (401, 429, 500).
HttpResponse Plain(int status, std::string text);

class BasicAuth {
 public:
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

  // nullopt with the request's principal filled in when `authorization`
  // (the raw field) names one of `users` with its password; else the 401
  // or 429 to send. `user` receives the user name (req->principal points
  // into it). May throw (out of memory); the bcrypt slot is returned.
  std::optional<HttpResponse> Check(const std::map<std::string, std::string>& users,
                                    std::string_view authorization, HttpRequest* req,
                                    std::string* user);

 private:
  std::optional<bool> Cached(const std::string& key);
  void Remember(const std::string& key, bool ok);
  // A bcrypt slot for `peer`: false when the budget (above) is spent.
  bool TakeBcryptSlot(const std::string& peer);
  void ReturnBcryptSlot(const std::string& peer);
  bool CheckPassword(const std::string& hash, const std::string& password);

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
};

}  // namespace web
}  // namespace sm
