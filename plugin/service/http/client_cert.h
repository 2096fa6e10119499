// SPDX-License-Identifier: GPL-2.0-or-later
// What the event loop checks of a client after its TLS handshake
// (tls_server_config's client_auth_type and client_allowed_sans): whether
// its certificate was verified against client_ca, its subject, and whether
// it carries an allowed SAN, as exporter-toolkit's VerifyPeerCertificate.
#pragma once

#include <string>

#include "http/web_config.h"

typedef struct ssl_st SSL;

namespace sm {
namespace web {

// false (with *why) when the connection must be dropped. *verified: the
// certificate was verified against client_ca; *subject its subject
// (RFC 2253, at most 1 KiB). May throw (out of memory).
bool CheckClientCertificate(SSL* ssl, const TlsServerConfig& t, bool* verified,
                            std::string* subject, std::string* why);

}  // namespace web
}  // namespace sm
