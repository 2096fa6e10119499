// SPDX-License-Identifier: GPL-2.0-or-later
// Starting, stopping and running the event loop (http/loop.h).
#include "http/loop.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <exception>
#include <memory>
#include <utility>
#include <vector>

#include "base/log.h"
#include "http/sockets.h"
#include "http/web_security.h"
#include "http/wire.h"
#include "thread_util.h"

namespace sm {

using namespace http_loop;

void HttpListener::Loop::Start() {
  // Without these the loop could not wait for anything: report and stay
  // down (docs/troubleshooting.md) rather than spin on a bad descriptor.
  epoll_ = epoll_create1(EPOLL_CLOEXEC);
  if (epoll_ < 0) return StartFailed("epoll_create1");
  if (!wake_.Open()) return StartFailed("eventfd");
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.u64 = kWakeId;
  if (epoll_ctl(epoll_, EPOLL_CTL_ADD, wake_.fd(), &ev) != 0) return StartFailed("epoll_ctl");
  const bool bound = TryBind(/*first=*/true);
  if (!bound && bind_errno_ != EADDRINUSE) return;  // logged; stays down
  BlockAllSignals blocked;  // our threads inherit the full mask
  workers_.Start();
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
  wake_.Close();
  if (epoll_ >= 0) close(epoll_);
  epoll_ = -1;
}

void HttpListener::Loop::Stop() {
  stopping_.store(true);
  wake_.Wake();
  if (thread_.joinable()) thread_.join();
  workers_.Stop();
  conns_.CloseAll();
  if (listen_ >= 0) close(listen_);
  listen_ = -1;
  wake_.Close();
  if (epoll_ >= 0) close(epoll_);
  epoll_ = -1;
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
    conns_.CloseAll();
    admission_.Clear();
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
        wake_.Drain();
      } else if (id == kListenId) {
        Accept();
      } else if (Conn* const c = conns_.Find(id)) {
        io_.Progress(*c);
      }
    }
    io_.TakeCompletions();
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
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
        PauseAccepts();
      return;
    }
    Admit(fd, PeerAddress(ss));
  }
}

void HttpListener::Loop::PauseAccepts() {
  epoll_event ev{};
  ev.data.u64 = kListenId;
  epoll_ctl(epoll_, EPOLL_CTL_MOD, listen_, &ev);
  accept_paused_until_ = Clock::now() + kAcceptPause;
  if (!fd_warning_logged_) {
    LogError(o_.name + ": out of file descriptors; pausing accepts");
    fd_warning_logged_ = true;
  }
}

void HttpListener::Loop::Admit(int fd, const IpAddress& ip) {
  if (!admission_.Allowed(ip)) {
    close(fd);
    return;
  }
  std::string peer = PeerString(ip);
  std::string peer_key = HttpListener::PeerKey(ip);
  if (!MakeRoom(peer_key)) {
    close(fd);
    return;
  }
  const int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  setsockopt(fd, IPPROTO_TCP, TCP_NOTSENT_LOWAT, &o_.max_unsent_bytes,
             sizeof o_.max_unsent_bytes);
  auto c = std::make_unique<Conn>();
  c->id = conns_.NextId();
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
      return;
    }
    c->state = State::kHandshake;
  }
  admission_.Opened(*c);
  Conn& ref = conns_.Insert(std::move(c));
  if (ref.ssl) {
    admission_.QueueHandshake(ref);
  } else {
    conns_.Want(ref, EPOLLIN);
  }
}

bool HttpListener::Loop::MakeRoom(const std::string& key) {
  const auto now = Clock::now();
  while (!admission_.HasRoom(key)) {
    Conn* const victim = admission_.Victim(key, now);
    if (!victim) return false;
    io_.Close(*victim);
  }
  return true;
}

void HttpListener::Loop::Sweep() {
  const auto now = Clock::now();
  for (Conn* c : conns_.Expired(now, o_.write_stall_timeout)) io_.Close(*c);
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
