// SPDX-License-Identifier: GPL-2.0-or-later
#include "http/basic_auth.h"

#include <arpa/inet.h>
#include <crypt.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>

#include <cstring>
#include <iterator>
#include <memory>
#include <random>

#include "base/ascii.h"

namespace sm {
namespace {

// exporter-toolkit's hash of "fakepassword": unknown users cost a bcrypt
// too, so timing does not tell which user names exist.
constexpr const char* kDummyHash =
    "$2y$10$QOauhQNbBCuQDKes6eFzPeMqBSjb7Mr5DUmpZ/VcEd00UAV/LDeSi";

std::string Base64Decode(std::string_view in, bool* ok) {
  *ok = false;
  if (in.size() % 4 != 0 || in.size() > 4096) return "";
  std::string out(in.size() / 4 * 3, '\0');
  const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(in.data()),
                                static_cast<int>(in.size()));
  if (n < 0) return "";
  size_t len = static_cast<size_t>(n);
  // EVP_DecodeBlock counts padding as zero bytes.
  if (!in.empty() && in.back() == '=') --len;
  if (in.size() >= 2 && in[in.size() - 2] == '=') --len;
  out.resize(len);
  *ok = true;
  return out;
}

std::string CacheKey(const std::string& user, const std::string& hash,
                     const std::string& password) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_MD_CTX* md = EVP_MD_CTX_new();
  EVP_DigestInit_ex(md, EVP_sha256(), nullptr);
  for (const std::string* s : {&user, &hash, &password}) {
    const uint64_t n = s->size();  // lengths keep ("ab","c") and ("a","bc") apart
    EVP_DigestUpdate(md, &n, sizeof n);
    EVP_DigestUpdate(md, s->data(), s->size());
  }
  EVP_DigestFinal_ex(md, digest, &len);
  EVP_MD_CTX_free(md);
  return std::string(reinterpret_cast<char*>(digest), len);
}

}  // namespace

std::string BcryptBudgetKey(std::string_view peer) {
  unsigned char a[16];
  const std::string text(peer);
  if (text.find(':') == std::string::npos || inet_pton(AF_INET6, text.c_str(), a) != 1)
    return text;
  static constexpr unsigned char kMapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  if (std::memcmp(a, kMapped, sizeof kMapped) == 0) {
    char v4[INET_ADDRSTRLEN] = {};
    inet_ntop(AF_INET, a + 12, v4, sizeof v4);
    return v4;
  }
  std::memset(a + 8, 0, 8);
  char buf[INET6_ADDRSTRLEN] = {};
  inet_ntop(AF_INET6, a, buf, sizeof buf);
  return std::string(buf) + "/64";
}

namespace web {

HttpResponse Plain(int status, std::string text) {
  HttpResponse r;
  r.status = status;
  r.text = std::move(text);
  return r;
}

std::optional<HttpResponse> BasicAuth::Check(const std::map<std::string, std::string>& users,
                                             std::string_view authorization, HttpRequest* req,
                                             std::string* user) {
  std::string_view a = TrimOws(authorization);
  bool ok = false;
  std::string password;
  if (a.size() > 6 && EqualsIgnoreCase(a.substr(0, 6), "Basic ")) {
    bool decoded;
    const std::string pair = Base64Decode(TrimOws(a.substr(6)), &decoded);
    const size_t colon = pair.find(':');
    if (decoded && colon != std::string::npos &&
        pair.find('\0') == std::string::npos) {
      *user = pair.substr(0, colon);
      password = pair.substr(colon + 1);
      const auto it = users.find(*user);
      const std::string& hash = it == users.end() ? std::string(kDummyHash) : it->second;
      const std::string key = CacheKey(*user, hash, password);
      std::optional<bool> verdict = Cached(key);
      if (!verdict) {
        // A bcrypt costs tens of milliseconds of CPU: at most
        // kMaxBcryptQueue run or wait, kMaxBcryptPerPeer per client;
        // beyond that a flood of guesses is refused without spending any.
        const std::string peer = BcryptBudgetKey(req->peer);
        if (!TakeBcryptSlot(peer)) {
          HttpResponse r = Plain(429, "Too Many Requests\n");
          r.headers.emplace_back("Retry-After", "1");
          return r;
        }
        struct Slot {
          BasicAuth* self;
          const std::string& peer;
          ~Slot() { self->ReturnBcryptSlot(peer); }
        } slot{this, peer};
        verdict = CheckPassword(hash, password);
        Remember(key, *verdict);
      }
      ok = *verdict && it != users.end();
    }
  }
  if (!ok) {
    HttpResponse r = Plain(401, "Unauthorized\n");
    r.headers.emplace_back("WWW-Authenticate", "Basic");
    return r;
  }
  req->authenticated = true;
  req->principal_kind = PrincipalKind::kBasicAuthUser;
  req->principal = *user;
  return std::nullopt;
}

std::optional<bool> BasicAuth::Cached(const std::string& key) {
  std::lock_guard lock(cache_mu_);
  if (const auto it = successes_.find(key); it != successes_.end()) {
    it->second = ++cache_clock_;
    return true;
  }
  if (failures_.count(key)) return false;
  return std::nullopt;
}

void BasicAuth::Remember(const std::string& key, bool ok) {
  std::lock_guard lock(cache_mu_);
  if (ok) {
    if (successes_.size() >= kSuccessCacheSize && !successes_.count(key)) {
      auto oldest = successes_.begin();
      for (auto it = successes_.begin(); it != successes_.end(); ++it)
        if (it->second < oldest->second) oldest = it;
      successes_.erase(oldest);
    }
    successes_[key] = ++cache_clock_;
    return;
  }
  if (failures_.size() >= kFailureCacheSize) {
    // Random eviction of a tenth, like exporter-toolkit's cache.
    static thread_local std::minstd_rand rng(std::random_device{}());
    for (size_t n = failures_.size() / 10 + 1; n > 0 && !failures_.empty(); --n) {
      auto it = failures_.begin();
      std::advance(it, static_cast<long>(rng() % failures_.size()));
      failures_.erase(it);
    }
  }
  failures_.insert(key);
}

bool BasicAuth::TakeBcryptSlot(const std::string& peer) {
  std::lock_guard lock(budget_mu_);
  if (bcrypt_queue_ >= kMaxBcryptQueue) return false;
  int& mine = bcrypt_per_peer_[peer];
  if (mine >= kMaxBcryptPerPeer) return false;
  ++mine;
  ++bcrypt_queue_;
  return true;
}

void BasicAuth::ReturnBcryptSlot(const std::string& peer) {
  std::lock_guard lock(budget_mu_);
  --bcrypt_queue_;
  if (const auto it = bcrypt_per_peer_.find(peer); it != bcrypt_per_peer_.end() &&
                                                    --it->second <= 0)
    bcrypt_per_peer_.erase(it);
}

bool BasicAuth::CheckPassword(const std::string& hash, const std::string& password) {
  std::lock_guard lock(bcrypt_mu_);
  auto data = std::make_unique<crypt_data>();
  const char* out = crypt_rn(password.c_str(), hash.c_str(), data.get(), sizeof *data);
  return out && out[0] != '*' && std::strlen(out) == hash.size() &&
         CRYPTO_memcmp(out, hash.data(), hash.size()) == 0;
}

}  // namespace web
}  // namespace sm
