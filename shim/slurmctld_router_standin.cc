// SPDX-License-Identifier: GPL-2.0-or-later
// A stand-in for slurmctld's HTTP router, connection and authentication
// calls (25.11 and 26.05, src/common/http_*.c, src/interfaces/http_auth.c),
// for releases that have none: loaded by the shim (slurmctld_router_driver.cc,
// RTLD_GLOBAL) before the
// metrics carrier, whose init() then binds its routes here as it does in a
// real slurmctld. Built twice: SM_STANDIN_ROUTER=2511 (three-argument
// bind, no http_auth) and 2605. What it mimics of Slurm, and why:
// - responses are written in http_con_send_response()'s order, and a
//   header line over 79 bytes stops the response there, as Slurm's
//   80-byte snprintf buffer does;
// - authentication reads "X-SLURM-USER-TOKEN: uid=N" instead of a JWT;
//   no or another token fails with ESLURM_AUTH_CRED_INVALID, as when no
//   http_auth plugin accepts the request;
// - the facts slurm_conf and the listeners hold on 25.11+ (standby,
//   MetricsAuthUsers, PrivateData, SlurmctldHost, SlurmctldPort, SlurmUser)
//   are set by the shim through sm_standin_configure().
#include <strings.h>

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "slurm_api.h"
#include "slurmctld_http_abi.h"

namespace abi = sm::slurm::abi;

namespace {

#if SM_STANDIN_ROUTER == 2605
using Handler = abi::Handler2605;
#else
using Handler = abi::Handler2511;
#endif

struct HeaderRec {  // what http_header_new() returns here
  std::string name, value;
};

using Headers = std::vector<std::pair<std::string, std::string>>;

struct Connection {  // what the handler gets as http_con_t*
  bool https = false;
  std::string out;   // the response as it would go on the wire
  int responses = 0;
};

struct Site {
  int standby = 0;
  int rule = abi::kRuleOpen;
  std::optional<std::string> auth_users;
  bool http_enabled = true;
} g_site;

std::map<std::string, Handler> g_routes;  // "GET /path" -> handler

constexpr size_t kMaxHeaderLine = 79;

// False once a line does not fit: Slurm stops the response there.
bool WriteHeader(std::string& out, const std::string& name, const std::string& value) {
  const std::string line = name + ": " + value + "\r\n";
  if (line.size() > kMaxHeaderLine) return false;
  out += line;
  return true;
}

int AppendHeader(void* x, void* arg) {
  auto* h = static_cast<HeaderRec*>(x);
  auto* ctx = static_cast<std::pair<std::string*, bool*>*>(arg);
  if (!*ctx->second) return 0;
  *ctx->second = WriteHeader(*ctx->first, h->name, h->value);
  return 0;
}

}  // namespace

#define STANDIN extern "C" __attribute__((visibility("default")))

#if SM_STANDIN_ROUTER == 2605
STANDIN void http_router_bind(int method, const char* path, abi::Handler2605 on_request,
                              abi::OnFini, void*) {
  g_routes[std::string(method == abi::kHead ? "HEAD " : "GET ") + path] = on_request;
}
#else
STANDIN void http_router_bind(int method, const char* path, abi::Handler2511 on_request) {
  g_routes[std::string(method == abi::kHead ? "HEAD " : "GET ") + path] = on_request;
}
#endif

STANDIN int http_con_send_response(abi::Con* con, int status, abi::List* headers,
                                   bool close_header, const abi::Buf* body,
                                   const char* mime) {
  auto* c = reinterpret_cast<Connection*>(con);
  ++c->responses;
  std::string& out = c->out;
  out += "HTTP/1.1 " + std::to_string(status) + "\r\n";
  bool ok = true;
  if (headers) {
    std::pair<std::string*, bool*> ctx{&out, &ok};
    list_for_each(reinterpret_cast<sm::slurm::SlurmList>(headers), AppendHeader, &ctx);
  }
  if (ok && close_header) ok = WriteHeader(out, "Connection", "Close");
  const bool has_body = body && body->processed > 0;
  if (ok && has_body) {
    if (body->magic != abi::kBufMagic) return SLURM_ERROR;
    ok = WriteHeader(out, "Content-Length", std::to_string(body->processed)) &&
         (!mime || WriteHeader(out, "Content-Type", mime));
  }
  if (!ok) return ENOMEM;
  out += "\r\n";
  if (has_body) out.append(body->head, body->processed);
  return SLURM_SUCCESS;
}

STANDIN bool http_con_is_tls(abi::Con* con) {
  return reinterpret_cast<Connection*>(con)->https;
}

STANDIN const char* find_http_header(abi::List* headers, const char* name) {
  for (const auto& [k, v] : *reinterpret_cast<Headers*>(headers)) {
    if (!strcasecmp(k.c_str(), name)) return v.c_str();
  }
  return nullptr;
}

STANDIN abi::Header* http_header_new(const char* name, const char* value) {
  return reinterpret_cast<abi::Header*>(new HeaderRec{name, value});
}

STANDIN void free_http_header(abi::Header* h) { delete reinterpret_cast<HeaderRec*>(h); }

STANDIN bool http_switch_http_enabled(void) { return g_site.http_enabled; }

// "X-SLURM-USER-TOKEN: hold" keeps the handler inside authentication (as a
// slow http_auth plugin would) until sm_standin_release(), then passes it
// as root: a handler still inside while fini() runs.
std::mutex g_hold_mu;
std::condition_variable g_hold_cv;
int g_held = 0;
bool g_released = false;

#if SM_STANDIN_ROUTER == 2605
STANDIN int http_auth_g_authenticate(int plugin_id, uid_t* uid, abi::Con*, const char*,
                                     const abi::Request* request) {
  *uid = SLURM_AUTH_NOBODY;
  if (plugin_id != abi::kAuthAny) return SLURM_ERROR;
  const char* token = find_http_header(request->headers, "X-SLURM-USER-TOKEN");
  if (token && !strcmp(token, "hold")) {
    std::unique_lock lock(g_hold_mu);
    ++g_held;
    g_hold_cv.notify_all();
    g_hold_cv.wait_for(lock, std::chrono::seconds(60), [] { return g_released; });
    *uid = 0;
    return SLURM_SUCCESS;
  }
  if (token && !strcmp(token, "broken-plugin")) return SLURM_ERROR;
  if (!token || strncmp(token, "uid=", 4) != 0) return ESLURM_AUTH_CRED_INVALID;
  char* end = nullptr;
  const unsigned long n = strtoul(token + 4, &end, 10);
  if (end == token + 4 || *end) return ESLURM_AUTH_CRED_INVALID;
  *uid = static_cast<uid_t>(n);
  return SLURM_SUCCESS;
}

// http_status_from_error() for the errors above.
STANDIN int http_status_from_error(int error) {
  if (error == SLURM_SUCCESS) return 200;
  if (error == ESLURM_AUTH_CRED_INVALID) return 401;
  if (error == EPERM) return 403;
  return 500;
}
#endif

STANDIN void soperator_metrics_standin_site(int* standby, int* rule, const char** auth_users) {
  *standby = g_site.standby;
  *rule = g_site.rule;
  *auth_users = g_site.auth_users ? g_site.auth_users->c_str() : nullptr;
}

// ---- for the shim ---------------------------------------------------------

STANDIN void sm_standin_configure(int standby, int rule, const char* auth_users,
                                  int http_enabled, const char* primary_host,
                                  uint16_t port, uint32_t slurm_user_id) {
  g_site.standby = standby;
  g_site.rule = rule;
  g_site.auth_users = auth_users ? std::optional<std::string>(auth_users) : std::nullopt;
  g_site.http_enabled = http_enabled != 0;
  // What _primary_slurmctld_url() and the SlurmUser check read.
  static char* addr[1] = {nullptr};
  free(addr[0]);
  addr[0] = primary_host ? strdup(primary_host) : nullptr;
  slurm_conf.control_addr = addr;
  slurm_conf.control_cnt = primary_host ? 1 : 0;
  slurm_conf.slurmctld_port = port;
  slurm_conf.slurm_user_id = slurm_user_id;
}

// Waits (up to `ms`) until a request is held in authentication; 1 if so.
STANDIN int sm_standin_wait_held(int ms) {
  std::unique_lock lock(g_hold_mu);
  return g_hold_cv.wait_for(lock, std::chrono::milliseconds(ms), [] { return g_held > 0; })
             ? 1
             : 0;
}

// Lets every held request go on.
STANDIN void sm_standin_release(void) {
  std::lock_guard lock(g_hold_mu);
  g_released = true;
  g_hold_cv.notify_all();
}

// Routes one request as slurmctld's http_router_on_request() does and
// returns what went on the wire (malloc()ed), or NULL when the path is not
// bound (slurmctld's 404). `headers` is name, value, ..., NULL. *rc is the
// handler's return value.
STANDIN char* sm_standin_request(const char* method, const char* path, const char* query,
                                 int https, const char* const* headers, int* rc,
                                 size_t* len) {
  const auto route = g_routes.find(std::string(method) + " " + path);
  if (route == g_routes.end()) return nullptr;
  Headers hs;
  for (const char* const* h = headers; h && h[0] && h[1]; h += 2) hs.emplace_back(h[0], h[1]);
  abi::Request req{};
  req.url.scheme = https ? abi::kSchemeHttps : 1;
  req.url.path = const_cast<char*>(path);
  req.url.query = query && *query ? const_cast<char*>(query) : nullptr;
  req.method = !strcmp(method, "HEAD") ? abi::kHead : abi::kGet;
  req.headers = reinterpret_cast<abi::List*>(&hs);
  req.http_version = {1, 1};
  for (const auto& [k, v] : hs) {
    if (!strcasecmp(k.c_str(), "Accept")) req.accept = const_cast<char*>(v.c_str());
  }
  Connection con;
  con.https = https != 0;
  auto* c = reinterpret_cast<abi::Con*>(&con);
#if SM_STANDIN_ROUTER == 2605
  *rc = route->second(c, "standin", &req, nullptr, nullptr);
#else
  *rc = route->second(c, "standin", &req, nullptr);
#endif
  if (con.responses != 1) con.out += "\r\n[standin: " + std::to_string(con.responses) + " responses]";
  *len = con.out.size();
  char* out = static_cast<char*>(malloc(con.out.size() + 1));
  memcpy(out, con.out.data(), con.out.size());
  out[con.out.size()] = '\0';
  return out;
}
