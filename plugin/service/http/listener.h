// SPDX-License-Identifier: GPL-2.0-or-later
// Our HTTP/1.1 server (docs/configuration.md, Security, says why not
// civetweb): one epoll thread accepts, reads, handshakes TLS and writes
// for every connection; a small bounded pool of workers runs the handler,
// so a slow handler (the first gzip of a big body) never blocks I/O. Each
// connection has a header deadline (TLS handshake included), a write
// deadline and a write-progress deadline; connections are capped per peer
// (an IPv4 address, an IPv6 /64) and in total. At a cap the listener drops
// the oldest connection still waiting for its request, else the writer
// stalled longest, and clients that authenticated last, so idle, slowloris
// or slow-reader clients cannot lock a scraper out (docs/configuration.md,
// "Limits against hostile clients").
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "config/cidr.h"
#include "config/exporter_config.h"
#include "http/types.h"

namespace sm {

class WebSecurity;

struct ListenerOptions {
  std::string name = "listener";  // for log lines: "metrics listener"
  BindAddress address;
  int threads = 4;  // handler workers
  std::shared_ptr<WebSecurity> security;  // null: plain HTTP, no auth
  std::vector<Cidr> allowed_networks;     // empty: every peer
  std::chrono::milliseconds header_timeout{5000};
  std::chrono::milliseconds write_timeout{60000};
  // A response the kernel accepted no byte of for this long: the client
  // stopped reading; closed.
  std::chrono::milliseconds write_stall_timeout{5000};
  // At most this much of a response waits unsent in the kernel per
  // connection (TCP_NOTSENT_LOWAT): a client that stops reading holds this
  // much of the host's memory, not the autotuned send buffer (up to
  // tcp_wmem's 4 MiB, about 1 GiB for 256 slow readers), and the loop
  // copies no more for it. Bytes in flight are not limited, so a fast
  // scraper is not slowed (docs/configuration.md, "Limits against hostile
  // clients"; bench/slow_readers.py; tests/http/test_listener.py,
  // slowreaders).
  int max_unsent_bytes = 256 * 1024;
  size_t max_connections = 256;
  size_t max_connections_per_peer = 32;
  // TLS handshakes run on the event thread: a peer may have this many in
  // progress (a newcomer closes its oldest), each for at most this long.
  size_t max_handshakes_per_peer = 8;
  std::chrono::milliseconds handshake_timeout{3000};
  int max_requests_per_connection = 100;
};

class HttpListener {
 public:
  HttpListener(ListenerOptions options, HttpHandler handler);
  ~HttpListener();
  HttpListener(const HttpListener&) = delete;
  HttpListener& operator=(const HttpListener&) = delete;

  // Binds and starts the threads. An address in use (the old slurmctld of
  // a reconfigure still holds it) is retried every 2 s in the background;
  // any other bind error is logged once and the listener stays down.
  void Start();
  // Closes every connection and joins every thread; idempotent.
  void Stop();
  bool bound() const { return port_.load() != 0; }
  // The port actually bound (useful with port 0 in tests); 0 if unbound.
  int port() const { return port_.load(); }

  // What the per-peer cap counts: an IPv4 address, or an IPv6 /64 (one
  // host usually holds a whole /64, so per-address caps would not bind).
  static std::string PeerKey(const IpAddress& ip);

 private:
  class Loop;
  ListenerOptions options_;
  HttpHandler handler_;
  std::unique_ptr<Loop> loop_;
  std::atomic<int> port_{0};
};

}  // namespace sm
