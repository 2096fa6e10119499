// SPDX-License-Identifier: GPL-2.0-or-later
// The Prometheus exporter-toolkit web configuration file (WebConfigFile=),
// read as exporter-toolkit reads it (web/tls_config.go, docs/
// web-configuration.md): the same keys, defaults and checks, and unknown
// keys are errors (yaml.UnmarshalStrict). Parsing only: web_security.h
// turns the result into TLS contexts and password checks.
#pragma once

#include <chrono>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sm {

enum class ClientAuth {
  kNoClientCert,
  kRequestClientCert,           // asked for, never verified
  kRequireAnyClientCert,        // required, never verified
  kVerifyClientCertIfGiven,     // verified against client_ca when given
  kRequireAndVerifyClientCert,  // required and verified
};

// TLS protocol versions as on the wire (0x0301 TLS 1.0 ... 0x0304 TLS 1.3).
inline constexpr int kTls10 = 0x0301, kTls11 = 0x0302, kTls12 = 0x0303,
                     kTls13 = 0x0304;

struct TlsServerConfig {
  // Paths are absolute: relative ones are taken from the web config's own
  // directory, as exporter-toolkit does. Inline PEM ("cert", "key",
  // "client_ca") is the alternative to each file.
  std::string cert_file, key_file, client_ca_file;
  std::string cert_pem, key_pem, client_ca_pem;
  ClientAuth client_auth = ClientAuth::kNoClientCert;
  int min_version = kTls12;
  int max_version = kTls13;
  std::vector<std::string> cipher_suites;      // IANA names, TLS 1.2 and older
  std::vector<std::string> curve_preferences;  // OpenSSL group names
  bool prefer_server_cipher_suites = true;
  std::optional<std::vector<std::string>> client_allowed_sans;

  // exporter-toolkit's IsEnabled(): any TLS key at all turns TLS on.
  bool enabled = false;
};

struct WebConfig {
  TlsServerConfig tls;
  std::map<std::string, std::string> users;  // basic_auth_users: name -> bcrypt
  std::vector<std::pair<std::string, std::string>> headers;
  bool http2 = true;  // accepted and ignored: we speak HTTP/1.1 only
  bool http2_given = false;
  // rate_limit: one request per interval, bursts of `burst`; 0 = off.
  std::chrono::milliseconds rate_interval{0};
  int rate_burst = 0;
};

// `dir` is the directory relative paths are taken from. nullopt with the
// reason in *error (naming the key) when the file would be refused by
// exporter-toolkit, or uses something we cannot honour, or could nest
// deeper than kMaxWebConfigNesting levels ("invalid YAML: nested too
// deeply"; an upper bound counted from the text, see web_config.cc).
inline constexpr size_t kMaxWebConfigNesting = 256;
std::optional<WebConfig> ParseWebConfig(std::string_view yaml, std::string_view dir,
                                        std::string* error);

// bcrypt's "$2a$", "$2b$" or "$2y$", a two-digit cost 04-31, "$", and 53
// characters of bcrypt's base64 (golang.org/x/crypto/bcrypt.Cost's check).
bool IsBcryptHash(std::string_view hash);
// The cost of a hash IsBcryptHash() accepts.
int BcryptCost(std::string_view hash);
// The highest bcrypt cost basic_auth_users may use; a higher one is refused
// when the web config is loaded. Each step doubles the time of a check: 12
// is what Python's bcrypt.gensalt() makes (the recipe of Prometheus' own
// basic-auth guide), 0.2 to 0.3 s on a controller core, while a check of a
// hash of cost 31 would run for about a day on a listener worker that the
// listener's stop then waits for (docs/configuration.md, basic_auth_users,
// has the times measured).
inline constexpr int kMaxBcryptCost = 12;

}  // namespace sm
