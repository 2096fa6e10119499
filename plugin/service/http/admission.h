// SPDX-License-Identifier: GPL-2.0-or-later
// Who gets a slot on the listener (docs/configuration.md, Listener
// limits): the allow-list, the caps per peer (HttpListener::PeerKey) and
// in total with the eviction order at a cap, and the TLS handshake turns
// per peer. Event thread only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

#include "config/cidr.h"
#include "http/conn.h"
#include "http/conn_table.h"
#include "http/listener.h"

namespace sm {
namespace http_loop {

// A writer the kernel accepted no byte from for this long may be evicted
// for a newcomer; one blocked for less is a reader that is still busy.
inline constexpr auto kStalledEvictable = std::chrono::seconds(1);

class Admission {
 public:
  Admission(const ListenerOptions& o, ConnectionTable& conns) : o_(o), conns_(conns) {}

  // Not on the allow-list: closed before a byte is read.
  bool Allowed(const IpAddress& ip) const;

  // Room for one more connection of peer `key` under both caps.
  bool HasRoom(const std::string& key) const;
  // At a cap: rather than turn the newcomer away, drop (in this order) the
  // oldest connection still waiting for its request (idle, slow, or
  // mid-handshake), else the writer the kernel took no byte from for the
  // longest (a slow reader); connections that authenticated go last. Only
  // `key`'s own when its peer cap is the one reached; null: none may go.
  Conn* Victim(const std::string& key, Clock::time_point now) const;

  // c holds a slot of its peer's from now on.
  void Opened(const Conn& c) { ++per_peer_[c.peer_key]; }
  // c is about to be closed: its handshake turn and slot are freed.
  void Closing(Conn& c);
  // The event loop failed: every connection is gone.
  void Clear();

  // TLS handshakes run on this one thread: a peer has at most
  // max_handshakes_per_peer in progress, each for at most
  // handshake_timeout; its further connections wait (unread, under their
  // header deadline) for a turn, so one peer's flood of handshakes holds a
  // bounded share of the thread and never a slot of another peer's.
  void QueueHandshake(Conn& c);
  // Every way out of kHandshake passes here (or Closing): frees the
  // peer's turn for its next waiting connection.
  void EndHandshake(Conn& c, State next);

 private:
  // Lower goes first; nullopt: not evictable (a request being answered, or
  // a response the client is reading).
  static std::optional<std::pair<int, Clock::time_point>> EvictionRank(
      const Conn& c, Clock::time_point now);

  void BeginHandshake(Conn& c);

  const ListenerOptions& o_;
  ConnectionTable& conns_;
  std::unordered_map<std::string, size_t> per_peer_;
  std::unordered_map<std::string, size_t> handshakes_;  // turns taken, per peer
  std::unordered_map<std::string, std::deque<uint64_t>> pending_handshakes_;
};

}  // namespace http_loop
}  // namespace sm
