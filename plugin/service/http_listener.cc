// SPDX-License-Identifier: GPL-2.0-or-later
#include "http_listener.h"

#include <arpa/inet.h>
#include <civetweb.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <future>

#include <chrono>
#include <cstring>
#include <mutex>

#include "collector.h"
#include "log.h"
#include "negotiation.h"
#include "thread_util.h"

namespace sm {
namespace {

constexpr auto kBindRetry = std::chrono::seconds(2);

int OnRequest(::mg_connection* conn, void* self) {
  try {
    return static_cast<HttpListener*>(self)->Handle(conn);
  } catch (...) {
    mg_send_http_error(conn, 500, "%s", "internal error");
    return 500;
  }
}

int OnLog(const ::mg_connection*, const char* message) {
  LogDebug(std::string("http: ") + message);
  return 1;  // civetweb must not print to slurmctld's stderr
}

const char* StatusText(int status) {
  switch (status) {
    case 200: return "OK";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 503: return "Service Unavailable";
    default: return "Error";
  }
}

// civetweb's mg_start() sets SIGCHLD and SIGPIPE to SIG_IGN for the whole
// process. Ignoring SIGCHLD would make the kernel reap slurmctld's children
// (prolog, MailProg...) before slurmctld's waitpid(): put both back.
class KeepSignalDispositions {
 public:
  KeepSignalDispositions() {
    sigaction(SIGCHLD, nullptr, &chld_);
    sigaction(SIGPIPE, nullptr, &pipe_);
  }
  ~KeepSignalDispositions() {
    sigaction(SIGCHLD, &chld_, nullptr);
    sigaction(SIGPIPE, &pipe_, nullptr);
  }

 private:
  struct sigaction chld_ {};
  struct sigaction pipe_ {};
};

// civetweb's master thread polls its sockets with a 2 s timeout before it
// notices mg_stop(); a connection wakes it at once.
void Poke(const mg_server_port& p, const std::string& host) {
  const int fd = socket(p.protocol == 2 ? AF_INET6 : AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return;
  if (p.protocol == 2) {
    sockaddr_in6 a{};
    a.sin6_family = AF_INET6;
    a.sin6_port = htons(static_cast<uint16_t>(p.port));
    if (host.empty() || inet_pton(AF_INET6, host.c_str(), &a.sin6_addr) != 1 ||
        IN6_IS_ADDR_UNSPECIFIED(&a.sin6_addr))
      a.sin6_addr = in6addr_loopback;
    (void)connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  } else {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(p.port));
    // An address-specific bind is reachable on that address only.
    if (host.empty() || inet_pton(AF_INET, host.c_str(), &a.sin_addr) != 1 ||
        a.sin_addr.s_addr == htonl(INADDR_ANY))
      a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    (void)connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  }
  close(fd);
}

}  // namespace

HttpListener::HttpListener(std::string name, std::string ports, int threads,
                           HttpHandler handler)
    : name_(std::move(name)),
      ports_(std::move(ports)),
      threads_(threads),
      handler_(std::move(handler)) {}

HttpListener::~HttpListener() { Stop(); }

bool HttpListener::TryStart() {
  static std::once_flag init;
  std::call_once(init, [] { mg_init_library(0); });
  const std::string threads = std::to_string(threads_);
  const char* options[] = {
      "listening_ports", ports_.c_str(),
      "num_threads", threads.c_str(),
      "max_request_size", "8192",
      "request_timeout_ms", "10000",
      "enable_keep_alive", "no",
      "listen_backlog", "128",
      nullptr};
  mg_callbacks callbacks;
  std::memset(&callbacks, 0, sizeof callbacks);
  callbacks.log_message = OnLog;
  callbacks.init_thread = [](const mg_context*, int) -> void* {
    LowerThisThreadPriority();
    return nullptr;
  };
  mg_context* ctx;
  {
    KeepSignalDispositions keep;
    BlockAllSignals blocked;  // civetweb's threads inherit this mask
    ctx = mg_start(&callbacks, this, options);
  }
  if (!ctx) return false;
  mg_set_request_handler(ctx, "/", OnRequest, this);
  ctx_.store(ctx);
  LogInfo(name_ + " listening on " + ports_);
  return true;
}

void HttpListener::Start() {
  if (TryStart()) return;
  LogError(name_ + ": cannot listen on " + ports_ +
           " (port in use?); retrying every 2s in the background");
  BlockAllSignals blocked;
  bind_thread_ = std::thread([this] {
    NameThisThread("sm-http-bind");
    BindLoop();
  });
}

void HttpListener::BindLoop() {
  std::unique_lock lock(mu_);
  while (!stopping_) {
    if (cv_.wait_for(lock, kBindRetry, [this] { return stopping_; })) return;
    lock.unlock();
    const bool ok = TryStart();
    lock.lock();
    if (ok) return;
  }
}

void HttpListener::Stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (bind_thread_.joinable()) bind_thread_.join();
  if (mg_context* ctx = ctx_.exchange(nullptr)) {
    mg_server_port ports[4];
    const int n = mg_get_server_ports(ctx, 4, ports);
    // "127.0.0.2:8080" -> 127.0.0.2, "[::1]:8080" -> ::1, "8080" -> "".
    std::string host;
    if (const size_t colon = ports_.rfind(':'); colon != std::string::npos)
      host = ports_.substr(0, colon);
    if (host.size() > 2 && host.front() == '[') host = host.substr(1, host.size() - 2);
    KeepSignalDispositions keep;
    BlockAllSignals blocked;
    auto stopped = std::async(std::launch::async, [ctx] { mg_stop(ctx); });
    while (stopped.wait_for(std::chrono::milliseconds(20)) !=
           std::future_status::ready) {
      for (int i = 0; i < n; ++i) Poke(ports[i], host);
    }
  }
}

int HttpListener::port() const {
  mg_context* ctx = ctx_.load();
  if (!ctx) return 0;
  mg_server_port ports[4];
  const int n = mg_get_server_ports(ctx, 4, ports);
  return n > 0 ? ports[0].port : 0;
}

int HttpListener::Handle(::mg_connection* conn) {
  const mg_request_info* ri = mg_get_request_info(conn);
  HttpRequest req;
  req.method = ri->request_method ? ri->request_method : "";
  req.path = ri->local_uri ? ri->local_uri : "";
  if (const char* a = mg_get_header(conn, "Accept")) req.accept = a;
  if (const char* enc = mg_get_header(conn, "Accept-Encoding"))
    req.accepts_gzip = NegotiateGzip(enc);

  const HttpResponse resp = handler_(req);
  const std::string* payload = &resp.text;
  if (resp.body) payload = resp.gzip ? &resp.body->gzipped() : &resp.body->text();
  std::string head = "HTTP/1.1 " + std::to_string(resp.status) + " " +
                     StatusText(resp.status) + "\r\nContent-Type: " +
                     resp.content_type + "\r\nContent-Length: " +
                     std::to_string(payload->size()) +
                     "\r\nConnection: close\r\n";
  if (resp.body && resp.gzip) head += "Content-Encoding: gzip\r\n";
  for (const auto& [k, v] : resp.headers) head += k + ": " + v + "\r\n";
  head += "\r\n";
  mg_write(conn, head.data(), head.size());
  if (req.method != "HEAD" && !payload->empty())
    mg_write(conn, payload->data(), payload->size());
  return resp.status;
}

}  // namespace sm
