// SPDX-License-Identifier: GPL-2.0-or-later
// Test-only: runs our real HTTP listener (plugin/service/http/listener.h)
// with a fixed handler, for tests/http/test_listener.py (curl, openssl) and
// bench/http_bench.sh. Not installed.
//
//   http_test_server --bind ADDR [--web-config FILE] [--allowed CIDRS]
//                    [--body-bytes N] [--threads N] [--max-per-peer N]
//                    [--header-timeout-ms N]
//
// Prints "port N" once listening (or "down" when it does not start), then
// serves until stdin closes. Paths: /metrics (a cached body of N bytes,
// gzip when negotiated), /whoami (what the server made of the client),
// anything else 404.
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <iostream>
#include <memory>
#include <string>

#include "collector.h"
#include "config/exporter_config.h"
#include "http/listener.h"
#include "http/web_security.h"

namespace {

std::shared_ptr<const sm::Body> MakeBody(size_t bytes) {
  std::string text;
  text.reserve(bytes + 128);
  text += "# HELP test_series A test series.\n# TYPE test_series gauge\n";
  for (size_t i = 0; text.size() < bytes; ++i)
    text += "test_series{node=\"n" + std::to_string(i) + "\",partition=\"main\"} " +
            std::to_string(i % 97) + "\n";
  return std::make_shared<const sm::Body>(std::move(text), 1);
}

const char* Kind(sm::PrincipalKind k) {
  switch (k) {
    case sm::PrincipalKind::kNone: return "none";
    case sm::PrincipalKind::kBasicAuthUser: return "basic";
    case sm::PrincipalKind::kClientCertificate: return "certificate";
    case sm::PrincipalKind::kSlurmctldAuth: return "slurmctld";
  }
  return "?";
}

}  // namespace

int main(int argc, char** argv) {
  std::string bind = "127.0.0.1:0", web_config, allowed;
  size_t body_bytes = 1000;
  sm::ListenerOptions o;
  o.name = "test listener";
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--bind") bind = v;
    else if (k == "--web-config") web_config = v;
    else if (k == "--allowed") allowed = v;
    else if (k == "--body-bytes") body_bytes = std::stoull(v);
    else if (k == "--threads") o.threads = std::stoi(v);
    else if (k == "--max-per-peer") o.max_connections_per_peer = std::stoul(v);
    else if (k == "--header-timeout-ms")
      o.header_timeout = std::chrono::milliseconds(std::stoll(v));
    else {
      std::cerr << "unknown option " << k << "\n";
      return 2;
    }
  }
  std::string why;
  const auto address = sm::ParseBindAddress(bind, &why);
  if (!address) {
    std::cerr << "bad --bind: " << why << "\n";
    return 2;
  }
  o.address = *address;
  if (!allowed.empty()) {
    auto nets = sm::ParseCidrList(allowed, &why);
    if (!nets) {
      std::cerr << "bad --allowed: " << why << "\n";
      return 2;
    }
    o.allowed_networks = *nets;
  }
  if (!web_config.empty()) {
    o.security = sm::WebSecurity::Load(web_config, &why);
    if (!o.security) {
      std::cout << "down: " << web_config << ": " << why << std::endl;
      return 3;
    }
  }
  const auto body = MakeBody(body_bytes);
  sm::HttpListener listener(std::move(o), [&](const sm::HttpRequest& r) {
    sm::HttpResponse resp;
    if (r.path == "/metrics") {
      resp.content_type = "text/plain; version=0.0.4; charset=utf-8";
      resp.body = body;
      resp.gzip = r.accepts_gzip;
    } else if (r.path == "/whoami") {
      resp.text = "method=" + std::string(r.method) + " path=" + std::string(r.path) +
                  " query=" + std::string(r.query) + " peer=" + std::string(r.peer) +
                  " tls=" + (r.tls ? "1" : "0") +
                  " authenticated=" + (r.authenticated ? "1" : "0") +
                  " kind=" + Kind(r.principal_kind) +
                  " principal=" + std::string(r.principal) + "\n";
    } else {
      resp.status = 404;
      resp.text = "not found\n";
    }
    return resp;
  });
  listener.Start();
  if (!listener.bound()) {
    std::cout << "down" << std::endl;
  } else {
    std::cout << "port " << listener.port() << std::endl;
  }
  char buf[256];
  while (read(0, buf, sizeof buf) > 0) {
  }
  listener.Stop();
  return 0;
}
