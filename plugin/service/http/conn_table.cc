// SPDX-License-Identifier: GPL-2.0-or-later
#include "http/conn_table.h"

#include <openssl/ssl.h>
#include <sys/epoll.h>
#include <unistd.h>

namespace sm {
namespace http_loop {

Conn& ConnectionTable::Insert(std::unique_ptr<Conn> c) {
  Conn& ref = *c;
  conns_.emplace(c->id, std::move(c));
  return ref;
}

Conn* ConnectionTable::Find(uint64_t id) {
  const auto it = conns_.find(id);
  return it == conns_.end() ? nullptr : it->second.get();
}

void ConnectionTable::Want(Conn& c, uint32_t events) {
  if (events == c.events) return;
  epoll_event ev{};
  ev.events = events;
  ev.data.u64 = c.id;
  if (events == 0) epoll_ctl(epoll_, EPOLL_CTL_DEL, c.fd, &ev);
  else epoll_ctl(epoll_, c.events == 0 ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, c.fd, &ev);
  c.events = events;
}

void ConnectionTable::Erase(Conn& c) {
  Want(c, 0);
  CloseFd(c);
  conns_.erase(c.id);  // c is gone from here on
}

void ConnectionTable::CloseAll() {
  for (auto& [id, c] : conns_) CloseFd(*c);
  conns_.clear();
}

std::vector<Conn*> ConnectionTable::Expired(Clock::time_point now, Clock::duration stall) {
  std::vector<Conn*> expired;
  for (auto& [id, c] : conns_) {
    const bool stalled = c->state == State::kWriting && now - c->progress >= stall;
    if ((c->state != State::kHandling && now >= c->deadline) || stalled)
      expired.push_back(c.get());
  }
  return expired;
}

void ConnectionTable::CloseFd(Conn& c) {
  if (c.ssl) SSL_free(c.ssl);
  c.ssl = nullptr;
  if (c.fd >= 0) close(c.fd);
  c.fd = -1;
}

}  // namespace http_loop
}  // namespace sm
