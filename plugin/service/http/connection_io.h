// SPDX-License-Identifier: GPL-2.0-or-later
// One connection's state machine on the event thread (http/loop.h): TLS
// handshake, read, parse, drain a body, hand the request to the workers,
// write their response, linger after the last one.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>

#include "http/admission.h"
#include "http/conn.h"
#include "http/conn_table.h"
#include "http/listener.h"
#include "http/worker_pool.h"

namespace sm {
namespace http_loop {

inline constexpr auto kLinger = std::chrono::seconds(1);

// Request bodies are never used; up to this much is read and discarded so
// the answer is not lost to a reset, a larger one gets 413.
inline constexpr uint64_t kMaxDrainBytes = 64 * 1024;
inline constexpr size_t kMaxLingerBytes = 64 * 1024;
inline constexpr size_t kReadChunk = 16 * 1024;

class ConnectionIo {
 public:
  ConnectionIo(const ListenerOptions& o, ConnectionTable& conns, Admission& admission,
               WorkerPool& workers, const std::atomic<bool>& stopping)
      : o_(o), conns_(conns), admission_(admission), workers_(workers), stopping_(stopping) {}

  // epoll reported c ready: the next step of its state.
  void Progress(Conn& c);
  // Starts writing what the workers finished.
  void TakeCompletions();
  // Frees c's slot and handshake turn, closes it: c is gone afterwards.
  void Close(Conn& c);

 private:
  // ---- TLS ----
  void Handshake(Conn& c);

  // >0 bytes, 0 end of stream, -1 would block, -2 error.
  ssize_t Recv(Conn& c, char* buf, size_t n);

  // ---- requests ----
  // A client may send its request and shut its side at once (`printf ... |
  // nc -N`): end of stream ends reading, but what is buffered is answered.
  void Read(Conn& c);

  void Parse(Conn& c);

  void Drain(Conn& c);

  void Dispatch(Conn& c);

  void Refuse(Conn& c, int status);

  // ---- responses ----
  void StartWrite(Conn& c);

  void Write(Conn& c);

  // After the last response: send our end-of-stream, then read and drop
  // what the client still sends for a moment, so a reset does not destroy
  // the response before the client read it.
  void StartLinger(Conn& c);

  void Linger(Conn& c);

  const ListenerOptions& o_;
  ConnectionTable& conns_;
  Admission& admission_;
  WorkerPool& workers_;
  const std::atomic<bool>& stopping_;
};

}  // namespace http_loop
}  // namespace sm
