// SPDX-License-Identifier: GPL-2.0-or-later
#include "config/bind_address.h"

#include <algorithm>
#include <cctype>

#include "config/cidr.h"
#include "base/go_parse.h"
#include "base/log.h"

namespace sm {

std::string BindAddress::str() const {
  const std::string p = ":" + std::to_string(port);
  if (family == Family::kIPv6) return "[" + host + "]" + p;
  return host + p;
}

std::optional<BindAddress> ParseBindAddress(std::string_view a, std::string* why) {
  a = TrimSpace(a);
  const size_t colon = a.rfind(':');
  if (colon == std::string_view::npos) {
    *why = "expected [address]:port, e.g. :8080, 127.0.0.1:8080 or [::1]:8080";
    return std::nullopt;
  }
  const std::string_view host = a.substr(0, colon);
  const std::string_view port = a.substr(colon + 1);
  const auto p = GoAtoi(port);
  if (!p || port.empty() || !std::isdigit(static_cast<unsigned char>(port[0])) ||
      *p > 65535) {
    *why = "the port must be a number from 0 to 65535";
    return std::nullopt;
  }
  BindAddress out;
  out.port = static_cast<int>(*p);
  if (host.empty()) return out;
  if (host.front() == '[') {
    if (host.size() < 2 || host.back() != ']') {
      *why = "unbalanced brackets in \"" + Printable(host) + "\"";
      return std::nullopt;
    }
    const std::string_view inner = host.substr(1, host.size() - 2);
    const auto ip = ParseIpAddress(inner);
    if (inner.empty()) {
      *why = "empty brackets; write :" + std::string(port) +
             " to listen on every address";
      return std::nullopt;
    }
    if (!ip || !ip->v6 || inner.find(':') == std::string_view::npos) {
      *why = "\"" + Printable(inner) + "\" is not a literal IPv6 address";
      return std::nullopt;
    }
    out.family = BindAddress::Family::kIPv6;
    out.host = std::string(inner);
    return out;
  }
  if (host.find(':') != std::string_view::npos) {
    *why = "write IPv6 addresses in brackets, e.g. [::1]:8080";
    return std::nullopt;
  }
  const std::string_view literal = host == "localhost" ? "127.0.0.1" : host;
  const auto ip = ParseIpAddress(literal);
  if (!ip || ip->v6 || literal.find(':') != std::string_view::npos) {
    *why = "\"" + Printable(host) +
           "\" is not a literal IPv4 address (host names are not resolved; "
           "use an address of this machine, e.g. 127.0.0.1, or [::1] for IPv6)";
    return std::nullopt;
  }
  out.family = BindAddress::Family::kIPv4;
  out.host = std::string(literal);
  return out;
}

namespace {

// The addresses a listener on `a` takes.
struct Claim {
  bool every_v4 = false;
  bool every_v6 = false;
  std::optional<IpAddress> one;
};

Claim ClaimOf(const BindAddress& a) {
  if (a.family == BindAddress::Family::kAny) return {true, true, std::nullopt};
  const std::optional<IpAddress> ip = ParseIpAddress(a.host);
  if (!ip) return {};  // not from ParseBindAddress: claims nothing known
  const bool unspecified =
      std::all_of(ip->bytes.begin(), ip->bytes.end(), [](uint8_t b) { return b == 0; });
  if (!unspecified) return {false, false, ip};
  // "[::]" is dual-stack like ":port" (IPV6_V6ONLY off); "0.0.0.0" IPv4 only.
  return {true, ip->v6, std::nullopt};
}

bool Covers(const Claim& c, const IpAddress& ip) {
  return ip.v6 ? c.every_v6 : c.every_v4;
}

}  // namespace

bool BindAddressesOverlap(const BindAddress& a, const BindAddress& b) {
  if (a.port == 0 || b.port == 0 || a.port != b.port) return false;
  const Claim x = ClaimOf(a), y = ClaimOf(b);
  if ((x.every_v4 && y.every_v4) || (x.every_v6 && y.every_v6)) return true;
  if (x.one && Covers(y, *x.one)) return true;
  if (y.one && Covers(x, *y.one)) return true;
  return x.one && y.one && x.one->v6 == y.one->v6 && x.one->bytes == y.one->bytes;
}

}  // namespace sm
