// SPDX-License-Identifier: GPL-2.0-or-later
// IP networks in CIDR notation, for AllowedNetworks: "10.0.0.0/8",
// "::1/128", or a bare address (one host). IPv4 peers that reach a
// dual-stack socket as ::ffff:a.b.c.d match IPv4 networks.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sm {

struct IpAddress {
  bool v6 = false;
  std::array<uint8_t, 16> bytes{};  // IPv4 uses the first 4
};

struct Cidr {
  IpAddress network;  // host bits cleared
  int prefix = 0;     // 0..32 or 0..128
  std::string str() const;
};

// A literal IPv4 or IPv6 address (no brackets, no zone); an IPv4-mapped
// IPv6 address becomes the IPv4 address.
std::optional<IpAddress> ParseIpAddress(std::string_view s);

// nullopt with the reason in *why when malformed.
std::optional<Cidr> ParseCidr(std::string_view s, std::string* why);

// Comma-separated, spaces allowed around entries; empty entries are errors.
std::optional<std::vector<Cidr>> ParseCidrList(std::string_view s, std::string* why);

bool Contains(const Cidr& net, const IpAddress& ip);
bool AnyContains(const std::vector<Cidr>& nets, const IpAddress& ip);

}  // namespace sm
