// SPDX-License-Identifier: GPL-2.0-or-later
#include "http/web_security.h"

#include <arpa/inet.h>
#include <crypt.h>
#include <fcntl.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <random>

#include "base/ascii.h"
#include "base/log.h"

namespace sm {
namespace {

constexpr size_t kMaxFileBytes = 1 << 20;

// exporter-toolkit's hash of "fakepassword": unknown users cost a bcrypt
// too, so timing does not tell which user names exist.
constexpr const char* kDummyHash =
    "$2y$10$QOauhQNbBCuQDKes6eFzPeMqBSjb7Mr5DUmpZ/VcEd00UAV/LDeSi";

struct FileStamp {
  std::string path;
  dev_t dev = 0;
  ino_t ino = 0;
  off_t size = 0;
  timespec mtime{};
  bool operator==(const FileStamp& o) const {
    return path == o.path && dev == o.dev && ino == o.ino && size == o.size &&
           mtime.tv_sec == o.mtime.tv_sec && mtime.tv_nsec == o.mtime.tv_nsec;
  }
};

FileStamp Stamp(const std::string& path) {
  FileStamp s{path};
  struct stat st {};
  if (stat(path.c_str(), &st) == 0) {
    s.dev = st.st_dev;
    s.ino = st.st_ino;
    s.size = st.st_size;
    s.mtime = st.st_mtim;
  }
  return s;
}

// Regular files only (a FIFO would block the loop), at most 1 MiB.
bool ReadSmallFile(const std::string& path, std::string* out, std::string* error) {
  const int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    *error = path + ": " + std::strerror(errno);
    return false;
  }
  struct stat st {};
  bool ok = fstat(fd, &st) == 0;
  if (ok && !S_ISREG(st.st_mode)) {
    *error = path + ": not a regular file";
    ok = false;
  } else if (ok && static_cast<size_t>(st.st_size) > kMaxFileBytes) {
    *error = path + ": larger than 1 MiB";
    ok = false;
  }
  out->clear();
  char buf[16384];
  while (ok) {
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      *error = path + ": " + std::strerror(errno);
      ok = false;
    }
    if (n <= 0) break;
    out->append(buf, static_cast<size_t>(n));
    if (out->size() > kMaxFileBytes) {
      *error = path + ": larger than 1 MiB";
      ok = false;
    }
  }
  close(fd);
  return ok;
}

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

}  // namespace

struct WebSecurity::State {
  WebConfig config;
  SSL_CTX* ctx = nullptr;
  std::vector<FileStamp> stamps;  // the web config and every file it names
  ~State() {
    if (ctx) SSL_CTX_free(ctx);
  }
};

namespace {

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
  SSL_CTX_set_max_cert_list(ctx, WebSecurity::kMaxClientCertListBytes);
}

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

std::string Base64Decode(std::string_view in, bool* ok) {
  *ok = false;
  if (in.size() % 4 != 0 || in.size() > 4096) return "";
  std::string out(in.size() / 4 * 3, '\0');
  const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(in.data()),
                                static_cast<int>(in.size()));
  if (n < 0) return "";
  size_t len = static_cast<size_t>(n);
  // EVP_DecodeBlock counts padding as zero bytes.
  if (!in.empty() && in.back() == '=') --len;
  if (in.size() >= 2 && in[in.size() - 2] == '=') --len;
  out.resize(len);
  *ok = true;
  return out;
}

std::string CacheKey(const std::string& user, const std::string& hash,
                     const std::string& password) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_MD_CTX* md = EVP_MD_CTX_new();
  EVP_DigestInit_ex(md, EVP_sha256(), nullptr);
  for (const std::string* s : {&user, &hash, &password}) {
    const uint64_t n = s->size();  // lengths keep ("ab","c") and ("a","bc") apart
    EVP_DigestUpdate(md, &n, sizeof n);
    EVP_DigestUpdate(md, s->data(), s->size());
  }
  EVP_DigestFinal_ex(md, digest, &len);
  EVP_MD_CTX_free(md);
  return std::string(reinterpret_cast<char*>(digest), len);
}

}  // namespace

std::string BcryptBudgetKey(std::string_view peer) {
  unsigned char a[16];
  const std::string text(peer);
  if (text.find(':') == std::string::npos || inet_pton(AF_INET6, text.c_str(), a) != 1)
    return text;
  static constexpr unsigned char kMapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  if (std::memcmp(a, kMapped, sizeof kMapped) == 0) {
    char v4[INET_ADDRSTRLEN] = {};
    inet_ntop(AF_INET, a + 12, v4, sizeof v4);
    return v4;
  }
  std::memset(a + 8, 0, 8);
  char buf[INET6_ADDRSTRLEN] = {};
  inet_ntop(AF_INET6, a, buf, sizeof buf);
  return std::string(buf) + "/64";
}

namespace {

HttpResponse Plain(int status, std::string text) {
  HttpResponse r;
  r.status = status;
  r.text = std::move(text);
  return r;
}

}  // namespace

std::shared_ptr<const WebSecurity::State> WebSecurity::LoadState(const std::string& path,
                                                                 std::string* error) {
  // Always a State: on failure (*error set) it holds the stamps of every
  // file read so far, taken before reading, so that a later change to any
  // of them (e.g. the missing certificate created) is tried again.
  error->clear();
  auto state = std::make_shared<State>();
  state->stamps.push_back(Stamp(path));
  std::string yaml;
  if (!ReadSmallFile(path, &yaml, error)) return state;
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash);
  auto config = ParseWebConfig(yaml, dir.empty() ? "/" : dir, error);
  if (!config) return state;
  state->config = std::move(*config);
  const TlsServerConfig& t = state->config.tls;
  for (const std::string* f : {&t.cert_file, &t.key_file, &t.client_ca_file}) {
    if (!f->empty()) state->stamps.push_back(Stamp(*f));
  }
  if (t.enabled && !BuildContext(t, &state->ctx, error) && error->empty())
    *error = "cannot build the TLS context";
  return state;
}

std::shared_ptr<WebSecurity> WebSecurity::Load(const std::string& path,
                                               std::string* error) noexcept {
  try {
    return Create(path, error);
  } catch (...) {
    // slurmctld's init() is on the other side: no exception may reach it.
    try {
      *error = "out of memory while loading the web config";
    } catch (...) {
    }
    return nullptr;
  }
}

std::shared_ptr<WebSecurity> WebSecurity::Create(const std::string& path, std::string* error) {
  // No atexit() cleanup: slurmctld 22.05 exits without calling fini(), and
  // OpenSSL must not be torn down under a listener thread still running.
  // (Only effective if nothing in the process initialised OpenSSL first.)
  OPENSSL_init_ssl(OPENSSL_INIT_NO_ATEXIT, nullptr);
  auto state = LoadState(path, error);
  if (!error->empty()) return nullptr;
  std::shared_ptr<WebSecurity> s(new WebSecurity());
  s->path_ = path;
  s->tls_ = state->config.tls.enabled;
  s->tokens_ = state->config.rate_burst;
  s->rate_last_ = std::chrono::steady_clock::now();
  s->next_check_ = s->rate_last_ + std::chrono::seconds(1);
  if (state->config.http2_given)
    LogInfo(path + ": http2 is accepted and ignored: our listener speaks HTTP/1.1 only");
  s->state_ = std::move(state);
  return s;
}

WebSecurity::~WebSecurity() = default;

std::shared_ptr<const WebSecurity::State> WebSecurity::Current() {
  std::lock_guard lock(mu_);
  return state_;
}

void WebSecurity::MaybeReload() noexcept {
  try {
    ReloadIfChanged();
  } catch (...) {
    // Out of memory mid-reload: the state in use is left as it was and
    // the files are checked again in a second.
    try {
      LogError(path_ + ": reloading failed (out of memory); the files in use stay");
    } catch (...) {
    }
  }
}

void WebSecurity::ReloadIfChanged() {
  const auto now = std::chrono::steady_clock::now();
  std::shared_ptr<const State> old;
  {
    std::lock_guard lock(mu_);
    if (now < next_check_) return;
    next_check_ = now + std::chrono::seconds(1);
    old = state_;
  }
  bool changed = false;
  for (const FileStamp& s : old->stamps) changed |= !(Stamp(s.path) == s);
  if (!changed) return;
  std::string error;
  auto fresh = LoadState(path_, &error);
  if (error.empty() && fresh->config.tls.enabled != tls_)
    error = tls_ ? "TLS was removed; restart slurmctld to serve plain HTTP"
                 : "TLS was added; restart slurmctld to serve HTTPS";
  std::lock_guard lock(mu_);
  if (error.empty()) {
    state_ = std::move(fresh);
    if (!broken_.empty()) LogInfo(path_ + ": valid again; serving");
    broken_.clear();
    LogInfo(path_ + ": reloaded");
    return;
  }
  // The old files stay in use for nothing (every request gets 500), but
  // the stamps are those of the failed attempt, taken before its files
  // were read: the error is logged once, and creating or fixing any file
  // the new web config names (not only the web config) tries again.
  auto kept = std::make_shared<State>();
  kept->config = old->config;
  if (old->ctx && SSL_CTX_up_ref(old->ctx) == 1) kept->ctx = old->ctx;
  kept->stamps = fresh->stamps;
  if (error != broken_)
    LogError(path_ + ": " + error + "; every request is answered 500 until it is fixed");
  broken_ = error;
  state_ = std::move(kept);
}

SSL* WebSecurity::NewSsl(int fd) noexcept {
  const auto state = Current();
  if (!state->ctx) return nullptr;
  SSL* ssl = SSL_new(state->ctx);  // holds its own reference to the context
  if (ssl && SSL_set_fd(ssl, fd) != 1) {
    SSL_free(ssl);
    return nullptr;
  }
  if (ssl) SSL_set_accept_state(ssl);
  return ssl;
}

bool WebSecurity::CheckPeer(SSL* ssl, bool* verified, std::string* subject,
                            std::string* why) noexcept {
  try {
    return CheckPeerOrThrow(ssl, verified, subject, why);
  } catch (...) {
    *verified = false;  // out of memory: the connection is dropped
    return false;
  }
}

bool WebSecurity::CheckPeerOrThrow(SSL* ssl, bool* verified, std::string* subject,
                                   std::string* why) {
  const auto state = Current();
  const TlsServerConfig& t = state->config.tls;
  X509* cert = SSL_get0_peer_certificate(ssl);
  *verified = cert && SSL_get_verify_result(ssl) == X509_V_OK &&
              (t.client_auth == ClientAuth::kVerifyClientCertIfGiven ||
               t.client_auth == ClientAuth::kRequireAndVerifyClientCert);
  subject->clear();
  if (cert) {
    BIO* bio = BIO_new(BIO_s_mem());
    if (bio && X509_NAME_print_ex(bio, X509_get_subject_name(cert), 0, XN_FLAG_RFC2253) >= 0) {
      char* data = nullptr;
      const long n = BIO_get_mem_data(bio, &data);
      subject->assign(data, static_cast<size_t>(std::min(n, 1024L)));
    }
    BIO_free(bio);
  }
  if (!t.client_allowed_sans) return true;
  // exporter-toolkit's VerifyPeerCertificate: DNS, e-mail, IP and URI SANs,
  // of a certificate verified against client_ca only (web_config.cc refuses
  // client_allowed_sans with the types that do not verify; this holds even
  // if a path to it is ever opened).
  bool allowed = false;
  if (cert && !*verified) {
    *why = "the client certificate was not verified; client_allowed_sans needs a verified one";
    return false;
  }
  if (cert) {
    auto* names = static_cast<GENERAL_NAMES*>(
        X509_get_ext_d2i(cert, NID_subject_alt_name, nullptr, nullptr));
    for (int i = 0; names && i < sk_GENERAL_NAME_num(names) && !allowed; ++i) {
      const GENERAL_NAME* n = sk_GENERAL_NAME_value(names, i);
      std::string value;
      if (n->type == GEN_DNS || n->type == GEN_EMAIL || n->type == GEN_URI) {
        const ASN1_IA5STRING* s = n->d.ia5;
        value.assign(reinterpret_cast<const char*>(ASN1_STRING_get0_data(s)),
                     static_cast<size_t>(ASN1_STRING_length(s)));
      } else if (n->type == GEN_IPADD) {
        const ASN1_OCTET_STRING* s = n->d.iPAddress;
        char buf[INET6_ADDRSTRLEN] = {};
        const int len = ASN1_STRING_length(s);
        if (len == 4 || len == 16)
          inet_ntop(len == 4 ? AF_INET : AF_INET6, ASN1_STRING_get0_data(s), buf, sizeof buf);
        value = buf;
      }
      allowed = !value.empty() && std::find(t.client_allowed_sans->begin(),
                                            t.client_allowed_sans->end(),
                                            value) != t.client_allowed_sans->end();
    }
    GENERAL_NAMES_free(names);
  }
  if (!allowed) *why = "the client certificate has none of client_allowed_sans";
  return allowed;
}

std::optional<bool> WebSecurity::Cached(const std::string& key) {
  std::lock_guard lock(cache_mu_);
  if (const auto it = successes_.find(key); it != successes_.end()) {
    it->second = ++cache_clock_;
    return true;
  }
  if (failures_.count(key)) return false;
  return std::nullopt;
}

void WebSecurity::Remember(const std::string& key, bool ok) {
  std::lock_guard lock(cache_mu_);
  if (ok) {
    if (successes_.size() >= kSuccessCacheSize && !successes_.count(key)) {
      auto oldest = successes_.begin();
      for (auto it = successes_.begin(); it != successes_.end(); ++it)
        if (it->second < oldest->second) oldest = it;
      successes_.erase(oldest);
    }
    successes_[key] = ++cache_clock_;
    return;
  }
  if (failures_.size() >= kFailureCacheSize) {
    // Random eviction of a tenth, like exporter-toolkit's cache.
    static thread_local std::minstd_rand rng(std::random_device{}());
    for (size_t n = failures_.size() / 10 + 1; n > 0 && !failures_.empty(); --n) {
      auto it = failures_.begin();
      std::advance(it, static_cast<long>(rng() % failures_.size()));
      failures_.erase(it);
    }
  }
  failures_.insert(key);
}

bool WebSecurity::TakeBcryptSlot(const std::string& peer) {
  std::lock_guard lock(budget_mu_);
  if (bcrypt_queue_ >= kMaxBcryptQueue) return false;
  int& mine = bcrypt_per_peer_[peer];
  if (mine >= kMaxBcryptPerPeer) return false;
  ++mine;
  ++bcrypt_queue_;
  return true;
}

void WebSecurity::ReturnBcryptSlot(const std::string& peer) {
  std::lock_guard lock(budget_mu_);
  --bcrypt_queue_;
  if (const auto it = bcrypt_per_peer_.find(peer); it != bcrypt_per_peer_.end() &&
                                                    --it->second <= 0)
    bcrypt_per_peer_.erase(it);
}

bool WebSecurity::CheckPassword(const std::string& hash, const std::string& password) {
  std::lock_guard lock(bcrypt_mu_);
  auto data = std::make_unique<crypt_data>();
  const char* out = crypt_rn(password.c_str(), hash.c_str(), data.get(), sizeof *data);
  return out && out[0] != '*' && std::strlen(out) == hash.size() &&
         CRYPTO_memcmp(out, hash.data(), hash.size()) == 0;
}

std::optional<HttpResponse> WebSecurity::Authorize(std::string_view authorization,
                                                   HttpRequest* req, std::string* user) {
  try {
    return AuthorizeOrThrow(authorization, req, user);
  } catch (...) {
    // Fail closed; the bcrypt slot was returned by its guard.
    req->authenticated = false;
    req->principal_kind = PrincipalKind::kNone;
    req->principal = {};
  }
  return Plain(500, "Internal Server Error\n");
}

std::optional<HttpResponse> WebSecurity::AuthorizeOrThrow(std::string_view authorization,
                                                          HttpRequest* req,
                                                          std::string* user) {
  std::shared_ptr<const State> state;
  {
    std::lock_guard lock(mu_);
    if (!broken_.empty())
      return Plain(500, "Internal Server Error: the web config is invalid; see slurmctld's log\n");
    state = state_;
  }
  const WebConfig& c = state->config;
  if (c.rate_interval.count() > 0) {
    std::lock_guard lock(rate_mu_);
    const auto now = std::chrono::steady_clock::now();
    const double per_ms = 1.0 / static_cast<double>(c.rate_interval.count());
    tokens_ = std::min<double>(c.rate_burst,
                               tokens_ + per_ms * std::chrono::duration<double, std::milli>(
                                                      now - rate_last_).count());
    rate_last_ = now;
    if (tokens_ < 1) return Plain(429, "Too Many Requests\n");
    tokens_ -= 1;
  }
  if (c.users.empty()) return std::nullopt;  // certificates (if any) decide

  std::string_view a = TrimOws(authorization);
  bool ok = false;
  std::string password;
  if (a.size() > 6 && EqualsIgnoreCase(a.substr(0, 6), "Basic ")) {
    bool decoded;
    const std::string pair = Base64Decode(TrimOws(a.substr(6)), &decoded);
    const size_t colon = pair.find(':');
    if (decoded && colon != std::string::npos &&
        pair.find('\0') == std::string::npos) {
      *user = pair.substr(0, colon);
      password = pair.substr(colon + 1);
      const auto it = c.users.find(*user);
      const std::string& hash = it == c.users.end() ? std::string(kDummyHash) : it->second;
      const std::string key = CacheKey(*user, hash, password);
      std::optional<bool> verdict = Cached(key);
      if (!verdict) {
        // A bcrypt costs tens of milliseconds of CPU: at most
        // kMaxBcryptQueue run or wait, kMaxBcryptPerPeer per client;
        // beyond that a flood of guesses is refused without spending any.
        const std::string peer = BcryptBudgetKey(req->peer);
        if (!TakeBcryptSlot(peer)) {
          HttpResponse r = Plain(429, "Too Many Requests\n");
          r.headers.emplace_back("Retry-After", "1");
          return r;
        }
        struct Slot {
          WebSecurity* self;
          const std::string& peer;
          ~Slot() { self->ReturnBcryptSlot(peer); }
        } slot{this, peer};
        verdict = CheckPassword(hash, password);
        Remember(key, *verdict);
      }
      ok = *verdict && it != c.users.end();
    }
  }
  if (!ok) {
    HttpResponse r = Plain(401, "Unauthorized\n");
    r.headers.emplace_back("WWW-Authenticate", "Basic");
    return r;
  }
  req->authenticated = true;
  req->principal_kind = PrincipalKind::kBasicAuthUser;
  req->principal = *user;
  return std::nullopt;
}

void WebSecurity::AddHeaders(HttpResponse& r) noexcept {
  try {
    const auto state = Current();
    for (const auto& h : state->config.headers) r.headers.push_back(h);
  } catch (...) {
    // Out of memory: the response goes out without the extra headers.
  }
}

}  // namespace sm
