// SPDX-License-Identifier: GPL-2.0-or-later
// The event loop's open connections (http/loop.h): each by its id (the
// epoll key; ids below kFirstConnId are the loop's own), with its epoll
// interest. Event thread only.
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "http/conn.h"

namespace sm {
namespace http_loop {

inline constexpr uint64_t kWakeId = 0, kListenId = 1, kFirstConnId = 16;

class ConnectionTable {
  using Map = std::unordered_map<uint64_t, std::unique_ptr<Conn>>;

 public:
  // `epoll` is the loop's epoll descriptor, read at each registration.
  explicit ConnectionTable(const int& epoll) : epoll_(epoll) {}

  // Every accepted socket takes the next id, kept or not.
  uint64_t NextId() { return next_id_++; }
  // Owned here from now on; not registered with epoll yet (Want).
  Conn& Insert(std::unique_ptr<Conn> c);
  Conn* Find(uint64_t id);
  // Registers, changes or (0) removes c's epoll interest.
  void Want(Conn& c, uint32_t events);
  // Unregisters, closes and forgets c: c is gone afterwards.
  void Erase(Conn& c);
  // Closes every connection (the kernel drops their epoll interest).
  void CloseAll();
  // Those past their deadline (not while handled) or, writing, stalled
  // for `stall`.
  std::vector<Conn*> Expired(Clock::time_point now, Clock::duration stall);

  size_t size() const { return conns_.size(); }
  bool empty() const { return conns_.empty(); }
  Map::iterator begin() { return conns_.begin(); }
  Map::iterator end() { return conns_.end(); }

 private:
  static void CloseFd(Conn& c);

  const int& epoll_;
  uint64_t next_id_ = kFirstConnId;
  Map conns_;
};

}  // namespace http_loop
}  // namespace sm
