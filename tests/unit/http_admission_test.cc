// SPDX-License-Identifier: GPL-2.0-or-later
// What the listener's per-peer cap counts (docs/configuration.md, Listener
// limits): an IPv4 address exactly, an IPv6 address by its /64.
#include <gtest/gtest.h>

#include "config/cidr.h"
#include "http/listener.h"

namespace sm {
namespace {

std::string Key(const char* address) {
  const auto ip = ParseIpAddress(address);
  EXPECT_TRUE(ip) << address;
  return ip ? HttpListener::PeerKey(*ip) : "";
}

TEST(HttpAdmission, IPv4PeersAreExactAddresses) {
  EXPECT_EQ(Key("127.0.0.2"), "127.0.0.2");
  EXPECT_NE(Key("127.0.0.2"), Key("127.0.0.3"));
  // An IPv4-mapped IPv6 peer (a dual-stack listener) is its IPv4 address.
  EXPECT_EQ(Key("::ffff:10.1.2.3"), "10.1.2.3");
}

TEST(HttpAdmission, IPv6PeersShareTheirSlash64) {
  EXPECT_EQ(Key("2001:db8:1:2::1"), "2001:db8:1:2::/64");
  EXPECT_EQ(Key("2001:db8:1:2:ffff:ffff:ffff:ffff"), Key("2001:db8:1:2::1"));
  EXPECT_NE(Key("2001:db8:1:3::1"), Key("2001:db8:1:2::1"));
  EXPECT_EQ(Key("::1"), "::/64");
}

}  // namespace
}  // namespace sm
