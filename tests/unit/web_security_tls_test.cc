// SPDX-License-Identifier: GPL-2.0-or-later
// Real TLS handshakes against the server side WebSecurity builds
// (web_security.h), over a socketpair: what a client that may send any
// certificate (RequireAnyClientCert) can make the server hold. A chain
// above kMaxClientCertListBytes is refused, and no session is kept or
// handed out as a ticket (http/tls_context.cc, LimitWhatClientsLeave).
#include <gtest/gtest.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>

#include "http/web_config.h"
#include "http/web_security.h"

namespace sm {
namespace {

using KeyPtr = std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)>;
using CertPtr = std::unique_ptr<X509, decltype(&X509_free)>;
using CtxPtr = std::unique_ptr<SSL_CTX, decltype(&SSL_CTX_free)>;
using SessionPtr = std::unique_ptr<SSL_SESSION, decltype(&SSL_SESSION_free)>;

KeyPtr NewKey() { return KeyPtr(EVP_EC_gen("P-256"), EVP_PKEY_free); }

// A self-signed certificate whose DER is about `padding` bytes larger
// (a Netscape comment extension), to make chains of a chosen size.
CertPtr NewCert(EVP_PKEY* key, const char* cn, size_t padding = 0) {
  CertPtr x(X509_new(), X509_free);
  X509_set_version(x.get(), 2);
  ASN1_INTEGER_set(X509_get_serialNumber(x.get()), 1);
  X509_gmtime_adj(X509_getm_notBefore(x.get()), -3600);
  X509_gmtime_adj(X509_getm_notAfter(x.get()), 3600);
  X509_NAME* name = X509_get_subject_name(x.get());
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>(cn), -1, -1, 0);
  X509_set_issuer_name(x.get(), name);
  X509_set_pubkey(x.get(), key);
  if (padding) {
    const std::string comment(padding, 'p');
    X509_EXTENSION* ext =
        X509V3_EXT_conf_nid(nullptr, nullptr, NID_netscape_comment, comment.c_str());
    X509_add_ext(x.get(), ext, -1);
    X509_EXTENSION_free(ext);
  }
  X509_sign(x.get(), key, EVP_sha256());
  return x;
}

template <typename Write>
void WritePem(const std::string& path, Write write) {
  FILE* f = std::fopen(path.c_str(), "w");
  ASSERT_TRUE(f);
  write(f);
  std::fclose(f);
}

class Tls : public ::testing::Test {
 protected:
  void SetUp() override {
    // A side that gave up closes its socket: the other's write must fail,
    // not kill the test (the listener writes with MSG_NOSIGNAL).
    signal(SIGPIPE, SIG_IGN);
    char tmpl[] = "/tmp/sm-tls-XXXXXX";
    ASSERT_TRUE(mkdtemp(tmpl));
    dir_ = tmpl;
    KeyPtr key = NewKey();
    CertPtr cert = NewCert(key.get(), "server");
    WritePem(dir_ + "/server.pem", [&](FILE* f) { PEM_write_X509(f, cert.get()); });
    WritePem(dir_ + "/server.key", [&](FILE* f) {
      PEM_write_PrivateKey(f, key.get(), nullptr, nullptr, 0, nullptr, nullptr);
    });
    std::ofstream(dir_ + "/web.yml") << "tls_server_config:\n"
                                        "  cert_file: server.pem\n"
                                        "  key_file: server.key\n"
                                        "  client_auth_type: RequireAnyClientCert\n";
    std::string error;
    security_ = WebSecurity::Load(dir_ + "/web.yml", &error);
    ASSERT_TRUE(security_) << error;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  struct Result {
    bool server_ok = false;
    std::string server_error;
    bool resumed = false;
    SSL_CTX* server_ctx = nullptr;  // the context WebSecurity uses
    SessionPtr session{nullptr, SSL_SESSION_free};  // what the client may resume
  };

  // One handshake: the client presents `chain` (its first certificate with
  // `key`), offers `resume` if given, caps the protocol at `max_version`,
  // and reads one byte the server sends after the handshake (so a TLS 1.3
  // client takes in any ticket sent before it).
  Result Handshake(EVP_PKEY* key, const std::vector<X509*>& chain, int max_version,
                   SSL_SESSION* resume = nullptr, bool client_tickets = true) {
    Result r;
    int fds[2];
    EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
    SSL* server = security_->NewSsl(fds[0]);
    EXPECT_TRUE(server);
    r.server_ctx = SSL_get_SSL_CTX(server);
    CtxPtr client_ctx(SSL_CTX_new(TLS_client_method()), SSL_CTX_free);
    SSL_CTX_set_max_proto_version(client_ctx.get(), max_version);
    // Without tickets a TLS 1.2 server resumes by session id, from its cache.
    if (!client_tickets) SSL_CTX_set_options(client_ctx.get(), SSL_OP_NO_TICKET);
    SSL_CTX_use_certificate(client_ctx.get(), chain[0]);
    for (size_t i = 1; i < chain.size(); ++i) {
      X509_up_ref(chain[i]);
      SSL_CTX_add0_chain_cert(client_ctx.get(), chain[i]);
    }
    SSL_CTX_use_PrivateKey(client_ctx.get(), key);
    SSL* client = SSL_new(client_ctx.get());
    SSL_set_fd(client, fds[1]);
    if (resume) SSL_set_session(client, resume);
    std::thread peer([&] {
      if (SSL_connect(client) == 1) {
        char byte;
        if (SSL_read(client, &byte, 1) == 1) {
          r.resumed = SSL_session_reused(client) == 1;
          r.session.reset(SSL_get1_session(client));
        }
      }
      shutdown(fds[1], SHUT_RDWR);
    });
    r.server_ok = SSL_accept(server) == 1 && SSL_write(server, "x", 1) == 1;
    if (!r.server_ok) {
      char buf[256];
      ERR_error_string_n(ERR_get_error(), buf, sizeof buf);
      r.server_error = buf;
    }
    ERR_clear_error();
    shutdown(fds[0], SHUT_RDWR);
    peer.join();
    // As after a clean close (close_notify both ways): OpenSSL drops a
    // session from every cache and marks it not resumable when the
    // connection is freed without one.
    for (SSL* ssl : {server, client}) SSL_set_shutdown(ssl, SSL_SENT_SHUTDOWN | SSL_RECEIVED_SHUTDOWN);
    SSL_free(client);
    SSL_free(server);
    close(fds[0]);
    close(fds[1]);
    return r;
  }

  std::string dir_;
  std::shared_ptr<WebSecurity> security_;
};

TEST_F(Tls, ClientChainAboveTheLimitIsRefused) {
  KeyPtr key = NewKey();
  // A few KB below the limit: served (a real chain is 2 to 10 KB).
  CertPtr fits = NewCert(key.get(), "client", WebSecurity::kMaxClientCertListBytes - 4096);
  Result ok = Handshake(key.get(), {fits.get()}, TLS1_3_VERSION);
  EXPECT_TRUE(ok.server_ok) << ok.server_error;
  // Above it, but well under OpenSSL's default of 100 KB: refused before
  // the server decodes it.
  CertPtr big = NewCert(key.get(), "client", WebSecurity::kMaxClientCertListBytes + 1024);
  for (const int version : {TLS1_2_VERSION, TLS1_3_VERSION}) {
    Result refused = Handshake(key.get(), {big.get()}, version);
    EXPECT_FALSE(refused.server_ok) << version;
    EXPECT_NE(refused.server_error.find("excessive message size"), std::string::npos)
        << refused.server_error;
  }
  // The same bytes as a chain of several certificates count together.
  CertPtr a = NewCert(key.get(), "client", 12000);
  CertPtr b = NewCert(key.get(), "intermediate-1", 12000);
  CertPtr c = NewCert(key.get(), "intermediate-2", 12000);
  Result chain = Handshake(key.get(), {a.get(), b.get(), c.get()}, TLS1_3_VERSION);
  EXPECT_FALSE(chain.server_ok);
}

TEST_F(Tls, NoSessionIsKeptOrResumed) {
  KeyPtr key = NewKey();
  CertPtr cert = NewCert(key.get(), "client", 8000);
  struct Client {
    int version;
    bool tickets;
  };
  for (const auto [version, tickets] :
       {Client{TLS1_2_VERSION, false}, Client{TLS1_2_VERSION, true},
        Client{TLS1_3_VERSION, true}}) {
    SessionPtr last{nullptr, SSL_SESSION_free};
    for (int i = 0; i < 4; ++i) {
      Result r = Handshake(key.get(), {cert.get()}, version, last.get(), tickets);
      ASSERT_TRUE(r.server_ok) << r.server_error;
      // The server's cache holds no session (TLS 1.2 would add one per
      // handshake by session id; OpenSSL's default keeps 20,480).
      EXPECT_EQ(SSL_CTX_sess_number(r.server_ctx), 0)
          << version << (tickets ? " tickets" : " session ids") << " handshake " << i;
      // Nor does the client get a session to resume: no session id the
      // server remembers, no ticket (each would carry the client's chain).
      EXPECT_FALSE(r.resumed) << version << (tickets ? " tickets" : " session ids")
                              << " handshake " << i;
      last = std::move(r.session);
    }
  }
}

}  // namespace
}  // namespace sm
