// SPDX-License-Identifier: GPL-2.0-or-later
#include "http/web_config.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <exception>
#include <new>
#include <set>

#include "config/exporter_config.h"

namespace sm {
namespace {

// What crypto/tls.CipherSuites() lists (Go's secure suites); the TLS 1.3
// ones are accepted and, as in Go, have no effect.
constexpr std::string_view kGoCipherSuites[] = {
    "TLS_RSA_WITH_AES_128_CBC_SHA",
    "TLS_RSA_WITH_AES_256_CBC_SHA",
    "TLS_RSA_WITH_AES_128_GCM_SHA256",
    "TLS_RSA_WITH_AES_256_GCM_SHA384",
    "TLS_AES_128_GCM_SHA256",
    "TLS_AES_256_GCM_SHA384",
    "TLS_CHACHA20_POLY1305_SHA256",
    "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA",
    "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA",
    "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA",
    "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA",
    "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
    "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
    "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
    "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
    "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
    "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
};

// Go's curve names -> OpenSSL's group names.
constexpr std::pair<std::string_view, std::string_view> kCurves[] = {
    {"CurveP256", "P-256"}, {"CurveP384", "P-384"},
    {"CurveP521", "P-521"}, {"X25519", "X25519"}};

constexpr std::pair<std::string_view, int> kVersions[] = {
    {"TLS10", kTls10}, {"TLS11", kTls11}, {"TLS12", kTls12}, {"TLS13", kTls13}};

constexpr std::pair<std::string_view, ClientAuth> kClientAuth[] = {
    {"", ClientAuth::kNoClientCert},
    {"NoClientCert", ClientAuth::kNoClientCert},
    {"RequestClientCert", ClientAuth::kRequestClientCert},
    {"RequireAnyClientCert", ClientAuth::kRequireAnyClientCert},
    {"RequireClientCert", ClientAuth::kRequireAnyClientCert},  // old name
    {"VerifyClientCertIfGiven", ClientAuth::kVerifyClientCertIfGiven},
    {"RequireAndVerifyClientCert", ClientAuth::kRequireAndVerifyClientCert},
};

// exporter-toolkit's extraHTTPHeaders: the only headers that may be set,
// with the values allowed where the header is an enumeration.
struct AllowedHeader {
  std::string_view name;
  std::vector<std::string_view> values;  // empty: any value
};
const std::vector<AllowedHeader>& AllowedHeaders() {
  static const std::vector<AllowedHeader> headers = {
      {"Strict-Transport-Security", {}},
      {"X-Content-Type-Options", {"nosniff"}},
      {"X-Frame-Options", {"deny", "sameorigin"}},
      {"X-XSS-Protection", {}},
      {"Content-Security-Policy", {}},
  };
  return headers;
}

struct Error {
  std::string text;
};

// A value from the file as a log line may show it: printable ASCII, the
// rest as \xNN, at most 64 characters.
std::string Shown(std::string_view v) {
  std::string out;
  for (unsigned char c : v.substr(0, 64)) {
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out.push_back(static_cast<char>(c));
    } else {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  if (v.size() > 64) out += "...";
  return out;
}

std::string Where(const YAML::Node& n) {
  const YAML::Mark m = n.Mark();
  if (m.line < 0) return "";
  return "line " + std::to_string(m.line + 1) + ": ";
}

// Every key of a mapping, in file order, refusing duplicates and non-scalar
// keys (yaml.v2's strict mode refuses duplicates too).
std::vector<std::pair<std::string, YAML::Node>> Entries(const YAML::Node& map,
                                                        std::string_view what) {
  std::vector<std::pair<std::string, YAML::Node>> out;
  if (map.IsNull()) return out;
  if (!map.IsMap()) throw Error{Where(map) + std::string(what) + " must be a mapping"};
  std::set<std::string> seen;
  for (const auto& kv : map) {
    if (!kv.first.IsScalar())
      throw Error{Where(kv.first) + std::string(what) + ": keys must be strings"};
    const std::string key = kv.first.Scalar();
    if (!seen.insert(key).second)
      throw Error{Where(kv.first) + std::string(what) + ": key \"" + Shown(key) +
                  "\" appears twice"};
    out.emplace_back(key, kv.second);
  }
  return out;
}

std::string String(const YAML::Node& n, std::string_view key) {
  if (n.IsNull()) return "";
  if (!n.IsScalar()) throw Error{Where(n) + Shown(key) + " must be a string"};
  return n.Scalar();
}

bool Bool(const YAML::Node& n, std::string_view key) {
  // YAML 1.1 booleans, as yaml.v2 reads them.
  const std::string s = String(n, key);
  for (const char* t : {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON", "y", "Y"})
    if (s == t) return true;
  for (const char* f : {"false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF", "n", "N"})
    if (s == f) return false;
  throw Error{Where(n) + std::string(key) + " must be true or false, not \"" + Shown(s) + "\""};
}

std::vector<std::string> Strings(const YAML::Node& n, std::string_view key) {
  std::vector<std::string> out;
  if (n.IsNull()) return out;
  if (!n.IsSequence()) throw Error{Where(n) + std::string(key) + " must be a list"};
  for (const auto& item : n) out.push_back(String(item, key));
  return out;
}

std::string Resolve(std::string_view dir, const std::string& path) {
  if (path.empty() || path.front() == '/') return path;
  return std::string(dir) + "/" + path;
}

void ParseTls(const YAML::Node& node, std::string_view dir, TlsServerConfig& t) {
  std::string client_auth;
  for (const auto& [key, v] : Entries(node, "tls_server_config")) {
    if (key == "cert_file") t.cert_file = Resolve(dir, String(v, key));
    else if (key == "key_file") t.key_file = Resolve(dir, String(v, key));
    else if (key == "client_ca_file") t.client_ca_file = Resolve(dir, String(v, key));
    else if (key == "cert") t.cert_pem = String(v, key);
    else if (key == "key") t.key_pem = String(v, key);
    else if (key == "client_ca") t.client_ca_pem = String(v, key);
    else if (key == "client_auth_type") client_auth = String(v, key);
    else if (key == "min_version" || key == "max_version") {
      const std::string s = String(v, key);
      const auto* it = std::find_if(std::begin(kVersions), std::end(kVersions),
                                    [&](const auto& p) { return p.first == s; });
      if (it == std::end(kVersions))
        throw Error{Where(v) + "unknown TLS version: " + Shown(s) + " (TLS10, TLS11, TLS12 or TLS13)"};
      (key == "min_version" ? t.min_version : t.max_version) = it->second;
    } else if (key == "cipher_suites") {
      for (const std::string& s : Strings(v, key)) {
        if (std::find(std::begin(kGoCipherSuites), std::end(kGoCipherSuites), s) ==
            std::end(kGoCipherSuites))
          throw Error{Where(v) + "unknown cipher: " + Shown(s)};
        t.cipher_suites.push_back(s);
      }
    } else if (key == "curve_preferences") {
      for (const std::string& s : Strings(v, key)) {
        const auto* it = std::find_if(std::begin(kCurves), std::end(kCurves),
                                      [&](const auto& p) { return p.first == s; });
        if (it == std::end(kCurves)) throw Error{Where(v) + "unknown curve: " + Shown(s)};
        t.curve_preferences.emplace_back(it->second);
      }
    } else if (key == "prefer_server_cipher_suites") {
      t.prefer_server_cipher_suites = Bool(v, key);
    } else if (key == "client_allowed_sans") {
      t.client_allowed_sans = Strings(v, key);
    } else {
      throw Error{Where(v) + "unknown key \"" + Shown(key) + "\" in tls_server_config"};
    }
  }
  const auto* auth = std::find_if(std::begin(kClientAuth), std::end(kClientAuth),
                                  [&](const auto& p) { return p.first == client_auth; });
  if (auth == std::end(kClientAuth))
    throw Error{"invalid ClientAuth: " + Shown(client_auth)};
  t.client_auth = auth->second;
  t.enabled = !t.cert_file.empty() || !t.cert_pem.empty() || !t.key_file.empty() ||
              !t.key_pem.empty() || !t.client_ca_file.empty() ||
              !t.client_ca_pem.empty() || !client_auth.empty();
  if (!t.enabled) return;
  if (t.cert_file.empty() && t.cert_pem.empty())
    throw Error{"tls_server_config: missing one of cert or cert_file"};
  if (t.key_file.empty() && t.key_pem.empty())
    throw Error{"tls_server_config: missing one of key or key_file"};
  if (!t.cert_file.empty() && !t.cert_pem.empty())
    throw Error{"tls_server_config: cert and cert_file are both set"};
  if (!t.key_file.empty() && !t.key_pem.empty())
    throw Error{"tls_server_config: key and key_file are both set"};
  const bool has_ca = !t.client_ca_file.empty() || !t.client_ca_pem.empty();
  if (has_ca && t.client_auth == ClientAuth::kNoClientCert)
    throw Error{"tls_server_config: client CA's have been configured without a "
                "Client Auth Policy"};
  // Go would verify against the system's roots; we never trust those for
  // clients: a client CA must be named.
  if (!has_ca && (t.client_auth == ClientAuth::kVerifyClientCertIfGiven ||
                  t.client_auth == ClientAuth::kRequireAndVerifyClientCert))
    throw Error{"tls_server_config: client_auth_type " + client_auth +
                " needs client_ca_file (or client_ca)"};
  if (t.min_version > t.max_version)
    throw Error{"tls_server_config: min_version is above max_version"};
  // A certificate nobody verified can name any SAN: matching its SANs
  // proves nothing (exporter-toolkit refuses this combination too).
  if (t.client_allowed_sans && t.client_auth != ClientAuth::kVerifyClientCertIfGiven &&
      t.client_auth != ClientAuth::kRequireAndVerifyClientCert)
    throw Error{"tls_server_config: client_allowed_sans needs client_auth_type "
                "RequireAndVerifyClientCert (or VerifyClientCertIfGiven): without "
                "verification any certificate could carry an allowed SAN"};
}

void ParseHttp(const YAML::Node& node, WebConfig& c) {
  for (const auto& [key, v] : Entries(node, "http_server_config")) {
    if (key == "http2") {
      c.http2 = Bool(v, key);
      c.http2_given = true;
    } else if (key == "headers") {
      for (const auto& entry : Entries(v, "headers")) {
        // Not a structured binding: clang 14 cannot capture one in a lambda.
        const std::string& name = entry.first;
        const YAML::Node& value_node = entry.second;
        const std::string value = String(value_node, name);
        const auto& allowed = AllowedHeaders();
        const auto it = std::find_if(allowed.begin(), allowed.end(),
                                     [&](const AllowedHeader& h) { return h.name == name; });
        if (it == allowed.end())
          throw Error{Where(value_node) + "HTTP header \"" + Shown(name) + "\" can not be configured"};
        if (!it->values.empty() &&
            std::find(it->values.begin(), it->values.end(), value) == it->values.end())
          throw Error{Where(value_node) + "invalid value for " + name + ": \"" + Shown(value) + "\""};
        for (unsigned char ch : value) {
          if (ch < 0x20 || ch == 0x7f)
            throw Error{Where(value_node) + "control character in the value of " + name};
        }
        if (!value.empty()) c.headers.emplace_back(name, value);  // blank: unset
      }
    } else {
      throw Error{Where(v) + "unknown key \"" + Shown(key) + "\" in http_server_config"};
    }
  }
}

void ParseRateLimit(const YAML::Node& node, WebConfig& c) {
  for (const auto& [key, v] : Entries(node, "rate_limit")) {
    if (key == "interval") {
      const auto d = ParseDuration(String(v, key));
      if (!d || d->count() < 0) throw Error{Where(v) + "rate_limit: invalid interval"};
      c.rate_interval = *d;
    } else if (key == "burst") {
      const std::string s = String(v, key);
      if (s.empty() || s.size() > 9 ||
          !std::all_of(s.begin(), s.end(), [](char ch) { return ch >= '0' && ch <= '9'; }))
        throw Error{Where(v) + "rate_limit: burst must be a whole number"};
      c.rate_burst = std::stoi(s);
    } else {
      throw Error{Where(v) + "unknown key \"" + Shown(key) + "\" in rate_limit"};
    }
  }
}

}  // namespace

int BcryptCost(std::string_view h) { return (h[4] - '0') * 10 + (h[5] - '0'); }

bool IsBcryptHash(std::string_view h) {
  if (h.size() != 60 || h[0] != '$' || h[1] != '2' || h[3] != '$' || h[6] != '$')
    return false;
  if (h[2] != 'a' && h[2] != 'b' && h[2] != 'y') return false;
  if (h[4] < '0' || h[4] > '3' || h[5] < '0' || h[5] > '9') return false;
  const int cost = (h[4] - '0') * 10 + (h[5] - '0');
  if (cost < 4 || cost > 31) return false;
  return std::all_of(h.begin() + 7, h.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || c == '.' || c == '/';
  });
}

namespace {

// An upper bound of how deeply the YAML text nests, without parsing it:
// every flow level opens with '[' or '{'; a block level either starts on a
// line indented deeper than its parent's (at most two levels per column: a
// sequence may sit at its mapping key's column) or on the same line after
// '-', '?' or ':'. Quotes and comments are not told apart, so the bound
// only errs high.
size_t NestingBound(std::string_view yaml) {
  size_t flow = 0, block = 0, indent = 0, indicators = 0;
  bool at_indent = true;
  for (const char ch : yaml) {
    if (ch == '\n') {
      block = std::max(block, 2 * (indent + 1) + indicators);
      indent = indicators = 0;
      at_indent = true;
      continue;
    }
    if (at_indent && ch == ' ') {
      ++indent;
      continue;
    }
    at_indent = false;
    if (ch == '[' || ch == '{') ++flow;
    if (ch == '-' || ch == '?' || ch == ':') ++indicators;
  }
  return flow + std::max(block, 2 * (indent + 1) + indicators);
}

}  // namespace

std::optional<WebConfig> ParseWebConfig(std::string_view yaml, std::string_view dir,
                                        std::string* error) {
  WebConfig c;
  // yaml-cpp parses nesting by recursion: only 0.7 and later stop at 500
  // levels (YAML::DeepRecursion), EPEL's 0.6 runs out of stack. A web
  // config nests 3 levels; refusing what could nest past 256 keeps every
  // yaml-cpp release within its stack.
  if (NestingBound(yaml) > kMaxWebConfigNesting) {
    *error = "invalid YAML: nested too deeply";
    return std::nullopt;
  }
  try {
    const YAML::Node root = YAML::Load(std::string(yaml));
    for (const auto& [key, v] : Entries(root, "the web config")) {
      if (key == "tls_server_config") {
        ParseTls(v, dir, c.tls);
      } else if (key == "http_server_config") {
        ParseHttp(v, c);
      } else if (key == "basic_auth_users") {
        for (const auto& [user, hash_node] : Entries(v, "basic_auth_users")) {
          const std::string hash = String(hash_node, user);
          if (!IsBcryptHash(hash))
            throw Error{Where(hash_node) + "basic_auth_users: the password of \"" + Shown(user) +
                        "\" is not a bcrypt hash ($2y$10$ and 53 more characters, "
                        "e.g. from htpasswd -nBC 10 " + Shown(user) + ")"};
          if (const int cost = BcryptCost(hash); cost > kMaxBcryptCost)
            throw Error{Where(hash_node) + "basic_auth_users: the password hash of \"" +
                        Shown(user) + "\" has bcrypt cost " + std::to_string(cost) +
                        ", above the " + std::to_string(kMaxBcryptCost) +
                        " accepted: each check of it would take " +
                        std::to_string(1 << (cost - 10)) +
                        " times as long as at cost 10; hash the password again with a "
                        "cost of 10 to 12 (htpasswd -nBC 10 " + Shown(user) + ")"};
          c.users[user] = hash;
        }
      } else if (key == "rate_limit") {
        ParseRateLimit(v, c);
      } else {
        throw Error{Where(v) + "unknown key \"" + Shown(key) + "\""};
      }
    }
  } catch (const Error& e) {
    *error = e.text;
    return std::nullopt;
  } catch (const YAML::Exception& e) {
    *error = "invalid YAML: " + e.msg +
             (e.mark.line >= 0 ? " (line " + std::to_string(e.mark.line + 1) + ")" : "");
    return std::nullopt;
  } catch (const std::bad_alloc&) {
    // Out of memory, or yaml-cpp's own limits: whatever it is, it must not
    // unwind into slurmctld (web_security.cc keeps the old config).
    *error = "out of memory while reading the web config";
    return std::nullopt;
  } catch (const std::exception& e) {
    *error = std::string("cannot read the web config: ") + e.what();
    return std::nullopt;
  }
  return c;
}

}  // namespace sm
