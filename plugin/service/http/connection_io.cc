// SPDX-License-Identifier: GPL-2.0-or-later
#include "http/connection_io.h"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <string>
#include <utility>
#include <vector>

#include "base/log.h"
#include "http/web_security.h"
#include "http/wire.h"

namespace sm {
namespace http_loop {

void ConnectionIo::Progress(Conn& c) {
  switch (c.state) {
    case State::kHandshake: return Handshake(c);
    case State::kReading: return Read(c);
    case State::kDraining: return Drain(c);
    case State::kWriting: return Write(c);
    case State::kLingering: return Linger(c);
    case State::kHandling: return;
  }
}

void ConnectionIo::Close(Conn& c) {
  admission_.Closing(c);
  conns_.Erase(c);  // c is gone from here on
}

void ConnectionIo::Handshake(Conn& c) {
  if (!c.tls_checked) {
    unsigned char first;
    const ssize_t n = recv(c.fd, &first, 1, MSG_PEEK);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
    if (n <= 0) return Close(c);
    c.tls_checked = true;
    if (first != 0x16) {  // not a TLS handshake record
      admission_.EndHandshake(c, State::kLingering);
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
    admission_.EndHandshake(c, State::kReading);
    c.deadline = c.since + o_.header_timeout;
    conns_.Want(c, EPOLLIN);
    return Read(c);
  }
  const int e = SSL_get_error(c.ssl, r);
  ERR_clear_error();
  if (e == SSL_ERROR_WANT_READ) return conns_.Want(c, EPOLLIN);
  if (e == SSL_ERROR_WANT_WRITE) return conns_.Want(c, EPOLLOUT);
  Close(c);
}

ssize_t ConnectionIo::Recv(Conn& c, char* buf, size_t n) {
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

void ConnectionIo::Read(Conn& c) {
  char buf[kReadChunk];
  while (!c.eof && c.in.size() < http::kMaxHeadBytes) {
    const ssize_t n = Recv(c, buf, sizeof buf);
    if (n == -1) break;
    if (n == 0) c.eof = true;
    if (n < 0) return Close(c);
    c.in.append(buf, static_cast<size_t>(n));
  }
  Parse(c);
}

void ConnectionIo::Parse(Conn& c) {
  if (c.in.empty()) {
    if (c.eof) Close(c);
    return;
  }
  const http::ParseResult r = c.parser.Feed(c.in);
  if (r.status == http::ParseResult::kIncomplete) {
    if (c.eof) Close(c);  // a head that can no longer complete
    return;
  }
  if (r.status == http::ParseResult::kError) return Refuse(c, r.error);
  c.head = std::move(c.parser.head());
  c.parser.Reset();
  c.in.erase(0, r.consumed);
  if (!KnownMethod(c.head.method)) return Refuse(c, 501);
  if (c.head.transfer_encoding ||
      (c.head.content_length && *c.head.content_length > kMaxDrainBytes))
    return Refuse(c, 413);
  // After end of stream, requests already buffered (pipelined) are
  // still answered one by one; the connection closes after the last.
  c.keep_alive = c.head.KeepAlive() && !c.head.HasBody() &&
                 c.requests + 1 < o_.max_requests_per_connection &&
                 !(c.eof && c.in.empty());
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

void ConnectionIo::Drain(Conn& c) {
  char buf[kReadChunk];
  while (c.drain_left > 0) {
    const ssize_t n = Recv(c, buf, std::min<uint64_t>(sizeof buf, c.drain_left));
    if (n == -1) return;
    if (n <= 0) return Close(c);
    c.drain_left -= static_cast<uint64_t>(n);
  }
  Dispatch(c);
}

void ConnectionIo::Dispatch(Conn& c) {
  c.state = State::kHandling;
  ++c.requests;
  conns_.Want(c, 0);  // nothing to watch until the worker answers
  Work work{c.id, std::move(c.head), c.peer, c.ssl != nullptr, c.cert_verified,
          c.cert_subject, c.keep_alive};
  workers_.Submit(std::move(work));
}

void ConnectionIo::Refuse(Conn& c, int status) {
  c.keep_alive = false;
  c.out_head = ErrorResponse(status);
  c.payload = nullptr;
  c.payload_len = 0;
  StartWrite(c);
}

void ConnectionIo::TakeCompletions() {
  std::vector<Done> done = workers_.TakeDone();
  for (Done& d : done) {
    Conn* const found = conns_.Find(d.id);
    if (!found) continue;
    Conn& c = *found;
    if (d.failed) {
      c.keep_alive = false;
      c.out_head = kInternalError;
      c.payload = nullptr;
      c.payload_len = 0;
      StartWrite(c);
      continue;
    }
    c.out_head = std::move(d.head);
    c.out_text = std::move(d.text);
    c.out_body = std::move(d.body);
    const std::string* payload =
        c.out_body ? (d.gzip ? &c.out_body->gzipped() : &c.out_body->text()) : &c.out_text;
    c.payload = payload->data();
    c.payload_len = d.head_only ? 0 : payload->size();
    c.keep_alive = d.keep_alive && !stopping_.load();
    c.authenticated = c.authenticated || d.authenticated;
    StartWrite(c);
  }
}

void ConnectionIo::StartWrite(Conn& c) {
  c.state = State::kWriting;
  c.written = 0;
  c.progress = Clock::now();
  c.deadline = c.progress + o_.write_timeout;
  Write(c);
}

void ConnectionIo::Write(Conn& c) {
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
      if (n < 0 && (errno == EAGAIN || errno == EINTR)) return conns_.Want(c, EPOLLOUT);
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
        if (e == SSL_ERROR_WANT_WRITE) return conns_.Want(c, EPOLLOUT);
        if (e == SSL_ERROR_WANT_READ) return conns_.Want(c, EPOLLIN);
        return Close(c);
      }
      n = r;
    }
    c.written += static_cast<size_t>(n);
    if (n > 0) c.progress = Clock::now();
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
  conns_.Want(c, EPOLLIN);
  Read(c);  // a pipelined request, or bytes TLS already decrypted
}

void ConnectionIo::StartLinger(Conn& c) {
  if (c.ssl) {
    SSL_shutdown(c.ssl);
    ERR_clear_error();
  }
  shutdown(c.fd, SHUT_WR);
  c.state = State::kLingering;
  c.deadline = Clock::now() + kLinger;
  conns_.Want(c, EPOLLIN);
  Linger(c);
}

void ConnectionIo::Linger(Conn& c) {
  char buf[kReadChunk];
  while (true) {
    const ssize_t n = recv(c.fd, buf, sizeof buf, 0);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
    if (n <= 0) return Close(c);
    c.lingered += static_cast<size_t>(n);
    if (c.lingered > kMaxLingerBytes) return Close(c);
  }
}

}  // namespace http_loop
}  // namespace sm
