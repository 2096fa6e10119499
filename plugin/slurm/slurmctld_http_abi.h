// SPDX-License-Identifier: GPL-2.0-or-later
// Our declarations of the parts of slurmctld's HTTP server we call (25.11
// and 26.05): src/common/http.h, http_con.h, http_router.h, pack.h's
// buf_t and src/interfaces/http_auth.h. Ours, so that the binding builds
// against every release and the shim can stand in for them on releases
// without them; slurmctld_http.cc checks them against Slurm's headers
// wherever the configured tree has those.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>

namespace sm::slurm::abi {

// The same in 25.11.7 and 26.05.3 except where named.
extern "C" {
struct Con;     // http_con_t, opaque
struct List;    // list_t, opaque
struct Header;  // http_header_t, made and freed by Slurm

struct Url {  // url_t
  int scheme;
  char* host;
  char* port;
  char* user;
  char* path;
  char* query;
  char* fragment;
};

struct Request {  // http_con_request_t
  Url url;
  int method;
  List* headers;
  bool keep_alive;
  bool connection_close;
  int expect;
  char* accept;
  char* content_type;
  ssize_t content_length;
  void* content;
  ssize_t content_bytes;
  struct {
    uint16_t major;
    uint16_t minor;
  } http_version;
};

struct Buf {  // buf_t, as SHADOW_BUF_INITIALIZER() fills it
  uint32_t magic;
  char* head;
  uint32_t size;
  uint32_t processed;
  bool mmaped;
  bool shadow;
};

// 25.11: http_con_on_request_event_t; 26.05 adds path_arg.
using Handler2511 = int (*)(Con*, const char* name, const Request*, void* arg);
using Handler2605 = int (*)(Con*, const char* name, const Request*, void* arg,
                            void* path_arg);
using OnFini = void (*)(Handler2605, void* path_arg);
using Bind2511 = void (*)(int method, const char* path, Handler2511);
using Bind2605 = void (*)(int method, const char* path, Handler2605, OnFini,
                          void* path_arg);
using SendResponse = int (*)(Con*, int status, List* headers, bool close_header,
                             const Buf* body, const char* mime);
using IsTls = bool (*)(Con*);
using FindHeader = const char* (*)(List*, const char* name);
using HeaderNew = Header* (*)(const char* name, const char* value);
using HeaderFree = void (*)(Header*);
using HttpEnabled = bool (*)(void);
// 26.05 only.
using Authenticate = int (*)(int plugin_id, uid_t* uid, Con*, const char* name,
                             const Request*);
using StatusFromError = int (*)(int error);
// Releases before 25.11 have no router and no metrics_auth: only the
// shim's stand-in provides this, with the facts slurm_conf and the
// listeners would hold (rule: kRuleOpen, kRuleUnauthorized, kRuleAuthenticate).
using StandinSite = void (*)(int* standby, int* rule, const char** auth_users);
inline constexpr const char* kStandinSiteSymbol = "soperator_metrics_standin_site";
}  // extern "C"

constexpr int kGet = 1;            // HTTP_REQUEST_GET
constexpr int kHead = 6;           // HTTP_REQUEST_HEAD
constexpr int kSchemeHttps = 2;    // URL_SCHEME_HTTPS
constexpr int kAuthAny = 0xffff;   // HTTP_AUTH_PLUGIN_ANY (INFINITE16)
constexpr uint32_t kBufMagic = 0x42554545;  // BUF_MAGIC
constexpr int kRuleOpen = 0, kRuleUnauthorized = 1, kRuleAuthenticate = 2;
// http_con.c formats each header line into char[MAX_HEADER_BYTES = 80]
// with snprintf: 79 bytes at most, "\r\n" included (25.11.7, 26.05.3).
constexpr size_t kMaxHeaderLine = 79;

}  // namespace sm::slurm::abi
