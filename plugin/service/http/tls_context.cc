// SPDX-License-Identifier: GPL-2.0-or-later
#include "http/tls_context.h"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>

#include <cstring>
#include <memory>
#include <vector>

#include "http/security_files.h"

namespace sm {
namespace web {
namespace {

std::string OpenSslError() {
  std::string out;
  while (const unsigned long e = ERR_get_error()) {
    char buf[256];
    ERR_error_string_n(e, buf, sizeof buf);
    if (!out.empty()) out += "; ";
    out += buf;
  }
  return out.empty() ? "unknown OpenSSL error" : out;
}

using BioPtr = std::unique_ptr<BIO, decltype(&BIO_free)>;
BioPtr MemBio(const std::string& pem) {
  return BioPtr(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())), BIO_free);
}

// Every pass-phrase request is refused. Without a callback OpenSSL falls
// back to prompting on the terminal or stdin ("Enter PEM pass phrase:"),
// which inside slurmctld's init() blocks its main thread for good
// (docs/configuration.md#security: encrypted keys are not supported).
// `asked`, when given, is a bool set to true so the caller can say why.
int RefusePassphrase(char*, int, int, void* asked) {
  if (asked) *static_cast<bool*>(asked) = true;
  return -1;
}

// Every certificate of a PEM text, in order.
std::vector<X509*> ReadCertificates(const std::string& pem) {
  std::vector<X509*> out;
  BioPtr bio = MemBio(pem);
  while (X509* x = PEM_read_bio_X509(bio.get(), nullptr, RefusePassphrase, nullptr))
    out.push_back(x);
  ERR_clear_error();  // the loop ends on "no start line"
  return out;
}

int AcceptAnyCertificate(int, X509_STORE_CTX*) { return 1; }

bool Fail(std::string* error, std::string text) {
  *error = std::move(text);
  ERR_clear_error();
  return false;
}

struct Pems {
  std::string cert, key, ca;
};

bool ReadPems(const TlsServerConfig& t, Pems* p, std::string* error) {
  p->cert = t.cert_pem;
  p->key = t.key_pem;
  p->ca = t.client_ca_pem;
  if (!t.cert_file.empty() && !ReadSmallFile(t.cert_file, &p->cert, error))
    return Fail(error, "cert_file: " + *error);
  if (!t.key_file.empty() && !ReadSmallFile(t.key_file, &p->key, error))
    return Fail(error, "key_file: " + *error);
  if (!t.client_ca_file.empty() && !ReadSmallFile(t.client_ca_file, &p->ca, error))
    return Fail(error, "client_ca_file: " + *error);
  return true;
}

bool UseCertificateAndKey(SSL_CTX* ctx, const TlsServerConfig& t, const Pems& p,
                          std::string* error) {
  std::vector<X509*> chain = ReadCertificates(p.cert);
  if (chain.empty()) return Fail(error, "no PEM certificate in cert/cert_file");
  bool ok = SSL_CTX_use_certificate(ctx, chain[0]) == 1;
  X509_free(chain[0]);
  for (size_t i = 1; i < chain.size(); ++i) {
    // add0: the context owns the certificate from here on.
    if (ok) ok = SSL_CTX_add0_chain_cert(ctx, chain[i]) == 1;
    else X509_free(chain[i]);
  }
  if (!ok) return Fail(error, "cannot use the certificate: " + OpenSslError());
  BioPtr bio = MemBio(p.key);
  bool encrypted = false;
  EVP_PKEY* key = PEM_read_bio_PrivateKey(bio.get(), nullptr, RefusePassphrase, &encrypted);
  const std::string where = t.key_file.empty() ? "key" : "key_file " + t.key_file;
  if (!key && encrypted)
    return Fail(error, where + ": the private key is encrypted (asks for a pass phrase); "
                       "encrypted keys are not supported: store it decrypted, readable "
                       "by SlurmUser only (openssl pkey -in KEY -out PLAIN.key)");
  if (!key) return Fail(error, "no PEM private key in " + where + ": " + OpenSslError());
  ok = SSL_CTX_use_PrivateKey(ctx, key) == 1;
  EVP_PKEY_free(key);
  if (!ok || SSL_CTX_check_private_key(ctx) != 1)
    return Fail(error, "the private key does not match the certificate: " + OpenSslError());
  return true;
}

bool UseClientCa(SSL_CTX* ctx, const std::string& ca_pem, std::string* error) {
  if (ca_pem.empty()) return true;
  const std::vector<X509*> cas = ReadCertificates(ca_pem);
  if (cas.empty()) return Fail(error, "no PEM certificate in client_ca/client_ca_file");
  X509_STORE* store = SSL_CTX_get_cert_store(ctx);
  STACK_OF(X509_NAME)* names = sk_X509_NAME_new_null();
  for (X509* ca : cas) {
    X509_STORE_add_cert(store, ca);
    if (names) sk_X509_NAME_push(names, X509_NAME_dup(X509_get_subject_name(ca)));
    X509_free(ca);
  }
  if (names) SSL_CTX_set_client_CA_list(ctx, names);  // takes ownership
  return true;
}

void SetClientAuth(SSL_CTX* ctx, ClientAuth auth) {
  int mode = SSL_VERIFY_NONE;
  SSL_verify_cb cb = nullptr;
  switch (auth) {
    case ClientAuth::kNoClientCert: break;
    case ClientAuth::kRequestClientCert:
      mode = SSL_VERIFY_PEER;
      cb = AcceptAnyCertificate;
      break;
    case ClientAuth::kRequireAnyClientCert:
      mode = SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT;
      cb = AcceptAnyCertificate;
      break;
    case ClientAuth::kVerifyClientCertIfGiven: mode = SSL_VERIFY_PEER; break;
    case ClientAuth::kRequireAndVerifyClientCert:
      mode = SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT;
      break;
  }
  SSL_CTX_set_verify(ctx, mode, cb);
}

bool SetProtocol(SSL_CTX* ctx, const TlsServerConfig& t, std::string* error) {
  static constexpr unsigned char kSessionContext[] = "soperator-metrics";
  SSL_CTX_set_session_id_context(ctx, kSessionContext, sizeof kSessionContext - 1);
  if (SSL_CTX_set_min_proto_version(ctx, t.min_version) != 1 ||
      SSL_CTX_set_max_proto_version(ctx, t.max_version) != 1)
    return Fail(error, "unsupported min_version/max_version: " + OpenSslError());
  if (!t.cipher_suites.empty()) {
    std::string list;
    for (const std::string& go_name : t.cipher_suites) {
      if (go_name.starts_with("TLS_AES_") || go_name.starts_with("TLS_CHACHA20_"))
        continue;  // TLS 1.3 suites are not configurable, as in Go
      const char* name = OPENSSL_cipher_name(go_name.c_str());
      if (!name || std::strcmp(name, "(NONE)") == 0)
        return Fail(error, "cipher " + go_name + " is not available in this OpenSSL");
      if (!list.empty()) list += ':';
      list += name;
    }
    if (!list.empty() && SSL_CTX_set_cipher_list(ctx, list.c_str()) != 1)
      return Fail(error, "cipher_suites: " + OpenSslError());
  }
  if (!t.curve_preferences.empty()) {
    std::string list;
    for (const std::string& g : t.curve_preferences) list += (list.empty() ? "" : ":") + g;
    if (SSL_CTX_set1_groups_list(ctx, list.c_str()) != 1)
      return Fail(error, "curve_preferences: " + OpenSslError());
  }
  uint64_t options = SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION;
  if (t.prefer_server_cipher_suites) options |= SSL_OP_CIPHER_SERVER_PREFERENCE;
  SSL_CTX_set_options(ctx, options);
  SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE |
                            SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER | SSL_MODE_RELEASE_BUFFERS);
  return true;
}

// What one client can make the server hold. RequestClientCert and
// RequireAnyClientCert accept any certificate, so anybody who can connect
// chooses the chain: with OpenSSL's defaults it could send 100 KB of it
// (max_cert_list) and the server session cache would keep it, decoded, in
// each of up to 20,480 sessions for 5 minutes, about 2 GB of slurmctld's
// memory from handshakes alone. No session is kept, and no ticket is sent
// either (it would carry the chain back to the client every handshake):
// Prometheus and VictoriaMetrics (Go's crypto/tls, no client session cache
// by default) never resume a session, and keep-alive connections serve up
// to 100 scrapes each (docs/configuration.md, "Limits against hostile
// clients"; tests/unit/web_security_tls_test.cc).
void LimitWhatClientsLeave(SSL_CTX* ctx) {
  SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
  SSL_CTX_sess_set_cache_size(ctx, 1);  // were the cache ever turned on
  SSL_CTX_set_options(ctx, SSL_OP_NO_TICKET);
  SSL_CTX_set_num_tickets(ctx, 0);
  SSL_CTX_set_max_cert_list(ctx, kMaxClientCertListBytes);
}

}  // namespace

bool BuildContext(const TlsServerConfig& t, SSL_CTX** out, std::string* error) {
  Pems pems;
  if (!ReadPems(t, &pems, error)) return false;
  SSL_CTX* ctx = SSL_CTX_new(TLS_server_method());
  if (!ctx) return Fail(error, "cannot create a TLS context: " + OpenSslError());
  std::unique_ptr<SSL_CTX, decltype(&SSL_CTX_free)> guard(ctx, SSL_CTX_free);
  // Any later key or certificate load through the context
  // (SSL_CTX_use_PrivateKey_file and the like) must not prompt either.
  SSL_CTX_set_default_passwd_cb(ctx, RefusePassphrase);
  SSL_CTX_set_default_passwd_cb_userdata(ctx, nullptr);
  if (!UseCertificateAndKey(ctx, t, pems, error) || !UseClientCa(ctx, pems.ca, error))
    return false;
  SetClientAuth(ctx, t.client_auth);
  if (!SetProtocol(ctx, t, error)) return false;
  LimitWhatClientsLeave(ctx);
  *out = guard.release();
  return true;
}

}  // namespace web
}  // namespace sm
