// SPDX-License-Identifier: GPL-2.0-or-later
#include "http/web_security.h"

#include <openssl/crypto.h>
#include <openssl/ssl.h>

#include <algorithm>

#include "base/log.h"
#include "http/client_cert.h"
#include "http/security_files.h"
#include "http/tls_context.h"

namespace sm {

using web::FileStamp;
using web::Plain;
using web::ReadSmallFile;
using web::Stamp;

struct WebSecurity::State {
  WebConfig config;
  SSL_CTX* ctx = nullptr;
  std::vector<FileStamp> stamps;  // the web config and every file it names
  ~State() {
    if (ctx) SSL_CTX_free(ctx);
  }
};

std::shared_ptr<const WebSecurity::State> WebSecurity::LoadState(const std::string& path,
                                                                 std::string* error) {
  // Always a State: on failure (*error set) it holds the stamps of every
  // file read so far, taken before reading, so that a later change to any
  // of them (e.g. the missing certificate created) is tried again.
  error->clear();
  auto state = std::make_shared<State>();
  state->stamps.push_back(Stamp(path));
  std::string yaml;
  if (!ReadSmallFile(path, &yaml, error)) return state;
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash);
  auto config = ParseWebConfig(yaml, dir.empty() ? "/" : dir, error);
  if (!config) return state;
  state->config = std::move(*config);
  const TlsServerConfig& t = state->config.tls;
  for (const std::string* f : {&t.cert_file, &t.key_file, &t.client_ca_file}) {
    if (!f->empty()) state->stamps.push_back(Stamp(*f));
  }
  if (t.enabled && !web::BuildContext(t, &state->ctx, error) && error->empty())
    *error = "cannot build the TLS context";
  return state;
}

std::shared_ptr<WebSecurity> WebSecurity::Load(const std::string& path,
                                               std::string* error) noexcept {
  try {
    return Create(path, error);
  } catch (...) {
    // slurmctld's init() is on the other side: no exception may reach it.
    try {
      *error = "out of memory while loading the web config";
    } catch (...) {
    }
    return nullptr;
  }
}

std::shared_ptr<WebSecurity> WebSecurity::Create(const std::string& path, std::string* error) {
  // No atexit() cleanup: slurmctld 22.05 exits without calling fini(), and
  // OpenSSL must not be torn down under a listener thread still running.
  // (Only effective if nothing in the process initialised OpenSSL first.)
  OPENSSL_init_ssl(OPENSSL_INIT_NO_ATEXIT, nullptr);
  auto state = LoadState(path, error);
  if (!error->empty()) return nullptr;
  std::shared_ptr<WebSecurity> s(new WebSecurity());
  s->path_ = path;
  s->tls_ = state->config.tls.enabled;
  s->tokens_ = state->config.rate_burst;
  s->rate_last_ = std::chrono::steady_clock::now();
  s->next_check_ = s->rate_last_ + std::chrono::seconds(1);
  if (state->config.http2_given)
    LogInfo(path + ": http2 is accepted and ignored: our listener speaks HTTP/1.1 only");
  s->state_ = std::move(state);
  return s;
}

WebSecurity::~WebSecurity() = default;

std::shared_ptr<const WebSecurity::State> WebSecurity::Current() {
  std::lock_guard lock(mu_);
  return state_;
}

void WebSecurity::MaybeReload() noexcept {
  try {
    ReloadIfChanged();
  } catch (...) {
    // Out of memory mid-reload: the state in use is left as it was and
    // the files are checked again in a second.
    try {
      LogError(path_ + ": reloading failed (out of memory); the files in use stay");
    } catch (...) {
    }
  }
}

void WebSecurity::ReloadIfChanged() {
  const auto now = std::chrono::steady_clock::now();
  std::shared_ptr<const State> old;
  {
    std::lock_guard lock(mu_);
    if (now < next_check_) return;
    next_check_ = now + std::chrono::seconds(1);
    old = state_;
  }
  bool changed = false;
  for (const FileStamp& s : old->stamps) changed |= !(Stamp(s.path) == s);
  if (!changed) return;
  std::string error;
  auto fresh = LoadState(path_, &error);
  if (error.empty() && fresh->config.tls.enabled != tls_)
    error = tls_ ? "TLS was removed; restart slurmctld to serve plain HTTP"
                 : "TLS was added; restart slurmctld to serve HTTPS";
  std::lock_guard lock(mu_);
  if (error.empty()) {
    state_ = std::move(fresh);
    if (!broken_.empty()) LogInfo(path_ + ": valid again; serving");
    broken_.clear();
    LogInfo(path_ + ": reloaded");
    return;
  }
  // The old files stay in use for nothing (every request gets 500), but
  // the stamps are those of the failed attempt, taken before its files
  // were read: the error is logged once, and creating or fixing any file
  // the new web config names (not only the web config) tries again.
  auto kept = std::make_shared<State>();
  kept->config = old->config;
  if (old->ctx && SSL_CTX_up_ref(old->ctx) == 1) kept->ctx = old->ctx;
  kept->stamps = fresh->stamps;
  if (error != broken_)
    LogError(path_ + ": " + error + "; every request is answered 500 until it is fixed");
  broken_ = error;
  state_ = std::move(kept);
}

SSL* WebSecurity::NewSsl(int fd) noexcept {
  const auto state = Current();
  if (!state->ctx) return nullptr;
  SSL* ssl = SSL_new(state->ctx);  // holds its own reference to the context
  if (ssl && SSL_set_fd(ssl, fd) != 1) {
    SSL_free(ssl);
    return nullptr;
  }
  if (ssl) SSL_set_accept_state(ssl);
  return ssl;
}

bool WebSecurity::CheckPeer(SSL* ssl, bool* verified, std::string* subject,
                            std::string* why) noexcept {
  try {
    return CheckPeerOrThrow(ssl, verified, subject, why);
  } catch (...) {
    *verified = false;  // out of memory: the connection is dropped
    return false;
  }
}

bool WebSecurity::CheckPeerOrThrow(SSL* ssl, bool* verified, std::string* subject,
                                   std::string* why) {
  const auto state = Current();
  return web::CheckClientCertificate(ssl, state->config.tls, verified, subject, why);
}

std::optional<HttpResponse> WebSecurity::Authorize(std::string_view authorization,
                                                   HttpRequest* req, std::string* user) {
  try {
    return AuthorizeOrThrow(authorization, req, user);
  } catch (...) {
    // Fail closed; the bcrypt slot was returned by its guard.
    req->authenticated = false;
    req->principal_kind = PrincipalKind::kNone;
    req->principal = {};
  }
  return Plain(500, "Internal Server Error\n");
}

std::optional<HttpResponse> WebSecurity::AuthorizeOrThrow(std::string_view authorization,
                                                          HttpRequest* req,
                                                          std::string* user) {
  std::shared_ptr<const State> state;
  {
    std::lock_guard lock(mu_);
    if (!broken_.empty())
      return Plain(500, "Internal Server Error: the web config is invalid; see slurmctld's log\n");
    state = state_;
  }
  const WebConfig& c = state->config;
  if (c.rate_interval.count() > 0) {
    std::lock_guard lock(rate_mu_);
    const auto now = std::chrono::steady_clock::now();
    const double per_ms = 1.0 / static_cast<double>(c.rate_interval.count());
    tokens_ = std::min<double>(c.rate_burst,
                               tokens_ + per_ms * std::chrono::duration<double, std::milli>(
                                                      now - rate_last_).count());
    rate_last_ = now;
    if (tokens_ < 1) return Plain(429, "Too Many Requests\n");
    tokens_ -= 1;
  }
  if (c.users.empty()) return std::nullopt;  // certificates (if any) decide
  return basic_auth_.Check(c.users, authorization, req, user);
}

void WebSecurity::AddHeaders(HttpResponse& r) noexcept {
  try {
    const auto state = Current();
    for (const auto& h : state->config.headers) r.headers.push_back(h);
  } catch (...) {
    // Out of memory: the response goes out without the extra headers.
  }
}

}  // namespace sm
