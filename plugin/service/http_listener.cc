// SPDX-License-Identifier: GPL-2.0-or-later
#include "http_listener.h"

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
#include <cctype>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <unordered_map>

#include "body.h"
#include "http_parser.h"
#include "log.h"
#include "negotiation.h"
#include "thread_util.h"
#include "web_security.h"

namespace sm {
namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kBindRetry = std::chrono::seconds(2);
constexpr auto kSweepEvery = std::chrono::milliseconds(100);
constexpr auto kAcceptPause = std::chrono::milliseconds(100);
constexpr auto kLinger = std::chrono::seconds(1);
// Request bodies are never used; up to this much is read and discarded so
// the answer is not lost to a reset, a larger one gets 413.
constexpr uint64_t kMaxDrainBytes = 64 * 1024;
constexpr size_t kMaxLingerBytes = 64 * 1024;
constexpr size_t kReadChunk = 16 * 1024;
constexpr uint64_t kWakeId = 0, kListenId = 1, kFirstConnId = 16;

// Go's net/http answer to plain HTTP on a TLS port, byte for byte.
constexpr std::string_view kHttpToHttps =
    "HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n";

const char* StatusText(int status) {
  switch (status) {
    case 200: return "OK";
    case 204: return "No Content";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 413: return "Content Too Large";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 503: return "Service Unavailable";
    case 505: return "HTTP Version Not Supported";
    default: return "Error";
  }
}

// The listener's own answers: fixed texts, nothing of the request in them.
std::string ErrorResponse(int status) {
  const std::string body = std::to_string(status) + " " + StatusText(status) + "\n";
  return "HTTP/1.1 " + std::to_string(status) + " " + StatusText(status) +
         "\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: " +
         std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
}

bool KnownMethod(std::string_view m) {
  for (const char* k : {"GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS",
                        "TRACE", "CONNECT"}) {
    if (m == k) return true;
  }
  return false;
}

std::string BindError(int err, const BindAddress& a) {
  switch (err) {
    case EADDRINUSE:
      return "address " + a.str() + " is in use (another process, or the previous "
             "slurmctld during a reconfigure)";
    case EADDRNOTAVAIL:
      return "address " + a.host + " is not on this machine";
    case EACCES:
      return "permission denied for port " + std::to_string(a.port) +
             " (ports below 1024 need CAP_NET_BIND_SERVICE)";
    case EAFNOSUPPORT:
      return "IPv6 is disabled on this machine";
    default:
      return std::strerror(err);
  }
}

// A listening socket for `a`, or -1 with *err. ":port" listens on IPv6 and
// IPv4 at once where IPv6 exists.
int Listen(const BindAddress& a, int* err, int* port) {
  const bool v4 = a.family == BindAddress::Family::kIPv4;
  int fd = socket(v4 ? AF_INET : AF_INET6, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  bool use_v4 = v4;
  if (fd < 0 && a.family == BindAddress::Family::kAny && errno == EAFNOSUPPORT) {
    fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    use_v4 = true;
  }
  if (fd < 0) {
    *err = errno;
    return -1;
  }
  const int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_storage ss{};
  socklen_t len;
  if (use_v4) {
    auto* s = reinterpret_cast<sockaddr_in*>(&ss);
    s->sin_family = AF_INET;
    s->sin_port = htons(static_cast<uint16_t>(a.port));
    s->sin_addr.s_addr = htonl(INADDR_ANY);
    if (!a.host.empty()) inet_pton(AF_INET, a.host.c_str(), &s->sin_addr);
    len = sizeof *s;
  } else {
    auto* s = reinterpret_cast<sockaddr_in6*>(&ss);
    s->sin6_family = AF_INET6;
    s->sin6_port = htons(static_cast<uint16_t>(a.port));
    s->sin6_addr = in6addr_any;
    if (!a.host.empty()) inet_pton(AF_INET6, a.host.c_str(), &s->sin6_addr);
    // The wildcard takes IPv4 too, as Go's "[::]:port" and ":port" do.
    const int v6only = IN6_IS_ADDR_UNSPECIFIED(&s->sin6_addr) ? 0 : 1;
    setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &v6only, sizeof v6only);
    len = sizeof *s;
  }
  if (bind(fd, reinterpret_cast<sockaddr*>(&ss), len) != 0 || listen(fd, 128) != 0) {
    *err = errno;
    close(fd);
    return -1;
  }
  len = sizeof ss;
  getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len);
  *port = ntohs(ss.ss_family == AF_INET ? reinterpret_cast<sockaddr_in*>(&ss)->sin_port
                                        : reinterpret_cast<sockaddr_in6*>(&ss)->sin6_port);
  return fd;
}

IpAddress PeerAddress(const sockaddr_storage& ss) {
  IpAddress ip;
  if (ss.ss_family == AF_INET) {
    std::memcpy(ip.bytes.data(), &reinterpret_cast<const sockaddr_in*>(&ss)->sin_addr, 4);
    return ip;
  }
  const auto* a6 = &reinterpret_cast<const sockaddr_in6*>(&ss)->sin6_addr;
  if (IN6_IS_ADDR_V4MAPPED(a6)) {
    std::memcpy(ip.bytes.data(), a6->s6_addr + 12, 4);
    return ip;
  }
  ip.v6 = true;
  std::memcpy(ip.bytes.data(), a6->s6_addr, 16);
  return ip;
}

std::string PeerString(const IpAddress& ip) {
  char buf[INET6_ADDRSTRLEN] = {};
  inet_ntop(ip.v6 ? AF_INET6 : AF_INET, ip.bytes.data(), buf, sizeof buf);
  return buf;
}

enum class State { kHandshake, kReading, kDraining, kHandling, kWriting, kLingering };

struct Conn {
  uint64_t id = 0;
  int fd = -1;
  SSL* ssl = nullptr;
  std::string peer;
  State state = State::kReading;
  uint32_t events = 0;  // registered epoll interest; 0: not registered
  Clock::time_point since;     // when the wait for the current request began
  Clock::time_point deadline;  // header, write or linger deadline
  bool tls_checked = false;    // first byte looked at (TLS listeners)
  bool cert_verified = false;
  std::string cert_subject;
  std::string in;
  uint64_t drain_left = 0;
  size_t lingered = 0;
  int requests = 0;
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
};

std::string SerializeHead(const HttpResponse& r, size_t length, bool keep_alive) {
  std::string h = "HTTP/1.1 " + std::to_string(r.status) + " " + StatusText(r.status) + "\r\n";
  if (r.status != 204) {
    h += "Content-Type: " + r.content_type + "\r\nContent-Length: " +
         std::to_string(length) + "\r\n";
  }
  if (r.body && r.gzip) h += "Content-Encoding: gzip\r\n";
  if (r.body) h += "Vary: Accept-Encoding\r\n";
  for (const auto& [k, v] : r.headers) h += k + ": " + v + "\r\n";
  if (!keep_alive) h += "Connection: close\r\n";
  h += "\r\n";
  return h;
}

}  // namespace

class HttpListener::Loop {
 public:
  Loop(const ListenerOptions& o, const HttpHandler& h, std::atomic<int>* port)
      : o_(o), handler_(h), port_(port) {}
  ~Loop() { Stop(); }

  void Start() {
    epoll_ = epoll_create1(EPOLL_CLOEXEC);
    wake_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = kWakeId;
    epoll_ctl(epoll_, EPOLL_CTL_ADD, wake_, &ev);
    const bool bound = TryBind(/*first=*/true);
    if (!bound && bind_errno_ != EADDRINUSE) return;  // logged; stays down
    BlockAllSignals blocked;  // our threads inherit the full mask
    for (int i = 0; i < std::max(1, o_.threads); ++i) {
      workers_.emplace_back([this] {
        NameThisThread("sm-http-w");
        LowerThisThreadPriority();
        WorkerMain();
      });
    }
    thread_ = std::thread([this] {
      NameThisThread("sm-http");
      LowerThisThreadPriority();
      Run();
    });
  }

  void Stop() {
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

 private:
  // ---- binding ----
  bool TryBind(bool first) {
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
    LogInfo(o_.name + " listening on " + o_.address.str() +
            (o_.address.port == 0 ? " (port " + std::to_string(port) + ")" : "") +
            (o_.security && o_.security->tls() ? " (TLS)" : ""));
    return true;
  }

  void Wake() {
    if (wake_ < 0) return;
    const uint64_t one = 1;
    (void)!write(wake_, &one, sizeof one);
  }

  // ---- the event loop ----
  void Run() {
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
      if (Clock::now() >= next_sweep) {
        Sweep();
        if (o_.security) o_.security->MaybeReload();
        next_sweep = Clock::now() + kSweepEvery;
      }
    }
  }

  void Accept() {
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
      if (!MakeRoom(peer)) {
        close(fd);
        continue;
      }
      const int one = 1;
      setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      auto c = std::make_unique<Conn>();
      c->id = next_id_++;
      c->fd = fd;
      c->peer = std::move(peer);
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
      ++per_peer_[c->peer];
      Conn& ref = *c;
      conns_.emplace(c->id, std::move(c));
      Want(ref, EPOLLIN);
    }
  }

  // Caps: drop the oldest connection still waiting for its request (idle,
  // slow, or mid-handshake) rather than turn the newcomer away.
  bool MakeRoom(const std::string& peer) {
    while (true) {
      const auto pp = per_peer_.find(peer);
      const bool peer_full =
          pp != per_peer_.end() && pp->second >= o_.max_connections_per_peer;
      if (!peer_full && conns_.size() < o_.max_connections) return true;
      Conn* victim = nullptr;
      for (auto& [id, c] : conns_) {
        const bool waiting = c->state == State::kHandshake || c->state == State::kReading ||
                             c->state == State::kDraining || c->state == State::kLingering;
        if (!waiting || (peer_full && c->peer != peer)) continue;
        if (!victim || c->since < victim->since) victim = c.get();
      }
      if (!victim) return false;
      Close(*victim);
    }
  }

  void Want(Conn& c, uint32_t events) {
    if (events == c.events) return;
    epoll_event ev{};
    ev.events = events;
    ev.data.u64 = c.id;
    if (events == 0) epoll_ctl(epoll_, EPOLL_CTL_DEL, c.fd, &ev);
    else epoll_ctl(epoll_, c.events == 0 ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, c.fd, &ev);
    c.events = events;
  }

  void CloseFd(Conn& c) {
    if (c.ssl) SSL_free(c.ssl);
    c.ssl = nullptr;
    if (c.fd >= 0) close(c.fd);
    c.fd = -1;
  }

  void Close(Conn& c) {
    Want(c, 0);
    CloseFd(c);
    if (auto it = per_peer_.find(c.peer); it != per_peer_.end() && --it->second == 0)
      per_peer_.erase(it);
    conns_.erase(c.id);  // c is gone from here on
  }

  void Progress(Conn& c) {
    switch (c.state) {
      case State::kHandshake: return Handshake(c);
      case State::kReading: return Read(c);
      case State::kDraining: return Drain(c);
      case State::kWriting: return Write(c);
      case State::kLingering: return Linger(c);
      case State::kHandling: return;
    }
  }

  // ---- TLS ----
  void Handshake(Conn& c) {
    if (!c.tls_checked) {
      unsigned char first;
      const ssize_t n = recv(c.fd, &first, 1, MSG_PEEK);
      if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
      if (n <= 0) return Close(c);
      c.tls_checked = true;
      if (first != 0x16) {  // not a TLS handshake record
        if (std::isalpha(first)) {
          (void)!send(c.fd, kHttpToHttps.data(), kHttpToHttps.size(), MSG_NOSIGNAL);
          return StartLinger(c);
        }
        return Close(c);
      }
    }
    const int r = SSL_do_handshake(c.ssl);
    if (r == 1) {
      std::string why;
      if (!o_.security->CheckPeer(c.ssl, &c.cert_verified, &c.cert_subject, &why)) {
        LogDebug(o_.name + ": " + c.peer + ": " + why);
        return Close(c);
      }
      c.state = State::kReading;
      Want(c, EPOLLIN);
      return Read(c);
    }
    const int e = SSL_get_error(c.ssl, r);
    ERR_clear_error();
    if (e == SSL_ERROR_WANT_READ) return Want(c, EPOLLIN);
    if (e == SSL_ERROR_WANT_WRITE) return Want(c, EPOLLOUT);
    Close(c);
  }

  // >0 bytes, 0 end of stream, -1 would block, -2 error.
  ssize_t Recv(Conn& c, char* buf, size_t n) {
    if (!c.ssl) {
      const ssize_t r = recv(c.fd, buf, n, 0);
      if (r >= 0) return r;
      return errno == EAGAIN || errno == EINTR ? -1 : -2;
    }
    const int r = SSL_read(c.ssl, buf, static_cast<int>(n));
    if (r > 0) return r;
    const int e = SSL_get_error(c.ssl, r);
    ERR_clear_error();
    if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) return -1;
    if (e == SSL_ERROR_ZERO_RETURN) return 0;
    return -2;
  }

  // ---- requests ----
  void Read(Conn& c) {
    char buf[kReadChunk];
    while (c.in.size() < http::kMaxHeadBytes) {
      const ssize_t n = Recv(c, buf, sizeof buf);
      if (n == -1) break;
      if (n <= 0) return Close(c);
      c.in.append(buf, static_cast<size_t>(n));
    }
    Parse(c);
  }

  void Parse(Conn& c) {
    if (c.in.empty()) return;
    const http::ParseResult r = http::ParseRequestHead(c.in, &c.head);
    if (r.status == http::ParseResult::kIncomplete) return;
    if (r.status == http::ParseResult::kError) return Refuse(c, r.error);
    c.in.erase(0, r.consumed);
    if (!KnownMethod(c.head.method)) return Refuse(c, 501);
    if (c.head.transfer_encoding ||
        (c.head.content_length && *c.head.content_length > kMaxDrainBytes))
      return Refuse(c, 413);
    c.keep_alive = c.head.KeepAlive() && !c.head.HasBody() &&
                   c.requests + 1 < o_.max_requests_per_connection;
    if (c.head.HasBody()) {
      const uint64_t have = std::min<uint64_t>(c.in.size(), *c.head.content_length);
      c.in.erase(0, have);
      c.drain_left = *c.head.content_length - have;
      if (c.drain_left > 0) {
        c.state = State::kDraining;
        return Drain(c);
      }
    }
    Dispatch(c);
  }

  void Drain(Conn& c) {
    char buf[kReadChunk];
    while (c.drain_left > 0) {
      const ssize_t n = Recv(c, buf, std::min<uint64_t>(sizeof buf, c.drain_left));
      if (n == -1) return;
      if (n <= 0) return Close(c);
      c.drain_left -= static_cast<uint64_t>(n);
    }
    Dispatch(c);
  }

  void Dispatch(Conn& c) {
    c.state = State::kHandling;
    ++c.requests;
    Want(c, 0);  // nothing to watch until the worker answers
    Work work{c.id, std::move(c.head), c.peer, c.ssl != nullptr, c.cert_verified,
            c.cert_subject, c.keep_alive};
    {
      std::lock_guard lock(work_mu_);
      work_.push_back(std::move(work));
    }
    work_cv_.notify_one();
  }

  void Refuse(Conn& c, int status) {
    c.keep_alive = false;
    c.out_head = ErrorResponse(status);
    c.payload = nullptr;
    c.payload_len = 0;
    StartWrite(c);
  }

  // ---- responses ----
  void TakeCompletions() {
    std::vector<Done> done;
    {
      std::lock_guard lock(done_mu_);
      done.swap(done_);
    }
    for (Done& d : done) {
      const auto it = conns_.find(d.id);
      if (it == conns_.end()) continue;
      Conn& c = *it->second;
      c.out_head = std::move(d.head);
      c.out_text = std::move(d.text);
      c.out_body = std::move(d.body);
      const std::string* payload =
          c.out_body ? (d.gzip ? &c.out_body->gzipped() : &c.out_body->text()) : &c.out_text;
      c.payload = payload->data();
      c.payload_len = d.head_only ? 0 : payload->size();
      c.keep_alive = d.keep_alive && !stopping_.load();
      StartWrite(c);
    }
  }

  void StartWrite(Conn& c) {
    c.state = State::kWriting;
    c.written = 0;
    c.deadline = Clock::now() + o_.write_timeout;
    Write(c);
  }

  void Write(Conn& c) {
    const size_t total = c.out_head.size() + c.payload_len;
    while (c.written < total) {
      ssize_t n;
      if (!c.ssl) {
        iovec iov[2];
        int count = 0;
        if (c.written < c.out_head.size()) {
          iov[count++] = {c.out_head.data() + c.written, c.out_head.size() - c.written};
          if (c.payload_len) iov[count++] = {const_cast<char*>(c.payload), c.payload_len};
        } else {
          const size_t off = c.written - c.out_head.size();
          iov[count++] = {const_cast<char*>(c.payload) + off, c.payload_len - off};
        }
        msghdr msg{};
        msg.msg_iov = iov;
        msg.msg_iovlen = static_cast<size_t>(count);
        n = sendmsg(c.fd, &msg, MSG_NOSIGNAL);
        if (n < 0 && (errno == EAGAIN || errno == EINTR)) return Want(c, EPOLLOUT);
        if (n < 0) return Close(c);
      } else {
        const char* p;
        size_t len;
        if (c.written < c.out_head.size()) {
          p = c.out_head.data() + c.written;
          len = c.out_head.size() - c.written;
        } else {
          p = c.payload + (c.written - c.out_head.size());
          len = total - c.written;
        }
        const int r = SSL_write(c.ssl, p, static_cast<int>(std::min<size_t>(len, 1 << 20)));
        if (r <= 0) {
          const int e = SSL_get_error(c.ssl, r);
          ERR_clear_error();
          if (e == SSL_ERROR_WANT_WRITE) return Want(c, EPOLLOUT);
          if (e == SSL_ERROR_WANT_READ) return Want(c, EPOLLIN);
          return Close(c);
        }
        n = r;
      }
      c.written += static_cast<size_t>(n);
    }
    c.out_body.reset();
    c.out_text.clear();
    c.out_head.clear();
    c.payload = nullptr;
    if (!c.keep_alive) return StartLinger(c);
    // Ready for the next request on this connection.
    c.state = State::kReading;
    c.since = Clock::now();
    c.deadline = c.since + o_.header_timeout;
    Want(c, EPOLLIN);
    Read(c);  // a pipelined request, or bytes TLS already decrypted
  }

  // After the last response: send our end-of-stream, then read and drop
  // what the client still sends for a moment, so a reset does not destroy
  // the response before the client read it.
  void StartLinger(Conn& c) {
    if (c.ssl) {
      SSL_shutdown(c.ssl);
      ERR_clear_error();
    }
    shutdown(c.fd, SHUT_WR);
    c.state = State::kLingering;
    c.deadline = Clock::now() + kLinger;
    Want(c, EPOLLIN);
    Linger(c);
  }

  void Linger(Conn& c) {
    char buf[kReadChunk];
    while (true) {
      const ssize_t n = recv(c.fd, buf, sizeof buf, 0);
      if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
      if (n <= 0) return Close(c);
      c.lingered += static_cast<size_t>(n);
      if (c.lingered > kMaxLingerBytes) return Close(c);
    }
  }

  void Sweep() {
    const auto now = Clock::now();
    std::vector<Conn*> expired;
    for (auto& [id, c] : conns_) {
      if (c->state != State::kHandling && now >= c->deadline) expired.push_back(c.get());
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

  // ---- workers ----
  void WorkerMain() {
    while (true) {
      Work work;
      {
        std::unique_lock lock(work_mu_);
        work_cv_.wait(lock, [this] { return workers_stop_ || !work_.empty(); });
        if (workers_stop_) return;
        work = std::move(work_.front());
        work_.pop_front();
      }
      Done d = Serve(work);
      {
        std::lock_guard lock(done_mu_);
        done_.push_back(std::move(d));
      }
      Wake();
    }
  }

  Done Serve(const Work& work) {
    const http::RequestHead& h = work.head;
    HttpRequest req;
    req.method = h.method;
    req.path = h.path;
    req.query = h.query;
    req.accept = h.accept;
    req.accept_encoding = h.accept_encoding;
    req.accepts_gzip = NegotiateGzip(h.accept_encoding);
    req.peer = work.peer;
    req.tls = work.tls;
    if (work.cert_verified) {
      req.authenticated = true;
      req.principal_kind = PrincipalKind::kClientCertificate;
      req.principal = work.cert_subject;
    }
    HttpResponse resp;
    std::string user;
    try {
      std::optional<HttpResponse> refused;
      if (o_.security) refused = o_.security->Authorize(h.authorization, &req, &user);
      if (refused) {
        resp = std::move(*refused);
      } else if (h.method == "OPTIONS") {
        resp.status = 204;
        resp.headers.emplace_back("Allow", "GET, HEAD, OPTIONS");
      } else {
        // On our listener only a client that proved who it is sees what
        // PrivateData hides; the web config's users are the admin's.
        req.sees_private = req.authenticated;
        resp = handler_(req);
      }
    } catch (...) {
      resp = HttpResponse();
      resp.status = 500;
      resp.text = "internal error\n";
    }
    if (o_.security) o_.security->AddHeaders(resp);
    Done d;
    d.id = work.id;
    d.gzip = resp.body && resp.gzip;
    // Compress here, on the worker, not on the event loop.
    const std::string* payload =
        resp.body ? (d.gzip ? &resp.body->gzipped() : &resp.body->text()) : &resp.text;
    const bool keep_alive = work.keep_alive && resp.status < 500;
    d.head = SerializeHead(resp, resp.status == 204 ? 0 : payload->size(), keep_alive);
    d.text = std::move(resp.text);
    d.body = std::move(resp.body);
    d.head_only = h.method == "HEAD" || resp.status == 204;
    d.keep_alive = keep_alive;
    return d;
  }

  const ListenerOptions& o_;
  const HttpHandler& handler_;
  std::atomic<int>* port_;
  int epoll_ = -1, wake_ = -1, listen_ = -1;
  int bind_errno_ = 0;
  bool fd_warning_logged_ = false;
  Clock::time_point accept_paused_until_{};
  std::atomic<bool> stopping_{false};
  std::thread thread_;
  uint64_t next_id_ = kFirstConnId;
  std::unordered_map<uint64_t, std::unique_ptr<Conn>> conns_;
  std::unordered_map<std::string, size_t> per_peer_;

  std::mutex work_mu_;
  std::condition_variable work_cv_;
  std::deque<Work> work_;
  bool workers_stop_ = false;
  std::vector<std::thread> workers_;
  std::mutex done_mu_;
  std::vector<Done> done_;
};

HttpListener::HttpListener(ListenerOptions options, HttpHandler handler)
    : options_(std::move(options)), handler_(std::move(handler)) {}

HttpListener::~HttpListener() { Stop(); }

void HttpListener::Start() {
  if (loop_) return;
  loop_ = std::make_unique<Loop>(options_, handler_, &port_);
  loop_->Start();
}

void HttpListener::Stop() {
  if (loop_) loop_->Stop();
  loop_.reset();
}

}  // namespace sm
