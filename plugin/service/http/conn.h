// SPDX-License-Identifier: GPL-2.0-or-later
// One open connection of the listener's event loop (http/loop.h): its
// state, deadlines, buffers and the response being written. Owned by the
// ConnectionTable (http/conn_table.h), driven by ConnectionIo
// (http/connection_io.h), counted by Admission (http/admission.h).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "body.h"
#include "http/parser.h"

typedef struct ssl_st SSL;

namespace sm {
namespace http_loop {

using Clock = std::chrono::steady_clock;

enum class State { kHandshake, kReading, kDraining, kHandling, kWriting, kLingering };

struct Conn {
  uint64_t id = 0;
  int fd = -1;
  SSL* ssl = nullptr;
  std::string peer;
  std::string peer_key;  // HttpListener::PeerKey
  State state = State::kReading;
  uint32_t events = 0;  // registered epoll interest; 0: not registered
  Clock::time_point since;     // when the wait for the current request began
  Clock::time_point deadline;  // header, write or linger deadline
  Clock::time_point progress;  // kWriting: when the kernel last took bytes
  bool authenticated = false;  // a request here proved who the client is
  bool handshaking = false;    // kHandshake with a turn (Admission::QueueHandshake)
  bool tls_checked = false;    // first byte looked at (TLS listeners)
  bool cert_verified = false;
  std::string cert_subject;
  std::string in;
  uint64_t drain_left = 0;
  size_t lingered = 0;
  int requests = 0;
  bool eof = false;  // the client shut its sending side
  http::HeadParser parser;  // resumes where the last read stopped
  http::RequestHead head;
  bool keep_alive = false;
  // The response being written: head, then payload (zero-copy from body).
  std::string out_head;
  std::string out_text;
  std::shared_ptr<const Body> out_body;
  const char* payload = nullptr;
  size_t payload_len = 0;
  size_t written = 0;
};

}  // namespace http_loop
}  // namespace sm
