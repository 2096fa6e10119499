// SPDX-License-Identifier: GPL-2.0-or-later
// HttpListener's own methods; the event loop is in http/loop.h.
#include "http/listener.h"

#include <algorithm>

#include "http/loop.h"
#include "http/sockets.h"
#include "http/wire.h"

namespace sm {

using namespace http_loop;

std::string HttpListener::PeerKey(const IpAddress& ip) {
  if (!ip.v6) return PeerString(ip);
  IpAddress net = ip;
  std::fill(net.bytes.begin() + 8, net.bytes.end(), 0);
  return PeerString(net) + "/64";
}

HttpListener::HttpListener(ListenerOptions options, HttpHandler handler)
    : options_(std::move(options)), handler_(std::move(handler)) {}

HttpListener::~HttpListener() { Stop(); }

void HttpListener::Start() {
  if (loop_) return;
  try {
    loop_ = std::make_unique<Loop>(options_, handler_, &port_);
    loop_->Start();
  } catch (const std::exception& e) {
    // std::thread's system_error, bad_alloc: down, never thrown at slurmctld.
    LogFailure(options_.name, "cannot start", e.what());
    Stop();
  } catch (...) {
    LogFailure(options_.name, "cannot start", "unknown exception");
    Stop();
  }
}

void HttpListener::Stop() {
  if (loop_) loop_->Stop();
  loop_.reset();
}

}  // namespace sm
