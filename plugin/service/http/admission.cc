// SPDX-License-Identifier: GPL-2.0-or-later
// Who gets a slot: the caps, eviction and TLS handshake turns (http/loop.h).
#include "http/loop.h"

namespace sm {

using namespace http_loop;

bool HttpListener::Loop::MakeRoom(const std::string& key) {
  const auto now = Clock::now();
  while (true) {
    const auto pp = per_peer_.find(key);
    const bool peer_full =
        pp != per_peer_.end() && pp->second >= o_.max_connections_per_peer;
    if (!peer_full && conns_.size() < o_.max_connections) return true;
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
    if (!victim) return false;
    Close(*victim);
  }
}

std::optional<std::pair<int, Clock::time_point>> HttpListener::Loop::EvictionRank(
    const Conn& c, Clock::time_point now) {
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

void HttpListener::Loop::QueueHandshake(Conn& c) {
  size_t& active = handshakes_[c.peer_key];
  if (active < o_.max_handshakes_per_peer) {
    ++active;
    BeginHandshake(c);
  } else {
    pending_handshakes_[c.peer_key].push_back(c.id);
  }
}

void HttpListener::Loop::BeginHandshake(Conn& c) {
  c.handshaking = true;
  c.deadline = std::min(c.since + o_.header_timeout, Clock::now() + o_.handshake_timeout);
  Want(c, EPOLLIN);
}

void HttpListener::Loop::EndHandshake(Conn& c, State next) {
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
    const auto next_conn = conns_.find(id);
    if (next_conn == conns_.end() || next_conn->second->state != State::kHandshake) continue;
    BeginHandshake(*next_conn->second);  // takes over the freed turn
    return;
  }
  if (pending != pending_handshakes_.end()) pending_handshakes_.erase(pending);
  if (--it->second == 0) handshakes_.erase(it);
}

}  // namespace sm
