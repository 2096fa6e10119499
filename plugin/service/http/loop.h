// SPDX-License-Identifier: GPL-2.0-or-later
// The event loop behind HttpListener (http/listener.h), private to it and
// split by concern: loop.cc starts, stops and runs the epoll loop (accept,
// deadlines); admission.cc decides who gets a slot (caps, eviction, TLS
// handshake turns); connection.cc is the per-connection state machine
// (handshake, read, parse, write, linger); workers.cc runs the handler on
// the worker pool; wire.cc holds the listener's own response texts and
// sockets.cc binding and peer addresses.
#pragma once

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "body.h"
#include "http/listener.h"
#include "http/parser.h"
#include "base/log.h"
#include "exposition/negotiation.h"
#include "thread_util.h"
#include "http/web_security.h"

namespace sm {
namespace http_loop {

using Clock = std::chrono::steady_clock;

inline constexpr auto kBindRetry = std::chrono::seconds(2);
inline constexpr auto kSweepEvery = std::chrono::milliseconds(100);
// With no connection and no paused accept there is nothing to time out:
// the loop wakes this often instead (the TLS files' reload check keeps its
// one-second cadence), not ten times a second on an idle controller.
inline constexpr auto kIdleSweepEvery = std::chrono::seconds(1);
inline constexpr auto kAcceptPause = std::chrono::milliseconds(100);
inline constexpr auto kLinger = std::chrono::seconds(1);

// A writer the kernel accepted no byte from for this long may be evicted
// for a newcomer; one blocked for less is a reader that is still busy.
inline constexpr auto kStalledEvictable = std::chrono::seconds(1);

// Request bodies are never used; up to this much is read and discarded so
// the answer is not lost to a reset, a larger one gets 413.
inline constexpr uint64_t kMaxDrainBytes = 64 * 1024;
inline constexpr size_t kMaxLingerBytes = 64 * 1024;
inline constexpr size_t kReadChunk = 16 * 1024;
inline constexpr uint64_t kWakeId = 0, kListenId = 1, kFirstConnId = 16;

// Go's net/http answer to plain HTTP on a TLS port, byte for byte.
inline constexpr std::string_view kHttpToHttps =
    "HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n";

// What a worker that failed to build any response sends instead.
inline constexpr std::string_view kInternalError =
    "HTTP/1.1 500 Internal Server Error\r\nContent-Type: text/plain; charset=utf-8\r\n"
    "Content-Length: 15\r\nConnection: close\r\n\r\ninternal error\n";

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
  bool handshaking = false;    // kHandshake with a turn (QueueHandshake)
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

struct Work {
  uint64_t id;
  http::RequestHead head;
  std::string peer;
  bool tls;
  bool cert_verified;
  std::string cert_subject;
  bool keep_alive;
};

struct Done {
  uint64_t id;
  std::string head;
  std::string text;
  std::shared_ptr<const Body> body;
  bool gzip = false;
  bool head_only = false;
  bool keep_alive = false;
  bool authenticated = false;
  bool failed = false;  // no response could be built: kInternalError
};

// Logs what went wrong at a thread entry; never throws itself, since it
// runs where an escaping exception would terminate slurmctld.
void LogFailure(const std::string& name, const char* where, const char* what) noexcept;

const char* StatusText(int status);

// The listener's own answers: fixed texts, nothing of the request in them.
std::string ErrorResponse(int status);

bool KnownMethod(std::string_view m);

std::string SerializeHead(const HttpResponse& r, size_t length, bool keep_alive);

std::string BindError(int err, const BindAddress& a);

// A listening socket for `a`, or -1 with *err. ":port" listens on IPv6 and
// IPv4 at once where IPv6 exists.
int Listen(const BindAddress& a, int* err, int* port);

IpAddress PeerAddress(const sockaddr_storage& ss);

std::string PeerString(const IpAddress& ip);

}  // namespace http_loop

class HttpListener::Loop {
  using Clock = http_loop::Clock;
  using State = http_loop::State;
  using Conn = http_loop::Conn;
  using Work = http_loop::Work;
  using Done = http_loop::Done;

 public:
  Loop(const ListenerOptions& o, const HttpHandler& h, std::atomic<int>* port)
      : o_(o), handler_(h), port_(port) {}
  ~Loop() { Stop(); }

  void Start();

  void StartFailed(const char* call);

  void Stop();

 private:
  // ---- binding ----
  bool TryBind(bool first);

  void Wake();

  // ---- the event loop ----
  // Nothing may escape a thread of slurmctld's: on any exception the loop
  // closes every connection and the listening socket, and the listener is
  // down (logged) until the next start.
  void Run() noexcept;

  void RunLoop();

  void Accept();

  // Caps: rather than turn the newcomer away, drop (in this order) the
  // oldest connection still waiting for its request (idle, slow, or
  // mid-handshake), else the writer the kernel took no byte from for the
  // longest (a slow reader); connections that authenticated go last.
  bool MakeRoom(const std::string& key);

  // Lower goes first; nullopt: not evictable (a request being answered, or
  // a response the client is reading).
  static std::optional<std::pair<int, Clock::time_point>> EvictionRank(
      const Conn& c, Clock::time_point now);

  // TLS handshakes run on this one thread: a peer has at most
  // max_handshakes_per_peer in progress, each for at most
  // handshake_timeout; its further connections wait (unread, under their
  // header deadline) for a turn, so one peer's flood of handshakes holds a
  // bounded share of the thread and never a slot of another peer's.
  void QueueHandshake(Conn& c);

  void BeginHandshake(Conn& c);

  // Every way out of kHandshake passes here (or Close): frees the peer's
  // turn for its next waiting connection.
  void EndHandshake(Conn& c, State next);

  void Want(Conn& c, uint32_t events);

  void CloseFd(Conn& c);

  void Close(Conn& c);

  void Progress(Conn& c);

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
  void TakeCompletions();

  void StartWrite(Conn& c);

  void Write(Conn& c);

  // After the last response: send our end-of-stream, then read and drop
  // what the client still sends for a moment, so a reset does not destroy
  // the response before the client read it.
  void StartLinger(Conn& c);

  void Linger(Conn& c);

  void Sweep();

  // ---- workers ----
  void WorkerMain();

  // Never throws: a response, or `failed` (kInternalError).
  Done Serve(const Work& work) noexcept;

  Done Respond(const Work& work);

  const ListenerOptions& o_;
  const HttpHandler& handler_;
  std::atomic<int>* port_;
  int epoll_ = -1, wake_ = -1, listen_ = -1;
  int bind_errno_ = 0;
  bool fd_warning_logged_ = false;
  Clock::time_point accept_paused_until_{};
  std::atomic<bool> stopping_{false};
  std::thread thread_;
  uint64_t next_id_ = http_loop::kFirstConnId;
  std::unordered_map<uint64_t, std::unique_ptr<Conn>> conns_;
  std::unordered_map<std::string, size_t> per_peer_;
  std::unordered_map<std::string, size_t> handshakes_;  // turns taken, per peer
  std::unordered_map<std::string, std::deque<uint64_t>> pending_handshakes_;

  std::mutex work_mu_;
  std::condition_variable work_cv_;
  std::deque<Work> work_;
  bool workers_stop_ = false;
  std::vector<std::thread> workers_;
  std::mutex done_mu_;
  std::vector<Done> done_;
};

}  // namespace sm
