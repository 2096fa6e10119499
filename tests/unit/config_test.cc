// SPDX-License-Identifier: GPL-2.0-or-later
#include <gtest/gtest.h>

#include <map>

#include "exporter_config.h"

namespace sm {
namespace {

using namespace std::chrono_literals;

struct Loaded {
  Config config;
  std::vector<ConfigMessage> messages;
};

Loaded Load(std::optional<std::string> file,
            std::map<std::string, std::string> env = {}) {
  Loaded l;
  l.config = LoadConfig(file, "soperator_metrics.conf",
                        [&](const char* k) -> const char* {
                          auto it = env.find(k);
                          return it == env.end() ? nullptr : it->second.c_str();
                        },
                        l.messages);
  return l;
}

TEST(Config, SoperatorDefaults) {
  const Loaded l = Load(std::nullopt);
  EXPECT_TRUE(l.messages.empty());
  EXPECT_EQ(l.config.collection_interval, 30s);
  EXPECT_EQ(l.config.max_collector_inflight, 1);
  EXPECT_EQ(l.config.metrics_bind_address, ":8080");
  EXPECT_FALSE(l.config.metrics_bind_address_set);
  EXPECT_EQ(l.config.monitoring_bind_address, ":8081");
  EXPECT_EQ(l.config.cluster_namespace, "soperator");
  EXPECT_EQ(l.config.log_level, LogLevel::kDebug);
  EXPECT_EQ(l.config.job_source, JobSource::kController);
  EXPECT_EQ(l.config.accounting_jobs_lookback, 1h);
  EXPECT_FALSE(l.config.native_values);
}

TEST(Config, FileBeatsEnvironmentBeatsDefault) {
  const Loaded l = Load(
      "# comment\n"
      "CollectionInterval=1m  # trailing comment\n"
      "metrics-bind-address = \"127.0.0.1:9100\"\n"
      "NATIVEVALUES=yes\n",
      {{"SLURM_EXPORTER_COLLECTION_INTERVAL", "10s"},
       {"SLURM_EXPORTER_MAX_COLLECTOR_INFLIGHT", " 2 "},
       {"SLURM_EXPORTER_CLUSTER_NAME", ""}});
  EXPECT_TRUE(l.messages.empty());
  EXPECT_EQ(l.config.collection_interval, 60s);
  EXPECT_EQ(l.config.max_collector_inflight, 2);
  EXPECT_EQ(l.config.metrics_bind_address, "127.0.0.1:9100");
  EXPECT_TRUE(l.config.metrics_bind_address_set);
  EXPECT_TRUE(l.config.native_values);
  EXPECT_EQ(l.config.cluster_name, "");
}

TEST(Config, BadValuesAreReportedAndDefaultsKept) {
  const Loaded l = Load(
      "CollectionInterval=often\n"
      "MaxCollectorInflight=0\n"
      "MetricsBindAddress=somehost:80\n"
      "LogLevel=loud\n"
      "JobSource=magic\n"
      "NoEquals\n"
      "Frobnicate=1\n"
      "SlurmApiServer=http://localhost:6820\n");
  EXPECT_EQ(l.config.collection_interval, 30s);
  EXPECT_EQ(l.config.max_collector_inflight, 1);
  EXPECT_EQ(l.config.metrics_bind_address, ":8080");
  // ...but the listeners must not start on the default instead.
  EXPECT_EQ(l.config.listener_config_error,
            "soperator_metrics.conf:3: invalid MetricsBindAddress: \"somehost\" "
            "is not a literal IPv4 address (host names are not resolved; use an "
            "address of this machine, e.g. 127.0.0.1, or [::1] for IPv6)");
  EXPECT_EQ(l.config.log_level, LogLevel::kInfo);
  EXPECT_EQ(l.config.job_source, JobSource::kController);
  ASSERT_EQ(l.messages.size(), 8u);
  EXPECT_EQ(l.messages[0].text,
            "soperator_metrics.conf:1: invalid value \"often\" for "
            "CollectionInterval: accepted values are durations of at least "
            "1s, e.g. 30s, 1m, 1m30s");
  EXPECT_EQ(l.messages[1].text,
            "soperator_metrics.conf:2: invalid value \"0\" for "
            "MaxCollectorInflight: accepted values are whole numbers from 1 "
            "to 16");
  EXPECT_EQ(l.messages[4].text,
            "soperator_metrics.conf:5: invalid value \"magic\" for JobSource: "
            "unsupported job source \"magic\"; accepted values are controller "
            "or accounting");
  EXPECT_EQ(l.messages[5].text,
            "soperator_metrics.conf:6: expected Key=Value, got \"NoEquals\"");
  EXPECT_EQ(l.messages[6].text,
            "soperator_metrics.conf:7: unknown key \"Frobnicate\"; ignored");
  EXPECT_TRUE(l.messages[6].error);
  EXPECT_EQ(l.messages[7].text,
            "soperator_metrics.conf:8: SlurmApiServer has no meaning inside "
            "slurmctld; ignored");
  EXPECT_FALSE(l.messages[7].error);
}

TEST(Config, AccountingFallsBackToController) {
  const Loaded l = Load("JobSource=Accounting\n");
  EXPECT_EQ(l.config.job_source, JobSource::kController);
  ASSERT_EQ(l.messages.size(), 1u);
  EXPECT_FALSE(l.messages[0].error);
}

TEST(Config, DisabledFamilies) {
  const Loaded l = Load("DisabledFamilies=slurm_node_job, slurm_job_info,\n");
  EXPECT_EQ(l.config.disabled_families,
            (std::vector<std::string>{"slurm_node_job", "slurm_job_info"}));
}

TEST(Duration, PrometheusThenGo) {
  EXPECT_EQ(ParseDuration("30s"), 30s);
  EXPECT_EQ(ParseDuration("1d"), 24h);
  EXPECT_EQ(ParseDuration("2w"), 14 * 24h);
  EXPECT_EQ(ParseDuration("1h30m"), 90min);
  EXPECT_EQ(ParseDuration("1m500ms"), 60500ms);
  EXPECT_EQ(ParseDuration("0.5s"), 500ms);
  EXPECT_EQ(ParseDuration("2h45m30.5s"), 2h + 45min + 30500ms);
  EXPECT_EQ(ParseDuration("1500us"), 2ms);  // rounded to milliseconds
  EXPECT_EQ(ParseDuration("0"), 0ms);
  EXPECT_FALSE(ParseDuration(""));
  EXPECT_FALSE(ParseDuration("10"));
  EXPECT_FALSE(ParseDuration("s"));
  EXPECT_FALSE(ParseDuration("1x"));
  EXPECT_EQ(ParseDuration("1s1h"), 3601s);  // not Prometheus order; Go accepts
}

std::string Bind(std::string_view s) {
  std::string why;
  const auto a = ParseBindAddress(s, &why);
  if (!a) return "error: " + why;
  const char* family[] = {"any", "ipv4", "ipv6"};
  return std::string(family[static_cast<int>(a->family)]) + " " + a->host + " " +
         std::to_string(a->port) + " " + a->str();
}

TEST(BindAddress, LiteralAddressesOnly) {
  EXPECT_EQ(Bind(":8080"), "any  8080 :8080");
  EXPECT_EQ(Bind(" 127.0.0.1:9100 "), "ipv4 127.0.0.1 9100 127.0.0.1:9100");
  EXPECT_EQ(Bind("localhost:9100"), "ipv4 127.0.0.1 9100 127.0.0.1:9100");
  EXPECT_EQ(Bind("0.0.0.0:80"), "ipv4 0.0.0.0 80 0.0.0.0:80");
  EXPECT_EQ(Bind("[::1]:8080"), "ipv6 ::1 8080 [::1]:8080");
  EXPECT_EQ(Bind("[::]:8080"), "ipv6 :: 8080 [::]:8080");
  EXPECT_EQ(Bind("[fd00::1:2]:1"), "ipv6 fd00::1:2 1 [fd00::1:2]:1");
  EXPECT_EQ(Bind(":0"), "any  0 :0");
  EXPECT_EQ(Bind("8080"),
            "error: expected [address]:port, e.g. :8080, 127.0.0.1:8080 or [::1]:8080");
  EXPECT_EQ(Bind(":70000"), "error: the port must be a number from 0 to 65535");
  EXPECT_EQ(Bind(":+80"), "error: the port must be a number from 0 to 65535");
  EXPECT_EQ(Bind(":"), "error: the port must be a number from 0 to 65535");
  EXPECT_EQ(Bind("example.com:8080"),
            "error: \"example.com\" is not a literal IPv4 address (host names are "
            "not resolved; use an address of this machine, e.g. 127.0.0.1, or "
            "[::1] for IPv6)");
  EXPECT_TRUE(Bind("cafe:8080").starts_with("error: \"cafe\" is not a literal IPv4 address"));
  EXPECT_EQ(Bind("[]:80"), "error: empty brackets; write :80 to listen on every address");
  EXPECT_EQ(Bind("::1:80"), "error: write IPv6 addresses in brackets, e.g. [::1]:8080");
  EXPECT_EQ(Bind("[127.0.0.1]:80"), "error: \"127.0.0.1\" is not a literal IPv6 address");
  EXPECT_EQ(Bind("[::ffff:127.0.0.1]:80"),
            "error: \"::ffff:127.0.0.1\" is not a literal IPv6 address");
  EXPECT_EQ(Bind("[fe80::1%eth0]:80"),
            "error: \"fe80::1%eth0\" is not a literal IPv6 address");
  EXPECT_EQ(Bind("[::1:80"), "error: unbalanced brackets in \"[::1\"");
  EXPECT_TRUE(Bind("1.2.3:80").starts_with("error: \"1.2.3\" is not a literal IPv4 address"));
}

TEST(Config, ListenerOptionsFailClosed) {
  Loaded l = Load("WebConfigFile=/etc/slurm/web.yml\n"
                  "AllowedNetworks=127.0.0.0/8, ::1\n");
  EXPECT_TRUE(l.messages.empty());
  EXPECT_EQ(l.config.web_config_file, "/etc/slurm/web.yml");
  ASSERT_EQ(l.config.allowed_networks.size(), 2u);
  EXPECT_EQ(l.config.allowed_networks[1].str(), "::1/128");
  EXPECT_EQ(l.config.listener_config_error, "");

  l = Load("WebConfigFile=web.yml\n");
  EXPECT_EQ(l.config.listener_config_error,
            "soperator_metrics.conf:1: invalid WebConfigFile: must be an absolute "
            "path, e.g. /etc/slurm/web-config.yml");
  l = Load("AllowedNetworks=10.0.0.0/33\n");
  EXPECT_EQ(l.config.listener_config_error,
            "soperator_metrics.conf:1: invalid AllowedNetworks: \"10.0.0.0/33\": "
            "the prefix length must be 0 to 32; accepted values are "
            "comma-separated networks, e.g. 127.0.0.0/8,10.0.0.0/8,::1/128");
  // The file overrides a bad environment value.
  l = Load("MetricsBindAddress=127.0.0.1:9100\n",
           {{"SLURM_EXPORTER_METRICS_BIND_ADDRESS", "nowhere:1"},
            {"SLURM_EXPORTER_ALLOWED_NETWORKS", "10.1.2.3/8"}});
  EXPECT_EQ(l.config.listener_config_error, "");
  EXPECT_EQ(l.config.allowed_networks.at(0).str(), "10.0.0.0/8");
  l = Load(std::nullopt, {{"SLURM_EXPORTER_WEB_CONFIG_FILE", "relative"}});
  EXPECT_NE(l.config.listener_config_error, "");
}

TEST(Cidr, ParseAndMatch) {
  std::string why;
  const auto nets = ParseCidrList("127.0.0.0/8,10.1.0.0/16, ::1/128,fd00::/8,192.168.1.7", &why);
  ASSERT_TRUE(nets) << why;
  auto in = [&](const char* a) { return AnyContains(*nets, *ParseIpAddress(a)); };
  EXPECT_TRUE(in("127.0.0.1"));
  EXPECT_TRUE(in("127.255.0.9"));
  EXPECT_TRUE(in("::ffff:127.0.0.1"));  // an IPv4 peer on a dual-stack socket
  EXPECT_TRUE(in("10.1.255.255"));
  EXPECT_FALSE(in("10.2.0.1"));
  EXPECT_TRUE(in("::1"));
  EXPECT_FALSE(in("::2"));
  EXPECT_TRUE(in("fdff::1"));
  EXPECT_FALSE(in("fe00::1"));
  EXPECT_TRUE(in("192.168.1.7"));
  EXPECT_FALSE(in("192.168.1.8"));
  EXPECT_FALSE(in("128.0.0.1"));
  const auto odd = ParseCidr("10.1.2.3/9", &why);
  ASSERT_TRUE(odd);
  EXPECT_EQ(odd->str(), "10.0.0.0/9");
  EXPECT_TRUE(Contains(*odd, *ParseIpAddress("10.127.0.1")));
  EXPECT_FALSE(Contains(*odd, *ParseIpAddress("10.128.0.1")));
  EXPECT_TRUE(Contains(*ParseCidr("0.0.0.0/0", &why), *ParseIpAddress("1.2.3.4")));
  EXPECT_FALSE(Contains(*ParseCidr("0.0.0.0/0", &why), *ParseIpAddress("::1")));
  EXPECT_TRUE(Contains(*ParseCidr("::/0", &why), *ParseIpAddress("::1")));
  for (const char* bad : {"", "10.0.0.0/", "10.0.0.0/-1", "10.0.0.0/+8", "::/129",
                          "host/8", "10.0.0.0/8/8", "10.0.0.0 /8"}) {
    EXPECT_FALSE(ParseCidr(bad, &why)) << bad;
  }
  EXPECT_FALSE(ParseCidrList("10.0.0.0/8,,::1", &why));
  EXPECT_EQ(why, "empty entry in the list");
}

}  // namespace
}  // namespace sm
