// SPDX-License-Identifier: GPL-2.0-or-later
#include "http/sockets.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace sm {
namespace http_loop {

std::string BindError(int err, const BindAddress& a) {
  switch (err) {
    case EADDRINUSE:
      return "address " + a.str() + " is in use (another process, or the previous "
             "slurmctld during a reconfigure)";
    case EADDRNOTAVAIL:
      return "address " + a.host + " is not on this machine";
    case EACCES:
      return "permission denied for port " + std::to_string(a.port) +
             " (ports below 1024 need CAP_NET_BIND_SERVICE)";
    case EAFNOSUPPORT:
      return "IPv6 is disabled on this machine";
    default:
      return std::strerror(err);
  }
}

int Listen(const BindAddress& a, int* err, int* port) {
  const bool v4 = a.family == BindAddress::Family::kIPv4;
  int fd = socket(v4 ? AF_INET : AF_INET6, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  bool use_v4 = v4;
  if (fd < 0 && a.family == BindAddress::Family::kAny && errno == EAFNOSUPPORT) {
    fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    use_v4 = true;
  }
  if (fd < 0) {
    *err = errno;
    return -1;
  }
  const int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_storage ss{};
  socklen_t len;
  if (use_v4) {
    auto* s = reinterpret_cast<sockaddr_in*>(&ss);
    s->sin_family = AF_INET;
    s->sin_port = htons(static_cast<uint16_t>(a.port));
    s->sin_addr.s_addr = htonl(INADDR_ANY);
    if (!a.host.empty()) inet_pton(AF_INET, a.host.c_str(), &s->sin_addr);
    len = sizeof *s;
  } else {
    auto* s = reinterpret_cast<sockaddr_in6*>(&ss);
    s->sin6_family = AF_INET6;
    s->sin6_port = htons(static_cast<uint16_t>(a.port));
    s->sin6_addr = in6addr_any;
    if (!a.host.empty()) inet_pton(AF_INET6, a.host.c_str(), &s->sin6_addr);
    // The wildcard takes IPv4 too, as Go's "[::]:port" and ":port" do.
    const int v6only = IN6_IS_ADDR_UNSPECIFIED(&s->sin6_addr) ? 0 : 1;
    setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &v6only, sizeof v6only);
    len = sizeof *s;
  }
  if (bind(fd, reinterpret_cast<sockaddr*>(&ss), len) != 0 || listen(fd, 128) != 0) {
    *err = errno;
    close(fd);
    return -1;
  }
  len = sizeof ss;
  getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len);
  *port = ntohs(ss.ss_family == AF_INET ? reinterpret_cast<sockaddr_in*>(&ss)->sin_port
                                        : reinterpret_cast<sockaddr_in6*>(&ss)->sin6_port);
  return fd;
}

IpAddress PeerAddress(const sockaddr_storage& ss) {
  IpAddress ip;
  if (ss.ss_family == AF_INET) {
    std::memcpy(ip.bytes.data(), &reinterpret_cast<const sockaddr_in*>(&ss)->sin_addr, 4);
    return ip;
  }
  const auto* a6 = &reinterpret_cast<const sockaddr_in6*>(&ss)->sin6_addr;
  if (IN6_IS_ADDR_V4MAPPED(a6)) {
    std::memcpy(ip.bytes.data(), a6->s6_addr + 12, 4);
    return ip;
  }
  ip.v6 = true;
  std::memcpy(ip.bytes.data(), a6->s6_addr, 16);
  return ip;
}

std::string PeerString(const IpAddress& ip) {
  char buf[INET6_ADDRSTRLEN] = {};
  inet_ntop(ip.v6 ? AF_INET6 : AF_INET, ip.bytes.data(), buf, sizeof buf);
  return buf;
}

}  // namespace http_loop

}  // namespace sm
