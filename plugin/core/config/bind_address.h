// SPDX-License-Identifier: GPL-2.0-or-later
// MetricsBindAddress and MonitoringBindAddress: what they may say, and
// whether the two listeners would claim one socket.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace sm {

// Where a listener binds: ":8080" (every address, IPv6 and IPv4),
// "127.0.0.1:8080", "[::1]:8080", "[::]:8080", "localhost:8080" (127.0.0.1).
// Host names are not resolved. Port 0 means any free port (tests).
struct BindAddress {
  enum class Family { kAny, kIPv4, kIPv6 };
  Family family = Family::kAny;
  std::string host;  // literal address without brackets; "" for kAny
  int port = 0;
  std::string str() const;  // as written back in logs: "[::1]:8080"
};
// nullopt when malformed, with the reason in *why.
std::optional<BindAddress> ParseBindAddress(std::string_view bind_address,
                                            std::string* why);

// Whether listeners on `a` and `b` would claim one port on one address,
// as the listener binds them: ":port" and "[::]:port" take every IPv6 and
// IPv4 address, "0.0.0.0:port" every IPv4 one, anything else its one
// address. Port 0 (any free port) never overlaps.
bool BindAddressesOverlap(const BindAddress& a, const BindAddress& b);

}  // namespace sm
