// SPDX-License-Identifier: GPL-2.0-or-later
// slurmctld's router and connection calls are looked up at run time
// (dlsym), through our own declarations of them: this file builds against
// every release, and a slurmctld without them (before 25.11) keeps today's
// behaviour. Where the configured tree has Slurm's headers, the
// declarations are checked against them at compile time (end of file).
#include "slurmctld_http.h"

#include <dlfcn.h>
#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <thread>

#include "base/log.h"
#include "runtime.h"
#include "slurm_api.h"
#include "slurmctld_http_abi.h"
#include "slurmctld_routes.h"

extern "C" {
#include "src/common/uid.h"
}

namespace sm::slurm {

namespace {

enum class Abi { kNone, k2511, k2605 };

// Written once by BindSlurmctldRoutes() on slurmctld's main thread before
// its listeners accept; read-only afterwards.
struct Api {
  Abi abi = Abi::kNone;
  abi::Bind2511 bind2511 = nullptr;
  abi::Bind2605 bind2605 = nullptr;
  abi::SendResponse send = nullptr;
  abi::IsTls is_tls = nullptr;
  abi::FindHeader find_header = nullptr;
  abi::HeaderNew header_new = nullptr;
  abi::HeaderFree header_free = nullptr;
  abi::HttpEnabled http_enabled = nullptr;
  abi::Authenticate authenticate = nullptr;
  abi::StatusFromError status_from_error = nullptr;
  abi::StandinSite standin_site = nullptr;
} g_api;

std::atomic<int> g_in_flight{0};
std::atomic<bool> g_closed{false};

template <typename F>
F Lookup(const char* name) {
  return reinterpret_cast<F>(dlsym(RTLD_DEFAULT, name));
}

// Which router this slurmctld has: fixed by the release we are built for,
// except on trees without one, where only a stand-in (the shim) provides
// it, and the 26.05 flavour is the one that comes with http_auth.
Abi DetectAbi() {
#if SM_SLURM_AT_LEAST(26, 5)
  return Abi::k2605;
#elif SM_SLURM_AT_LEAST(25, 11)
  return Abi::k2511;
#else
  if (!Lookup<abi::StandinSite>(abi::kStandinSiteSymbol)) return Abi::kNone;
  return Lookup<abi::Authenticate>("http_auth_g_authenticate") ? Abi::k2605
                                                               : Abi::k2511;
#endif
}

// Empty when every call was found; else the first missing one.
std::string Resolve(Api& a) {
  a.send = Lookup<abi::SendResponse>("http_con_send_response");
  a.is_tls = Lookup<abi::IsTls>("http_con_is_tls");
  a.find_header = Lookup<abi::FindHeader>("find_http_header");
  a.header_new = Lookup<abi::HeaderNew>("http_header_new");
  a.header_free = Lookup<abi::HeaderFree>("free_http_header");
  a.http_enabled = Lookup<abi::HttpEnabled>("http_switch_http_enabled");
  if (a.abi == Abi::k2605) {
    a.bind2605 = Lookup<abi::Bind2605>("http_router_bind");
    a.authenticate = Lookup<abi::Authenticate>("http_auth_g_authenticate");
    a.status_from_error = Lookup<abi::StatusFromError>("http_status_from_error");
    if (!a.bind2605) return "http_router_bind";
    if (!a.authenticate) return "http_auth_g_authenticate";
    if (!a.status_from_error) return "http_status_from_error";
  } else {
    a.bind2511 = Lookup<abi::Bind2511>("http_router_bind");
    if (!a.bind2511) return "http_router_bind";
  }
#if !SM_SLURM_AT_LEAST(25, 11)
  a.standin_site = Lookup<abi::StandinSite>(abi::kStandinSiteSymbol);
#endif
  if (!a.send) return "http_con_send_response";
  if (!a.is_tls) return "http_con_is_tls";
  if (!a.find_header) return "find_http_header";
  if (!a.header_new) return "http_header_new";
  if (!a.header_free) return "free_http_header";
  if (!a.http_enabled) return "http_switch_http_enabled";
  return "";
}

// What slurmctld's own /metrics/* handlers read, read the same way (they
// too take no lock for slurm_conf on a request).
SlurmctldSite ReadSite() {
  SlurmctldSite s;
  s.max_header_line = abi::kMaxHeaderLine;
  s.port = slurm_conf.slurmctld_port;
  if (slurm_conf.control_cnt && slurm_conf.control_addr && slurm_conf.control_addr[0])
    s.primary_host = slurm_conf.control_addr[0];
  using Rule = SlurmctldAccess::Rule;
#if SM_SLURM_AT_LEAST(26, 5)
  s.standby = InStandby();
  if (slurm_conf.metrics_auth) {
    s.access.rule = Rule::kAuthenticate;
    if (slurm_conf.metrics_auth_users) s.access.auth_users = slurm_conf.metrics_auth_users;
  }
#elif SM_SLURM_AT_LEAST(25, 11)
  s.standby = InStandby();
  if (slurm_conf.private_data) s.access.rule = Rule::kUnauthorized;
#else
  int standby = 0, rule = 0;
  const char* users = nullptr;
  g_api.standin_site(&standby, &rule, &users);
  s.standby = standby != 0;
  s.access.rule = rule == abi::kRuleAuthenticate    ? Rule::kAuthenticate
                  : rule == abi::kRuleUnauthorized ? Rule::kUnauthorized
                                                   : Rule::kOpen;
  if (users) s.access.auth_users = users;
#endif
  return s;
}

// slurmctld's _auth(): any http_auth plugin; root and SlurmUser always pass.
SlurmctldCaller Authenticate(abi::Con* con, const char* name,
                             const abi::Request* request) {
  SlurmctldCaller c;
  if (!g_api.authenticate) {  // a 25.11 flavour has no http_auth
    c.failure = "no HTTP authentication on this slurmctld";
    return c;
  }
  uid_t uid = SLURM_AUTH_NOBODY;
  const int rc = g_api.authenticate(abi::kAuthAny, &uid, con, name, request);
  if (rc) {
    c.failure_status = g_api.status_from_error(rc);
    c.failure = slurm_strerror(rc);
    return c;
  }
  c.authenticated = true;
  c.privileged = uid == 0 || uid == slurm_conf.slurm_user_id;
  if (!c.privileged) {
    // Slurm's cache; the string stays owned by it.
    if (const char* n = uid_to_string_cached(uid)) c.user = n;
  }
  return c;
}

int Send(abi::Con* con, const WireResponse& w) {
  SlurmList headers =
      list_create(reinterpret_cast<ListDelF>(reinterpret_cast<void*>(g_api.header_free)));
  for (const auto& [k, v] : w.headers)
    list_append(headers, g_api.header_new(k.c_str(), v.c_str()));
  abi::Buf body{};
  const abi::Buf* body_ptr = nullptr;
  if (!w.payload.empty()) {
    const auto n = static_cast<uint32_t>(w.payload.size());
    body = {abi::kBufMagic, const_cast<char*>(w.payload.data()), n, n, false, true};
    body_ptr = &body;
  }
  // Connection: close, as slurmctld's own routes answer.
  const int rc = g_api.send(con, w.status, reinterpret_cast<abi::List*>(headers), true,
                            body_ptr, body_ptr ? w.content_type.c_str() : nullptr);
  FREE_NULL_LIST(headers);
  return rc;
}

int SendText(abi::Con* con, const abi::Request* request, int status,
             const char* text) {
  HttpRequest req;
  req.method = request->method == abi::kHead ? "HEAD" : "GET";
  HttpResponse resp;
  resp.status = status;
  resp.text = text;
  return Send(con, ToWire(req, resp, abi::kMaxHeaderLine));
}

int Serve(abi::Con* con, const char* name, const abi::Request* request) {
  struct InFlight {
    InFlight() { g_in_flight.fetch_add(1); }
    ~InFlight() { g_in_flight.fetch_sub(1); }
  } in_flight;
  try {
    // Held for the whole request: fini() waits for handlers only so long,
    // and then an exporter still in use here is deleted when we let go.
    const std::shared_ptr<Exporter> exporter = g_closed.load() ? nullptr : CurrentRuntime();
    if (!exporter) return SendText(con, request, 503, "soperator-metrics is not running\n");
    HttpRequest req;
    req.method = request->method == abi::kHead ? "HEAD" : "GET";
    req.path = request->url.path ? request->url.path : "";
    req.query = request->url.query ? request->url.query : "";
    req.accept = request->accept ? request->accept : "";
    const char* encoding = g_api.find_header(request->headers, "Accept-Encoding");
    req.accept_encoding = encoding ? encoding : "";
    req.tls = request->url.scheme == abi::kSchemeHttps || g_api.is_tls(con);
    const SlurmctldSite site = ReadSite();
    const HttpResponse resp = ServeSlurmctldRoute(
        *exporter, req, site, [&] { return Authenticate(con, name, request); });
    return Send(con, ToWire(req, resp, site.max_header_line));
  } catch (...) {
    // Nothing may unwind into slurmctld's C frames.
    try {
      return SendText(con, request, 500, "soperator-metrics: internal error\n");
    } catch (...) {
      return SLURM_ERROR;
    }
  }
}

extern "C" int Handle2511(abi::Con* con, const char* name, const abi::Request* request,
                          void*) {
  return Serve(con, name, request);
}

extern "C" int Handle2605(abi::Con* con, const char* name, const abi::Request* request,
                          void*, void*) {
  return Serve(con, name, request);
}

}  // namespace

void BindSlurmctldRoutes() {
  Api a;
  a.abi = DetectAbi();
  if (a.abi == Abi::kNone) {
    LogInfo("slurmctld has no HTTP router before Slurm 25.11: /metrics/soperator is not "
            "served on its port; scrape our listener (MetricsBindAddress)");
    return;
  }
  if (const std::string missing = Resolve(a); !missing.empty()) {
    LogWarn("slurmctld does not export " + missing +
            ": /metrics/soperator is not served on its port; scrape our listener "
            "(MetricsBindAddress) instead");
    return;
  }
  if (!a.http_enabled()) {
    LogInfo("slurmctld serves no HTTP on its port (CommunicationParameters=disable_http, "
            "or no http_parser plugin): /metrics/soperator is not served there");
    return;
  }
  g_api = a;
  for (const SoperatorPath& p : SoperatorPaths()) {
    const std::string path(p.path);
    for (const int method : {abi::kGet, abi::kHead}) {
      // No on_fini and no path_arg: http_fini() has nothing of ours to
      // free, and our .so is never unloaded (-z nodelete).
      if (a.abi == Abi::k2605)
        a.bind2605(method, path.c_str(), Handle2605, nullptr, nullptr);
      else
        a.bind2511(method, path.c_str(), Handle2511);
    }
  }
  LogInfo("serving /metrics/soperator on slurmctld's port " +
          std::to_string(slurm_conf.slurmctld_port));
}

void CloseSlurmctldRoutes() {
  g_closed.store(true);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (g_in_flight.load() > 0 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

}  // namespace sm::slurm

// ---------------------------------------------------------------------------
// Our declarations against Slurm's, where the tree has them (25.11+).
#if __has_include("src/common/http_router.h")
#include <type_traits>
// 26.05's http.h names a callback parameter "template".
#define template slurm_template
extern "C" {
#include "src/common/http.h"
#include "src/common/http_con.h"
#include "src/common/http_router.h"
#include "src/common/http_switch.h"
#include "src/common/pack.h"
#if SM_SLURM_AT_LEAST(26, 5)
#include "src/interfaces/http_auth.h"
#endif
}
#undef template

namespace sm::slurm::abi {

static_assert(HTTP_REQUEST_GET == kGet && HTTP_REQUEST_HEAD == kHead);
static_assert(URL_SCHEME_HTTPS == kSchemeHttps);
static_assert(BUF_MAGIC == kBufMagic);
static_assert(sizeof(http_request_method_t) == sizeof(int) &&
              sizeof(url_scheme_t) == sizeof(int) &&
              sizeof(http_status_code_t) == sizeof(int));

#define SM_SAME_FIELD(ours, theirs, field) \
  static_assert(offsetof(ours, field) == offsetof(theirs, field) && \
                sizeof(ours::field) == sizeof(theirs::field))
static_assert(sizeof(Url) == sizeof(url_t));
SM_SAME_FIELD(Url, url_t, scheme);
SM_SAME_FIELD(Url, url_t, path);
SM_SAME_FIELD(Url, url_t, query);
static_assert(sizeof(Request) == sizeof(http_con_request_t));
SM_SAME_FIELD(Request, http_con_request_t, url);
SM_SAME_FIELD(Request, http_con_request_t, method);
SM_SAME_FIELD(Request, http_con_request_t, headers);
SM_SAME_FIELD(Request, http_con_request_t, accept);
SM_SAME_FIELD(Request, http_con_request_t, http_version);
static_assert(sizeof(Buf) == sizeof(buf_t));
SM_SAME_FIELD(Buf, buf_t, magic);
SM_SAME_FIELD(Buf, buf_t, head);
SM_SAME_FIELD(Buf, buf_t, size);
SM_SAME_FIELD(Buf, buf_t, processed);
SM_SAME_FIELD(Buf, buf_t, mmaped);
SM_SAME_FIELD(Buf, buf_t, shadow);
#undef SM_SAME_FIELD

// The signatures we transcribed above, in Slurm's own type names.
static_assert(std::is_same_v<decltype(&::http_con_send_response),
                             int (*)(http_con_t*, http_status_code_t, list_t*, bool,
                                     const buf_t*, const char*)>);
static_assert(std::is_same_v<decltype(&::http_con_is_tls), bool (*)(http_con_t*)>);
static_assert(std::is_same_v<decltype(&::find_http_header),
                             const char* (*)(list_t*, const char*)>);
static_assert(std::is_same_v<decltype(&::http_header_new),
                             http_header_t* (*)(const char*, const char*)>);
static_assert(std::is_same_v<decltype(&::free_http_header), void (*)(http_header_t*)>);
static_assert(std::is_same_v<decltype(&::http_switch_http_enabled), bool (*)(void)>);
#if SM_SLURM_AT_LEAST(26, 5)
static_assert(HTTP_AUTH_PLUGIN_ANY == kAuthAny);
static_assert(std::is_same_v<
              decltype(&::http_router_bind),
              void (*)(http_request_method_t, const char*, http_router_on_request_event_t,
                       http_router_on_fini, void*)>);
static_assert(std::is_same_v<http_router_on_request_event_t,
                             int (*)(http_con_t*, const char*, const http_con_request_t*,
                                     void*, void*)>);
static_assert(std::is_same_v<decltype(&::http_auth_g_authenticate),
                             int (*)(http_auth_plugin_id_t, uid_t*, http_con_t*,
                                     const char*, const http_con_request_t*)>);
static_assert(std::is_same_v<decltype(&::http_status_from_error),
                             http_status_code_t (*)(slurm_err_t)>);
#else
static_assert(std::is_same_v<decltype(&::http_router_bind),
                             void (*)(http_request_method_t, const char*,
                                      http_con_on_request_event_t)>);
static_assert(std::is_same_v<http_con_on_request_event_t,
                             int (*)(http_con_t*, const char*, const http_con_request_t*,
                                     void*)>);
#endif

}  // namespace sm::slurm::abi
#endif
