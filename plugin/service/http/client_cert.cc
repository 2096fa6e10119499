// SPDX-License-Identifier: GPL-2.0-or-later
#include "http/client_cert.h"

#include <arpa/inet.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <algorithm>

namespace sm {
namespace web {

bool CheckClientCertificate(SSL* ssl, const TlsServerConfig& t, bool* verified,
                            std::string* subject, std::string* why) {
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

}  // namespace web
}  // namespace sm
