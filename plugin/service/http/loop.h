// SPDX-License-Identifier: GPL-2.0-or-later
// The event loop behind HttpListener (http/listener.h), private to it: one
// epoll thread binds, accepts and sweeps deadlines, and wires together
// the parts that hold the state: ConnectionTable (conn_table.h, the open
// connections), Admission (admission.h, who gets a slot), ConnectionIo
// (connection_io.h, each connection's state machine) and WorkerPool
// (worker_pool.h, the threads that run the handler).
#pragma once

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include "http/admission.h"
#include "http/conn_table.h"
#include "http/connection_io.h"
#include "http/listener.h"
#include "http/waker.h"
#include "http/worker_pool.h"

namespace sm {
namespace http_loop {

inline constexpr auto kBindRetry = std::chrono::seconds(2);
inline constexpr auto kSweepEvery = std::chrono::milliseconds(100);
// With no connection and no paused accept there is nothing to time out:
// the loop wakes this often instead (the TLS files' reload check keeps its
// one-second cadence), not ten times a second on an idle controller.
inline constexpr auto kIdleSweepEvery = std::chrono::seconds(1);
inline constexpr auto kAcceptPause = std::chrono::milliseconds(100);

}  // namespace http_loop

class HttpListener::Loop {
  using Clock = http_loop::Clock;

 public:
  Loop(const ListenerOptions& o, const HttpHandler& h, std::atomic<int>* port)
      : o_(o), port_(port), workers_(o, h, wake_) {}
  ~Loop() { Stop(); }

  void Start();

  void StartFailed(const char* call);

  // Joins the loop thread, then the workers; closes everything. Idempotent.
  void Stop();

 private:
  bool TryBind(bool first);

  // Nothing may escape a thread of slurmctld's: on any exception the loop
  // closes every connection and the listening socket, and the listener is
  // down (logged) until the next start.
  void Run() noexcept;

  void RunLoop();

  void Accept();

  // Out of descriptors: stop accepting for a moment instead of spinning
  // on a listening socket that stays readable.
  void PauseAccepts();

  // A connection accepted from `ip`, unless refused.
  void Admit(int fd, const IpAddress& ip);

  // Evicts (Admission::Victim) until peer `key` has room; false: it has
  // none.
  bool MakeRoom(const std::string& key);

  void Sweep();

  const ListenerOptions& o_;
  std::atomic<int>* port_;
  int epoll_ = -1, listen_ = -1;
  int bind_errno_ = 0;
  bool fd_warning_logged_ = false;
  Clock::time_point accept_paused_until_{};
  std::atomic<bool> stopping_{false};
  std::thread thread_;
  http_loop::Waker wake_;
  http_loop::ConnectionTable conns_{epoll_};
  http_loop::Admission admission_{o_, conns_};
  http_loop::WorkerPool workers_;
  http_loop::ConnectionIo io_{o_, conns_, admission_, workers_, stopping_};
};

}  // namespace sm
