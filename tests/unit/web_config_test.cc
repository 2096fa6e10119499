// SPDX-License-Identifier: GPL-2.0-or-later
// The exporter-toolkit web config parser: every key, its defaults, and the
// files exporter-toolkit refuses (tests/http/test_listener.py serves them).
#include <gtest/gtest.h>

#include "http/web_config.h"
#include "http/web_security.h"

namespace sm {
namespace {

constexpr const char* kHash = "$2y$10$QOauhQNbBCuQDKes6eFzPeMqBSjb7Mr5DUmpZ/VcEd00UAV/LDeSi";

std::string Error(const std::string& yaml) {
  std::string error;
  if (ParseWebConfig(yaml, "/etc/slurm", &error)) return "";
  return error;
}

TEST(WebConfig, EveryKey) {
  std::string error;
  const auto c = ParseWebConfig(
      "tls_server_config:\n"
      "  cert_file: tls/server.pem\n"
      "  key_file: /abs/server.key\n"
      "  client_ca_file: ca.pem\n"
      "  client_auth_type: RequireAndVerifyClientCert\n"
      "  min_version: TLS13\n"
      "  max_version: TLS13\n"
      "  cipher_suites: [TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, TLS_AES_128_GCM_SHA256]\n"
      "  curve_preferences: [X25519, CurveP256]\n"
      "  prefer_server_cipher_suites: false\n"
      "  client_allowed_sans: [prometheus.example]\n"
      "http_server_config:\n"
      "  http2: false\n"
      "  headers:\n"
      "    X-Frame-Options: sameorigin\n"
      "    Content-Security-Policy: \"default-src 'none'\"\n"
      "    X-XSS-Protection: ''\n"
      "basic_auth_users:\n"
      "  alice: " + std::string(kHash) + "\n"
      "rate_limit:\n"
      "  interval: 100ms\n"
      "  burst: 5\n",
      "/etc/slurm", &error);
  ASSERT_TRUE(c) << error;
  const TlsServerConfig& t = c->tls;
  EXPECT_TRUE(t.enabled);
  EXPECT_EQ(t.cert_file, "/etc/slurm/tls/server.pem");  // relative to the file
  EXPECT_EQ(t.key_file, "/abs/server.key");
  EXPECT_EQ(t.client_ca_file, "/etc/slurm/ca.pem");
  EXPECT_EQ(t.client_auth, ClientAuth::kRequireAndVerifyClientCert);
  EXPECT_EQ(t.min_version, kTls13);
  EXPECT_EQ(t.cipher_suites.size(), 2u);
  EXPECT_EQ(t.curve_preferences, (std::vector<std::string>{"X25519", "P-256"}));
  EXPECT_FALSE(t.prefer_server_cipher_suites);
  EXPECT_EQ(*t.client_allowed_sans, std::vector<std::string>{"prometheus.example"});
  EXPECT_FALSE(c->http2);
  EXPECT_TRUE(c->http2_given);
  // A blank value unsets the header.
  EXPECT_EQ(c->headers, (std::vector<std::pair<std::string, std::string>>{
                            {"X-Frame-Options", "sameorigin"},
                            {"Content-Security-Policy", "default-src 'none'"}}));
  EXPECT_EQ(c->users.at("alice"), kHash);
  EXPECT_EQ(c->rate_interval.count(), 100);
  EXPECT_EQ(c->rate_burst, 5);
}

TEST(WebConfig, Defaults) {
  std::string error;
  auto c = ParseWebConfig("", "/", &error);
  ASSERT_TRUE(c) << error;
  EXPECT_FALSE(c->tls.enabled);
  EXPECT_TRUE(c->users.empty());
  EXPECT_TRUE(c->http2);
  EXPECT_FALSE(c->http2_given);
  c = ParseWebConfig("tls_server_config:\n  cert_file: a\n  key_file: b\n", "/d", &error);
  ASSERT_TRUE(c) << error;
  EXPECT_EQ(c->tls.min_version, kTls12);  // exporter-toolkit's defaults
  EXPECT_EQ(c->tls.max_version, kTls13);
  EXPECT_EQ(c->tls.client_auth, ClientAuth::kNoClientCert);
  EXPECT_TRUE(c->tls.prefer_server_cipher_suites);
  EXPECT_FALSE(c->tls.client_allowed_sans);
  // "RequireClientCert" is exporter-toolkit's old name.
  c = ParseWebConfig("tls_server_config:\n  cert_file: a\n  key_file: b\n"
                     "  client_auth_type: RequireClientCert\n", "/d", &error);
  ASSERT_TRUE(c) << error;
  EXPECT_EQ(c->tls.client_auth, ClientAuth::kRequireAnyClientCert);
}

TEST(WebConfig, RefusedLikeExporterToolkit) {
  const std::string tls = "tls_server_config:\n  cert_file: a\n  key_file: b\n";
  EXPECT_EQ(Error("tls_config:\n  cert_file: a\n"), "line 2: unknown key \"tls_config\"");
  EXPECT_EQ(Error(tls + "  certfile: c\n"),
            "line 4: unknown key \"certfile\" in tls_server_config");
  EXPECT_EQ(Error("tls_server_config:\n  cert_file: a\n"),
            "tls_server_config: missing one of key or key_file");
  EXPECT_EQ(Error("tls_server_config:\n  key_file: a\n"),
            "tls_server_config: missing one of cert or cert_file");
  EXPECT_EQ(Error(tls + "  client_auth_type: Sometimes\n"), "invalid ClientAuth: Sometimes");
  EXPECT_EQ(Error(tls + "  client_ca_file: ca.pem\n"),
            "tls_server_config: client CA's have been configured without a Client "
            "Auth Policy");
  EXPECT_EQ(Error(tls + "  client_auth_type: VerifyClientCertIfGiven\n"),
            "tls_server_config: client_auth_type VerifyClientCertIfGiven needs "
            "client_ca_file (or client_ca)");
  for (const char* type : {"NoClientCert", "RequestClientCert", "RequireAnyClientCert"}) {
    SCOPED_TRACE(type);
    EXPECT_EQ(Error(tls + "  client_auth_type: " + type +
                    "\n  client_allowed_sans: [prometheus.example]\n"),
              "tls_server_config: client_allowed_sans needs client_auth_type "
              "RequireAndVerifyClientCert (or VerifyClientCertIfGiven): without "
              "verification any certificate could carry an allowed SAN");
  }
  EXPECT_EQ(Error(tls + "  min_version: TLS9\n"),
            "line 4: unknown TLS version: TLS9 (TLS10, TLS11, TLS12 or TLS13)");
  EXPECT_EQ(Error(tls + "  min_version: TLS13\n  max_version: TLS12\n"),
            "tls_server_config: min_version is above max_version");
  EXPECT_EQ(Error(tls + "  cipher_suites: [TLS_RSA_WITH_RC4_128_SHA]\n"),
            "line 4: unknown cipher: TLS_RSA_WITH_RC4_128_SHA");
  EXPECT_EQ(Error(tls + "  curve_preferences: [P-256]\n"), "line 4: unknown curve: P-256");
  EXPECT_EQ(Error(tls + "  prefer_server_cipher_suites: maybe\n"),
            "line 4: prefer_server_cipher_suites must be true or false, not \"maybe\"");
  EXPECT_EQ(Error(tls + "  cipher_suites: TLS_AES_128_GCM_SHA256\n"),
            "line 4: cipher_suites must be a list");
  EXPECT_EQ(Error("http_server_config:\n  headers:\n    Server: x\n"),
            "line 3: HTTP header \"Server\" can not be configured");
  EXPECT_EQ(Error("http_server_config:\n  headers:\n    X-Frame-Options: allow\n"),
            "line 3: invalid value for X-Frame-Options: \"allow\"");
  EXPECT_EQ(Error("http_server_config:\n  headers:\n    X-XSS-Protection: \"a\\nb\"\n"),
            "line 3: control character in the value of X-XSS-Protection");
  EXPECT_EQ(Error("http_server_config:\n  http3: true\n"),
            "line 2: unknown key \"http3\" in http_server_config");
  EXPECT_EQ(Error("basic_auth_users:\n  alice: secret\n"),
            "line 2: basic_auth_users: the password of \"alice\" is not a bcrypt hash "
            "($2y$10$ and 53 more characters, e.g. from htpasswd -nBC 10 alice)");
  EXPECT_EQ(Error("basic_auth_users:\n  alice: " + std::string(kHash) + "\n  alice: " +
                  kHash + "\n"),
            "line 3: basic_auth_users: key \"alice\" appears twice");
  EXPECT_EQ(Error("rate_limit:\n  interval: soon\n"), "line 2: rate_limit: invalid interval");
  EXPECT_EQ(Error("rate_limit:\n  burst: -1\n"), "line 2: rate_limit: burst must be a whole number");
  EXPECT_EQ(Error("just a string\n"), "line 1: the web config must be a mapping");
  EXPECT_EQ(Error("tls_server_config: [\n"), "invalid YAML: end of sequence flow not found (line 2)");
  EXPECT_EQ(Error("tls_server_config:\n  - a\n"), "line 2: tls_server_config must be a mapping");
  // Deep nesting must not exhaust the stack (inside slurmctld).
  EXPECT_EQ(Error(std::string(100000, '[')), "invalid YAML: nested too deeply");
  EXPECT_EQ(Error(std::string(50000, '{') + "a: 1"), "invalid YAML: nested too deeply");
  // Refused before yaml-cpp sees it (0.6 has no depth guard, 0.7 stops at
  // 500): 254 flow levels on a line parse, 255 could pass the bound of 256.
  EXPECT_EQ(Error(std::string(254, '[') + std::string(254, ']')),
            "line 1: the web config must be a mapping");
  EXPECT_EQ(Error(std::string(255, '[') + std::string(255, ']')),
            "invalid YAML: nested too deeply");
  // Block nesting by indentation and by compact "- - -" entries, each well
  // below yaml-cpp 0.7's own limit.
  std::string indented;
  for (int i = 0; i < 300; ++i) indented += std::string(i, ' ') + "k:\n";
  EXPECT_EQ(Error(indented), "invalid YAML: nested too deeply");
  std::string compact;
  for (int i = 0; i < 300; ++i) compact += "- ";
  EXPECT_EQ(Error(compact + "x\n"), "invalid YAML: nested too deeply");
  // What the file holds is quoted safely into the log line.
  EXPECT_EQ(Error(std::string("basic_auth_users:\n  \xff\x1b[2J: x\n")),
            "line 2: basic_auth_users: the password of \"\\xff\\x1b[2J\" is not a bcrypt "
            "hash ($2y$10$ and 53 more characters, e.g. from htpasswd -nBC 10 \\xff\\x1b[2J)");
}

// The nesting bound counts per line and per bracket, not per entry: a long
// file of shallow entries passes.
TEST(WebConfig, ManyEntriesAreNotDeep) {
  std::string yaml = "basic_auth_users:\n";
  for (int i = 0; i < 2000; ++i) yaml += "  user-" + std::to_string(i) + ": " + kHash + "\n";
  std::string error;
  const auto c = ParseWebConfig(yaml, "/etc/slurm", &error);
  ASSERT_TRUE(c) << error;
  EXPECT_EQ(c->users.size(), 2000u);
}

TEST(WebConfig, BcryptShape) {
  EXPECT_TRUE(IsBcryptHash(kHash));
  EXPECT_TRUE(IsBcryptHash("$2b$04$" + std::string(53, 'a')));
  EXPECT_FALSE(IsBcryptHash("$2b$03$" + std::string(53, 'a')));  // cost below 4
  EXPECT_FALSE(IsBcryptHash("$2b$32$" + std::string(53, 'a')));
  EXPECT_FALSE(IsBcryptHash("$2c$10$" + std::string(53, 'a')));
  EXPECT_FALSE(IsBcryptHash("$2b$10$" + std::string(52, 'a')));
  EXPECT_FALSE(IsBcryptHash("$2b$10$" + std::string(52, 'a') + "!"));
  EXPECT_FALSE(IsBcryptHash("$6$salt$hash"));
}

// A check of a hash above kMaxBcryptCost costs a scrape (and the
// listener's stop, which waits for a running check) too long: refused when
// the file is loaded, naming the user and the cost (docs/configuration.md,
// basic_auth_users).
TEST(WebConfig, BcryptCostAboveTheLimitIsRefused) {
  const std::string salt_and_hash(53, 'a');
  std::string error;
  for (const char* ok : {"$2y$04$", "$2b$10$", "$2a$12$"}) {
    const auto c = ParseWebConfig(std::string("basic_auth_users:\n  alice: ") + ok +
                                      salt_and_hash + "\n",
                                  "/etc/slurm", &error);
    EXPECT_TRUE(c) << ok << ": " << error;
  }
  EXPECT_EQ(Error("basic_auth_users:\n  alice: $2y$13$" + salt_and_hash + "\n"),
            "line 2: basic_auth_users: the password hash of \"alice\" has bcrypt cost 13, "
            "above the 12 accepted: each check of it would take 8 times as long as at "
            "cost 10; hash the password again with a cost of 10 to 12 "
            "(htpasswd -nBC 10 alice)");
  EXPECT_EQ(Error("basic_auth_users:\n  prometheus: " + std::string(kHash) +
                  "\n  bob: $2b$31$" + salt_and_hash + "\n"),
            "line 3: basic_auth_users: the password hash of \"bob\" has bcrypt cost 31, "
            "above the 12 accepted: each check of it would take 2097152 times as long as "
            "at cost 10; hash the password again with a cost of 10 to 12 "
            "(htpasswd -nBC 10 bob)");
}

TEST(WebSecurity, BcryptBudgetIsPerAddressOrIpv6Slash64) {
  EXPECT_EQ(BcryptBudgetKey("192.0.2.7"), "192.0.2.7");
  EXPECT_EQ(BcryptBudgetKey("::ffff:192.0.2.7"), "192.0.2.7");
  EXPECT_EQ(BcryptBudgetKey("2001:db8:1:2:aaaa::1"), "2001:db8:1:2::/64");
  EXPECT_EQ(BcryptBudgetKey("2001:db8:1:2:bbbb:cccc:dddd:eeee"), "2001:db8:1:2::/64");
  EXPECT_NE(BcryptBudgetKey("2001:db8:1:3::1"), BcryptBudgetKey("2001:db8:1:2::1"));
  EXPECT_EQ(BcryptBudgetKey("::1"), "::/64");
}

}  // namespace
}  // namespace sm
