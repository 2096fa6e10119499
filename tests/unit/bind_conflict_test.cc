// SPDX-License-Identifier: GPL-2.0-or-later
// MetricsBindAddress against MonitoringBindAddress, compared as the
// listener binds them (docs/configuration.md, Keys): a pair that would take
// one port on one address is a conflict, whatever the spelling, and the
// monitoring listener is then not started instead of retrying for ever.
#include <gtest/gtest.h>

#include "config/exporter_config.h"

namespace sm {
namespace {

BindAddress Parse(const char* s) {
  std::string why;
  const auto a = ParseBindAddress(s, &why);
  EXPECT_TRUE(a) << s << ": " << why;
  return a ? *a : BindAddress{};
}

bool Overlap(const char* a, const char* b) {
  const bool ab = BindAddressesOverlap(Parse(a), Parse(b));
  EXPECT_EQ(ab, BindAddressesOverlap(Parse(b), Parse(a))) << a << " vs " << b;
  return ab;
}

TEST(BindConflict, SamePortOnASameAddressOverlaps) {
  for (const auto& [a, b] : std::vector<std::pair<const char*, const char*>>{
           {":8080", ":8080"},
           {":8080", "[::]:8080"},          // both every IPv6 and IPv4 address
           {":8080", "0.0.0.0:8080"},       // every IPv4 address in both
           {":8080", "127.0.0.1:8080"},     // the wildcard has it
           {":8080", "[::1]:8080"},
           {"[::]:8080", "0.0.0.0:8080"},   // [::] is dual-stack, like ":"
           {"[::]:8080", "10.0.0.5:8080"},
           {"0.0.0.0:8080", "10.0.0.5:8080"},
           {"localhost:8080", "127.0.0.1:8080"},
           {"[0:0::0]:8080", "[::]:8080"},  // one address, two spellings
           {"[::1]:8080", "[0::1]:8080"},
       })
    EXPECT_TRUE(Overlap(a, b)) << a << " vs " << b;
}

TEST(BindConflict, DistinctAddressesOrPortsDoNot) {
  for (const auto& [a, b] : std::vector<std::pair<const char*, const char*>>{
           {":8080", ":8081"},
           {"0.0.0.0:8080", "[::1]:8080"},  // IPv4 only vs one IPv6 address
           {"127.0.0.1:8080", "127.0.0.2:8080"},
           {"127.0.0.1:8080", "[::1]:8080"},
           {"[::1]:8080", "[fd00::5]:8080"},
           {":0", ":0"},  // any free port: never the same one
           {"127.0.0.1:0", "127.0.0.1:0"},
       })
    EXPECT_FALSE(Overlap(a, b)) << a << " vs " << b;
}

TEST(BindConflict, LoadConfigRefusesTheMonitoringListener) {
  std::vector<ConfigMessage> msgs;
  Config c = LoadConfig("MetricsBindAddress=:8080\nMonitoringBindAddress=[::]:8080\n", "f",
                        [](const char*) { return nullptr; }, msgs);
  EXPECT_TRUE(c.monitoring_conflicts);
  ASSERT_EQ(msgs.size(), 1u);
  EXPECT_FALSE(msgs[0].error);  // the metrics listener and the collector still start
  EXPECT_EQ(msgs[0].text,
            "MonitoringBindAddress [::]:8080 conflicts with MetricsBindAddress :8080 (port "
            "8080 on a same address); the monitoring listener is not started: its "
            "families are on the metrics listener at /metrics/soperator/monitoring");
  msgs.clear();
  c = LoadConfig("MetricsBindAddress=127.0.0.1:8080\nMonitoringBindAddress=[::1]:8080\n", "f",
                 [](const char*) { return nullptr; }, msgs);
  EXPECT_FALSE(c.monitoring_conflicts);
  EXPECT_TRUE(msgs.empty());
  // The defaults, :8080 and :8081, never conflict.
  c = LoadConfig(std::nullopt, "f", [](const char*) { return nullptr; }, msgs);
  EXPECT_FALSE(c.monitoring_conflicts);
  EXPECT_TRUE(msgs.empty());
}

}  // namespace
}  // namespace sm
