// SPDX-License-Identifier: GPL-2.0-or-later
// Starting, stopping and running the event loop (http/loop.h).
#include "http/loop.h"

namespace sm {

using namespace http_loop;

void HttpListener::Loop::Start() {
  // Without these the loop could not wait for anything: report and stay
  // down (docs/troubleshooting.md) rather than spin on a bad descriptor.
  epoll_ = epoll_create1(EPOLL_CLOEXEC);
  if (epoll_ < 0) return StartFailed("epoll_create1");
  wake_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (wake_ < 0) return StartFailed("eventfd");
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.u64 = kWakeId;
  if (epoll_ctl(epoll_, EPOLL_CTL_ADD, wake_, &ev) != 0) return StartFailed("epoll_ctl");
  const bool bound = TryBind(/*first=*/true);
  if (!bound && bind_errno_ != EADDRINUSE) return;  // logged; stays down
  BlockAllSignals blocked;  // our threads inherit the full mask
  for (int i = 0; i < std::max(1, o_.threads); ++i) {
    workers_.emplace_back([this] {
      NameThisThread("sm-http-w");
      LowerThisThreadPriority();
      try {
        WorkerMain();
      } catch (const std::exception& e) {
        LogFailure(o_.name, "worker stopped", e.what());
      } catch (...) {
        LogFailure(o_.name, "worker stopped", "unknown exception");
      }
    });
  }
  thread_ = std::thread([this] {
    NameThisThread("sm-http");
    LowerThisThreadPriority();
    Run();
  });
}

void HttpListener::Loop::StartFailed(const char* call) {
  const int err = errno;
  LogError(o_.name + ": cannot start: " + call + ": " + std::strerror(err) +
           "; the listener does not start");
  if (wake_ >= 0) close(wake_);
  if (epoll_ >= 0) close(epoll_);
  wake_ = epoll_ = -1;
}

void HttpListener::Loop::Stop() {
  stopping_.store(true);
  Wake();
  if (thread_.joinable()) thread_.join();
  {
    std::lock_guard lock(work_mu_);
    workers_stop_ = true;
  }
  work_cv_.notify_all();
  for (std::thread& t : workers_) t.join();
  workers_.clear();
  for (auto& [id, c] : conns_) CloseFd(*c);
  conns_.clear();
  if (listen_ >= 0) close(listen_);
  listen_ = -1;
  if (wake_ >= 0) close(wake_);
  if (epoll_ >= 0) close(epoll_);
  wake_ = epoll_ = -1;
  port_->store(0);
}

bool HttpListener::Loop::TryBind(bool first) {
  int err = 0, port = 0;
  const int fd = Listen(o_.address, &err, &port);
  if (fd < 0) {
    if (first || err != bind_errno_) {
      LogError(o_.name + ": cannot listen on " + o_.address.str() + ": " +
               BindError(err, o_.address) +
               (err == EADDRINUSE ? "; retrying every 2 s in the background" : ""));
    }
    bind_errno_ = err;
    return false;
  }
  listen_ = fd;
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.u64 = kListenId;
  epoll_ctl(epoll_, EPOLL_CTL_ADD, listen_, &ev);
  port_->store(port);
  LogNotice(o_.name + " listening on " + o_.address.str() +
            (o_.address.port == 0 ? " (port " + std::to_string(port) + ")" : "") +
            (o_.security && o_.security->tls() ? " (TLS)" : ""));
  return true;
}

void HttpListener::Loop::Wake() {
  if (wake_ < 0) return;
  const uint64_t one = 1;
  (void)!write(wake_, &one, sizeof one);
}

void HttpListener::Loop::Run() noexcept {
  try {
    RunLoop();
    return;
  } catch (const std::exception& e) {
    LogFailure(o_.name, "event loop failed; the listener stops", e.what());
  } catch (...) {
    LogFailure(o_.name, "event loop failed; the listener stops", "unknown exception");
  }
  try {
    for (auto& [id, c] : conns_) CloseFd(*c);
    conns_.clear();
    per_peer_.clear();
    handshakes_.clear();
    pending_handshakes_.clear();
  } catch (...) {
  }
  if (listen_ >= 0) close(listen_);
  listen_ = -1;
  port_->store(0);
}

void HttpListener::Loop::RunLoop() {
  epoll_event events[128];
  auto next_sweep = Clock::now() + kSweepEvery;
  auto next_bind = Clock::now() + kBindRetry;
  while (!stopping_.load()) {
    const auto now = Clock::now();
    if (listen_ < 0 && now >= next_bind) {
      TryBind(false);
      next_bind = now + kBindRetry;
    }
    const auto until = listen_ < 0 ? std::min(next_sweep, next_bind) : next_sweep;
    const int timeout = static_cast<int>(std::max<int64_t>(
        0, std::chrono::duration_cast<std::chrono::milliseconds>(until - now).count() + 1));
    const int n = epoll_wait(epoll_, events, 128, timeout);
    for (int i = 0; i < n && !stopping_.load(); ++i) {
      const uint64_t id = events[i].data.u64;
      if (id == kWakeId) {
        uint64_t v;
        (void)!read(wake_, &v, sizeof v);
      } else if (id == kListenId) {
        Accept();
      } else if (const auto it = conns_.find(id); it != conns_.end()) {
        Progress(*it->second);
      }
    }
    TakeCompletions();
    const bool idle = conns_.empty() && accept_paused_until_ == Clock::time_point();
    if (Clock::now() >= next_sweep) {
      Sweep();
      if (o_.security) o_.security->MaybeReload();
      next_sweep = Clock::now() + (idle ? kIdleSweepEvery : kSweepEvery);
    } else if (!idle) {
      // A connection came while the loop slept for kIdleSweepEvery.
      next_sweep = std::min(next_sweep, Clock::now() + kSweepEvery);
    }
  }
}

void HttpListener::Loop::Accept() {
  for (int accepted = 0; accepted < 256; ++accepted) {
    sockaddr_storage ss{};
    socklen_t len = sizeof ss;
    const int fd = accept4(listen_, reinterpret_cast<sockaddr*>(&ss), &len,
                           SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
        // Out of descriptors: stop accepting for a moment instead of
        // spinning on a listening socket that stays readable.
        epoll_event ev{};
        ev.data.u64 = kListenId;
        epoll_ctl(epoll_, EPOLL_CTL_MOD, listen_, &ev);
        accept_paused_until_ = Clock::now() + kAcceptPause;
        if (!fd_warning_logged_) {
          LogError(o_.name + ": out of file descriptors; pausing accepts");
          fd_warning_logged_ = true;
        }
      }
      return;
    }
    const IpAddress ip = PeerAddress(ss);
    // Not on the allow-list: closed before a byte is read.
    if (!o_.allowed_networks.empty() && !AnyContains(o_.allowed_networks, ip)) {
      close(fd);
      continue;
    }
    std::string peer = PeerString(ip);
    std::string peer_key = HttpListener::PeerKey(ip);
    if (!MakeRoom(peer_key)) {
      close(fd);
      continue;
    }
    const int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    auto c = std::make_unique<Conn>();
    c->id = next_id_++;
    c->fd = fd;
    c->peer = std::move(peer);
    c->peer_key = std::move(peer_key);
    c->since = Clock::now();
    c->deadline = c->since + o_.header_timeout;
    if (o_.security && o_.security->tls()) {
      c->ssl = o_.security->NewSsl(fd);
      if (!c->ssl) {
        ERR_clear_error();
        close(fd);
        continue;
      }
      c->state = State::kHandshake;
    }
    ++per_peer_[c->peer_key];
    Conn& ref = *c;
    conns_.emplace(c->id, std::move(c));
    if (ref.ssl) {
      QueueHandshake(ref);
    } else {
      Want(ref, EPOLLIN);
    }
  }
}

void HttpListener::Loop::Want(Conn& c, uint32_t events) {
  if (events == c.events) return;
  epoll_event ev{};
  ev.events = events;
  ev.data.u64 = c.id;
  if (events == 0) epoll_ctl(epoll_, EPOLL_CTL_DEL, c.fd, &ev);
  else epoll_ctl(epoll_, c.events == 0 ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, c.fd, &ev);
  c.events = events;
}

void HttpListener::Loop::CloseFd(Conn& c) {
  if (c.ssl) SSL_free(c.ssl);
  c.ssl = nullptr;
  if (c.fd >= 0) close(c.fd);
  c.fd = -1;
}

void HttpListener::Loop::Close(Conn& c) {
  EndHandshake(c, State::kLingering);
  Want(c, 0);
  CloseFd(c);
  if (auto it = per_peer_.find(c.peer_key); it != per_peer_.end() && --it->second == 0)
    per_peer_.erase(it);
  conns_.erase(c.id);  // c is gone from here on
}

void HttpListener::Loop::Progress(Conn& c) {
  switch (c.state) {
    case State::kHandshake: return Handshake(c);
    case State::kReading: return Read(c);
    case State::kDraining: return Drain(c);
    case State::kWriting: return Write(c);
    case State::kLingering: return Linger(c);
    case State::kHandling: return;
  }
}

void HttpListener::Loop::Sweep() {
  const auto now = Clock::now();
  std::vector<Conn*> expired;
  for (auto& [id, c] : conns_) {
    const bool stalled =
        c->state == State::kWriting && now - c->progress >= o_.write_stall_timeout;
    if ((c->state != State::kHandling && now >= c->deadline) || stalled)
      expired.push_back(c.get());
  }
  for (Conn* c : expired) Close(*c);
  if (listen_ >= 0 && accept_paused_until_ != Clock::time_point() &&
      now >= accept_paused_until_) {
    accept_paused_until_ = {};
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = kListenId;
    epoll_ctl(epoll_, EPOLL_CTL_MOD, listen_, &ev);
  }
}

}  // namespace sm
