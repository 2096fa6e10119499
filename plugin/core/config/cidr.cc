// SPDX-License-Identifier: GPL-2.0-or-later
#include "config/cidr.h"

#include <arpa/inet.h>

#include <cstring>

#include "base/go_parse.h"
#include "base/log.h"

namespace sm {

std::optional<IpAddress> ParseIpAddress(std::string_view s) {
  if (s.empty() || s.size() >= INET6_ADDRSTRLEN) return std::nullopt;
  const std::string z(s);  // inet_pton needs a terminated string
  IpAddress ip;
  if (inet_pton(AF_INET, z.c_str(), ip.bytes.data()) == 1) return ip;
  if (inet_pton(AF_INET6, z.c_str(), ip.bytes.data()) != 1) return std::nullopt;
  static constexpr uint8_t kMapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  if (std::memcmp(ip.bytes.data(), kMapped, sizeof kMapped) == 0) {
    std::memmove(ip.bytes.data(), ip.bytes.data() + 12, 4);
    std::memset(ip.bytes.data() + 4, 0, 12);
    return ip;
  }
  ip.v6 = true;
  return ip;
}

std::string Cidr::str() const {
  char buf[INET6_ADDRSTRLEN] = {};
  inet_ntop(network.v6 ? AF_INET6 : AF_INET, network.bytes.data(), buf, sizeof buf);
  return std::string(buf) + "/" + std::to_string(prefix);
}

std::optional<Cidr> ParseCidr(std::string_view s, std::string* why) {
  const size_t slash = s.find('/');
  const std::string_view addr = s.substr(0, slash);
  const auto ip = ParseIpAddress(addr);
  if (!ip) {
    *why = "\"" + Printable(addr) + "\" is not an IPv4 or IPv6 address";
    return std::nullopt;
  }
  const int max = ip->v6 ? 128 : 32;
  Cidr c{*ip, max};
  if (slash != std::string_view::npos) {
    const std::string_view bits = s.substr(slash + 1);
    const auto n = GoAtoi(bits);
    if (!n || bits.empty() || bits.front() == '+' || bits.front() == '-' ||
        *n < 0 || *n > max) {
      *why = "\"" + Printable(s) + "\": the prefix length must be 0 to " +
             std::to_string(max);
      return std::nullopt;
    }
    c.prefix = static_cast<int>(*n);
  }
  for (int i = c.prefix; i < max; ++i)
    c.network.bytes[i / 8] &= static_cast<uint8_t>(~(0x80u >> (i % 8)));
  return c;
}

std::optional<std::vector<Cidr>> ParseCidrList(std::string_view s, std::string* why) {
  std::vector<Cidr> out;
  while (true) {
    const size_t comma = s.find(',');
    const std::string_view entry = TrimSpace(s.substr(0, comma));
    if (entry.empty()) {
      *why = "empty entry in the list";
      return std::nullopt;
    }
    auto c = ParseCidr(entry, why);
    if (!c) return std::nullopt;
    out.push_back(*c);
    if (comma == std::string_view::npos) return out;
    s.remove_prefix(comma + 1);
  }
}

bool Contains(const Cidr& net, const IpAddress& ip) {
  if (net.network.v6 != ip.v6) return false;
  const int full = net.prefix / 8;
  if (std::memcmp(net.network.bytes.data(), ip.bytes.data(), full) != 0) return false;
  const int rest = net.prefix % 8;
  if (rest == 0) return true;
  const uint8_t mask = static_cast<uint8_t>(0xff00u >> rest);
  return (ip.bytes[full] & mask) == net.network.bytes[full];
}

bool AnyContains(const std::vector<Cidr>& nets, const IpAddress& ip) {
  for (const Cidr& n : nets) {
    if (Contains(n, ip)) return true;
  }
  return false;
}

}  // namespace sm
