// SPDX-License-Identifier: GPL-2.0-or-later
#include "http/admission.h"

#include <sys/epoll.h>

#include <algorithm>

namespace sm {
namespace http_loop {

bool Admission::Allowed(const IpAddress& ip) const {
  return o_.allowed_networks.empty() || AnyContains(o_.allowed_networks, ip);
}

bool Admission::HasRoom(const std::string& key) const {
  const auto pp = per_peer_.find(key);
  const bool peer_full = pp != per_peer_.end() && pp->second >= o_.max_connections_per_peer;
  return !peer_full && conns_.size() < o_.max_connections;
}

Conn* Admission::Victim(const std::string& key, Clock::time_point now) const {
  const auto pp = per_peer_.find(key);
  const bool peer_full = pp != per_peer_.end() && pp->second >= o_.max_connections_per_peer;
  Conn* victim = nullptr;
  std::pair<int, Clock::time_point> victim_rank;
  for (auto& [id, c] : conns_) {
    if (peer_full && c->peer_key != key) continue;
    const auto rank = EvictionRank(*c, now);
    if (!rank) continue;
    if (!victim || *rank < victim_rank) {
      victim = c.get();
      victim_rank = *rank;
    }
  }
  return victim;
}

std::optional<std::pair<int, Clock::time_point>> Admission::EvictionRank(const Conn& c,
                                                                        Clock::time_point now) {
  const int kept = c.authenticated ? 2 : 0;
  switch (c.state) {
    case State::kHandshake:
    case State::kReading:
    case State::kDraining:
    case State::kLingering:
      return std::make_pair(kept, c.since);
    case State::kWriting:
      if (now - c.progress < kStalledEvictable) return std::nullopt;
      return std::make_pair(kept + 1, c.progress);
    case State::kHandling:
      return std::nullopt;
  }
  return std::nullopt;
}

void Admission::Closing(Conn& c) {
  EndHandshake(c, State::kLingering);
  if (auto it = per_peer_.find(c.peer_key); it != per_peer_.end() && --it->second == 0)
    per_peer_.erase(it);
}

void Admission::Clear() {
  per_peer_.clear();
  handshakes_.clear();
  pending_handshakes_.clear();
}

void Admission::QueueHandshake(Conn& c) {
  size_t& active = handshakes_[c.peer_key];
  if (active < o_.max_handshakes_per_peer) {
    ++active;
    BeginHandshake(c);
  } else {
    pending_handshakes_[c.peer_key].push_back(c.id);
  }
}

void Admission::BeginHandshake(Conn& c) {
  c.handshaking = true;
  c.deadline = std::min(c.since + o_.header_timeout, Clock::now() + o_.handshake_timeout);
  conns_.Want(c, EPOLLIN);
}

void Admission::EndHandshake(Conn& c, State next) {
  const bool was_active = c.handshaking;
  c.handshaking = false;
  c.state = next;
  if (!was_active) return;
  const auto it = handshakes_.find(c.peer_key);
  if (it == handshakes_.end()) return;
  auto pending = pending_handshakes_.find(c.peer_key);
  while (pending != pending_handshakes_.end() && !pending->second.empty()) {
    const uint64_t id = pending->second.front();
    pending->second.pop_front();
    Conn* const next_conn = conns_.Find(id);
    if (!next_conn || next_conn->state != State::kHandshake) continue;
    BeginHandshake(*next_conn);  // takes over the freed turn
    return;
  }
  if (pending != pending_handshakes_.end()) pending_handshakes_.erase(pending);
  if (--it->second == 0) handshakes_.erase(it);
}

}  // namespace http_loop
}  // namespace sm
