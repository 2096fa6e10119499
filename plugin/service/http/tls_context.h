// SPDX-License-Identifier: GPL-2.0-or-later
// The OpenSSL server context a web config's tls_server_config makes
// (http/web_config.h): certificate and key, client CAs, client_auth_type,
// versions, ciphers and curves, and what one client can make the server
// hold. Pass phrases are always refused.
#pragma once

#include <string>

#include "http/web_config.h"

typedef struct ssl_ctx_st SSL_CTX;

namespace sm {
namespace web {

// The largest certificate chain a client may send (the whole Certificate
// message): a chain of a few real certificates is 2 to 10 KB; OpenSSL's
// default is 100 KB. TLS servers keep no session (tls_context.cc,
// LimitWhatClientsLeave).
inline constexpr long kMaxClientCertListBytes = 32 * 1024;

// A new context in *out, or false with *error (OpenSSL's error queue is
// left empty either way).
bool BuildContext(const TlsServerConfig& t, SSL_CTX** out, std::string* error);

}  // namespace web
}  // namespace sm
