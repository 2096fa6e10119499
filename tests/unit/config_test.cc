// SPDX-License-Identifier: GPL-2.0-or-later
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>

#include "config/config_file.h"
#include "config/exporter_config.h"

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

// A variable whose key the file sets is not read: a bad value there is no
// error, so it cannot stop the exporter (docs/configuration.md).
TEST(Config, FileKeyMakesItsVariableIgnored) {
  const Loaded l = Load(
      "CollectionInterval=1m\n"
      "log-level = info\n"
      "DisabledFamilies=\n",
      {{"SLURM_EXPORTER_COLLECTION_INTERVAL", "1000y"},
       {"SLURM_EXPORTER_LOG_LEVEL", "info\x1b[2J"},
       {"SLURM_EXPORTER_DISABLED_FAMILIES", "slurm_no_such_family"},
       {"SLURM_EXPORTER_MAX_COLLECTOR_INFLIGHT", "3"}});
  EXPECT_TRUE(l.messages.empty());
  EXPECT_EQ(l.config.collection_interval, 60s);
  EXPECT_EQ(l.config.log_level, LogLevel::kInfo);
  EXPECT_EQ(l.config.max_collector_inflight, 3);  // not in the file: read
  // A bad value in the file is the file's error alone.
  const Loaded bad = Load("CollectionInterval=0\n",
                          {{"SLURM_EXPORTER_COLLECTION_INTERVAL", "1000y"}});
  ASSERT_EQ(bad.messages.size(), 1u);
  EXPECT_TRUE(bad.messages[0].text.starts_with("soperator_metrics.conf:1: invalid value \"0\""))
      << bad.messages[0].text;
  EXPECT_EQ(bad.config.collection_interval, 30s);
  // A file that is not text sets nothing: the variables are read.
  const Loaded binary = Load(std::string("CollectionInterval=1m\n\0", 23),
                             {{"SLURM_EXPORTER_COLLECTION_INTERVAL", "1000y"}});
  EXPECT_EQ(binary.messages.size(), 2u);
}

bool AnyError(const Loaded& l) {
  for (const ConfigMessage& m : l.messages)
    if (m.error) return true;
  return false;
}

// Every one of these is an error: the runtime then starts nothing.
TEST(Config, BadValuesAreErrors) {
  const Loaded l = Load(
      "CollectionInterval=often\n"
      "MaxCollectorInflight=0\n"
      "ListenerThreads=65\n"
      "LogLevel=loud\n"
      "JobSource=magic\n"
      "NoEquals\n"
      "Frobnicate=1\n"
      "SlurmApiServer=http://localhost:6820\n");
  ASSERT_EQ(l.messages.size(), 8u);
  const std::vector<std::string> expected = {
      "soperator_metrics.conf:1: invalid value \"often\" for "
      "CollectionInterval: accepted values are durations from 1s to 24h, "
      "e.g. 30s, 1m, 1m30s",
      "soperator_metrics.conf:2: invalid value \"0\" for "
      "MaxCollectorInflight: accepted values are whole numbers from 1 to 16",
      "soperator_metrics.conf:3: invalid value \"65\" for ListenerThreads: "
      "accepted values are whole numbers from 1 to 64",
      "soperator_metrics.conf:4: invalid value \"loud\" for LogLevel: "
      "accepted values are debug, info, warn, error",
      "soperator_metrics.conf:5: invalid value \"magic\" for JobSource: "
      "accepted values are controller or accounting",
      "soperator_metrics.conf:6: expected Key=Value, got \"NoEquals\"",
      "soperator_metrics.conf:7: unknown key \"Frobnicate\"",
      // Soperator's own options are not errors: a shared config stays valid.
      "soperator_metrics.conf:8: SlurmApiServer has no meaning inside "
      "slurmctld; ignored",
  };
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(l.messages[i].text, expected[i]);
    EXPECT_EQ(l.messages[i].error, i != 7) << i;
  }
}

// `1000y` used to be accepted: condition_variable::wait_for overflowed and
// the collector ran ~3,400 times a second under slurmctld's read locks.
TEST(Config, CollectionIntervalIsBounded) {
  for (const char* bad : {"1000y", "25h", "2d", "999ms", "0", "-1s", "0.5s"}) {
    const Loaded l = Load(std::string("CollectionInterval=") + bad + "\n");
    EXPECT_TRUE(AnyError(l)) << bad;
    EXPECT_EQ(l.config.collection_interval, 30s) << bad;
  }
  EXPECT_EQ(Load("CollectionInterval=24h\n").config.collection_interval, 24h);
  EXPECT_EQ(Load("CollectionInterval=1s\n").config.collection_interval, 1s);
  const Loaded env = Load(std::nullopt, {{"SLURM_EXPORTER_COLLECTION_INTERVAL", "1000y"}});
  ASSERT_EQ(env.messages.size(), 1u);
  EXPECT_EQ(env.messages[0].text,
            "environment SLURM_EXPORTER_COLLECTION_INTERVAL: invalid value "
            "\"1000y\" for CollectionInterval: accepted values are durations "
            "from 1s to 24h, e.g. 30s, 1m, 1m30s");
  EXPECT_TRUE(env.messages[0].error);
}

// 1 MB of random bytes gave 4,128 log lines of raw binary: now one line.
TEST(Config, BinaryFileIsOneError) {
  std::string garbage;
  uint32_t x = 12345;
  for (int i = 0; i < 1 << 20; ++i) {
    x = x * 1103515245 + 12345;
    garbage.push_back(static_cast<char>(x >> 16));
  }
  for (const std::string& file :
       {garbage, std::string("CollectionInterval=1m\nA=\0\n", 25),
        std::string("CollectionInterval=1m\n\xff\xfe=1\n")}) {
    const Loaded l = Load(file);
    ASSERT_EQ(l.messages.size(), 1u);
    EXPECT_TRUE(l.messages[0].error);
    EXPECT_TRUE(l.messages[0].text.starts_with("soperator_metrics.conf: not a text file ("))
        << l.messages[0].text;
    EXPECT_TRUE(l.messages[0].text.ends_with("); nothing in it was read"));
    EXPECT_EQ(l.config.collection_interval, 30s);  // the good line is not used
  }
  EXPECT_EQ(Load(std::string("A=\0\n", 4)).messages[0].text,
            "soperator_metrics.conf: not a text file (byte \\x00 on line 1); "
            "nothing in it was read");
  EXPECT_EQ(Load("A=1\n\xff\n").messages[0].text,
            "soperator_metrics.conf: not a text file (invalid UTF-8); nothing in "
            "it was read");
  const Loaded env = Load(std::nullopt, {{"SLURM_EXPORTER_LOG_LEVEL", "info\x1b[2J"}});
  ASSERT_EQ(env.messages.size(), 1u);
  EXPECT_EQ(env.messages[0].text,
            "environment SLURM_EXPORTER_LOG_LEVEL: not text (byte \\x1b on line 1)");
}

// Quoted values and keys are printable and short, whatever was written.
TEST(Config, MessagesQuotePrintableTruncatedText) {
  const Loaded l = Load("LogLevel=\xc3\xa9\xe2\x82\xac\nK\xc3\xa9y=1\nNativeValues=" +
                        std::string(1000, 'y') + "\n");
  ASSERT_EQ(l.messages.size(), 3u);
  EXPECT_EQ(l.messages[0].text,
            "soperator_metrics.conf:1: invalid value \"\\xc3\\xa9\\xe2\\x82\\xac\" "
            "for LogLevel: accepted values are debug, info, warn, error");
  EXPECT_EQ(l.messages[1].text, "soperator_metrics.conf:2: unknown key \"K\\xc3\\xa9y\"");
  EXPECT_EQ(l.messages[2].text,
            "soperator_metrics.conf:3: invalid value \"" + std::string(64, 'y') +
                "...\" for NativeValues: accepted values are yes or no");
}

// Soperator reads the lookback only for JobSource=accounting; so do we.
TEST(Config, LookbackCheckedOnlyForAccounting) {
  const Loaded controller = Load(
      std::nullopt, {{"SLURM_EXPORTER_JOB_SOURCE", "controller"},
                     {"SLURM_EXPORTER_ACCOUNTING_JOBS_LOOKBACK", "garbage"}});
  EXPECT_TRUE(controller.messages.empty());
  const Loaded bad = Load("JobSource=accounting\n",
                          {{"SLURM_EXPORTER_ACCOUNTING_JOBS_LOOKBACK", "garbage"}});
  ASSERT_EQ(bad.messages.size(), 1u);
  EXPECT_EQ(bad.messages[0].text,
            "environment SLURM_EXPORTER_ACCOUNTING_JOBS_LOOKBACK: invalid value "
            "\"garbage\" for AccountingJobsLookback: accepted values are "
            "durations from 1ms to 366d, e.g. 1h");
  EXPECT_TRUE(bad.messages[0].error);
  // The file's value beats the environment's, as for every key.
  const Loaded good = Load("JobSource=accounting\nAccountingJobsLookback=2h\n",
                           {{"SLURM_EXPORTER_ACCOUNTING_JOBS_LOOKBACK", "garbage"}});
  EXPECT_FALSE(AnyError(good));
  EXPECT_EQ(good.config.accounting_jobs_lookback, 2h);
}

// Served in-process (docs/configuration.md, "Finished jobs"): no warning.
TEST(Config, AccountingIsKept) {
  const Loaded l = Load("JobSource=Accounting\n");
  EXPECT_EQ(l.config.job_source, JobSource::kAccounting);
  EXPECT_TRUE(l.messages.empty());
  EXPECT_EQ(l.config.accounting_jobs_max, 100000);
  EXPECT_EQ(l.config.accounting_jobs_max_bytes, uint64_t{128} << 20);
}

TEST(Config, AccountingJobsBounds) {
  const Loaded l = Load("AccountingJobsMax=5000\nAccountingJobsMaxBytes=1G\n");
  EXPECT_FALSE(AnyError(l));
  EXPECT_EQ(l.config.accounting_jobs_max, 5000);
  EXPECT_EQ(l.config.accounting_jobs_max_bytes, uint64_t{1} << 30);
  EXPECT_EQ(Load("AccountingJobsMaxBytes=2097152\n").config.accounting_jobs_max_bytes,
            uint64_t{2} << 20);
  for (const char* bad : {"AccountingJobsMaxBytes=1023K\n", "AccountingJobsMaxBytes=65G\n",
                          "AccountingJobsMaxBytes=1.5G\n", "AccountingJobsMaxBytes=M\n",
                          "AccountingJobsMax=0\n"})
    EXPECT_TRUE(AnyError(Load(bad))) << bad;
  const Loaded m = Load("AccountingJobsMaxBytes=lots\n");
  ASSERT_EQ(m.messages.size(), 1u);
  EXPECT_EQ(m.messages[0].text,
            "soperator_metrics.conf:1: invalid value \"lots\" for "
            "AccountingJobsMaxBytes: accepted values are sizes from 1M to 64G, "
            "e.g. 128M");
}

TEST(Config, DisabledFamilies) {
  const Loaded l = Load("DisabledFamilies=slurm_node_job, slurm_job_info,\n");
  EXPECT_EQ(l.config.disabled_families,
            (std::vector<std::string>{"slurm_node_job", "slurm_job_info"}));
}

// A misspelt family would switch nothing off: it is an error (which stops
// the exporter, like any other bad value) naming the nearest family.
TEST(Config, DisabledFamiliesRefusesUnknownNames) {
  const Loaded l = Load("DisabledFamilies=slurm_node_job,slurm_job_inf\n");
  ASSERT_EQ(l.messages.size(), 1u);
  EXPECT_TRUE(l.messages[0].error);
  EXPECT_EQ(l.messages[0].text,
            "soperator_metrics.conf:1: invalid value "
            "\"slurm_node_job,slurm_job_inf\" for DisabledFamilies: unknown "
            "family slurm_job_inf (did you mean slurm_job_info?)");
  EXPECT_TRUE(l.config.disabled_families.empty());

  const Loaded far = Load(std::nullopt, {{"SLURM_EXPORTER_DISABLED_FAMILIES",
                                          "node_everything"}});
  ASSERT_EQ(far.messages.size(), 1u);
  EXPECT_TRUE(far.messages[0].error);
  EXPECT_TRUE(far.messages[0].text.ends_with(": unknown family node_everything"))
      << far.messages[0].text;

  // The self-monitoring families are checked too (disabled_families_test.cc).
  const Loaded self = Load("DisabledFamilies=slurm_exporter_render_seconds\n");
  ASSERT_EQ(self.messages.size(), 1u);
  EXPECT_TRUE(self.messages[0].text.find("unknown family slurm_exporter_render_seconds") !=
              std::string::npos)
      << self.messages[0].text;
}

// The cardinality switches: on by default (SckyzO's defaults), yes/no.
TEST(Config, CardinalitySwitches) {
  const Loaded defaults = Load(std::nullopt);
  EXPECT_TRUE(defaults.config.fairshare_user_metrics);
  EXPECT_TRUE(defaults.config.queue_user_label);
  EXPECT_TRUE(defaults.config.node_gres_metrics);
  const Loaded off = Load("FairshareUserMetrics=no\nQueueUserLabel=off\n",
                          {{"SLURM_EXPORTER_NODE_GRES_METRICS", "false"}});
  EXPECT_TRUE(off.messages.empty());
  EXPECT_FALSE(off.config.fairshare_user_metrics);
  EXPECT_FALSE(off.config.queue_user_label);
  EXPECT_FALSE(off.config.node_gres_metrics);
  const Loaded bad = Load("QueueUserLabel=maybe\n");
  ASSERT_EQ(bad.messages.size(), 1u);
  EXPECT_EQ(bad.messages[0].text,
            "soperator_metrics.conf:1: invalid value \"maybe\" for "
            "QueueUserLabel: accepted values are yes or no");
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
  // What the admin wrote is quoted escaped, as every config message is: it
  // ends up in slurmctld's log (config fuzz target).
  EXPECT_EQ(Bind("[\x1b[2J]:80"), "error: \"\\x1b[2J\" is not a literal IPv6 address");
  EXPECT_TRUE(Bind("a\rb:80").starts_with("error: \"a\\x0db\" is not a literal IPv4"));
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
  EXPECT_FALSE(ParseCidrList("10.0.0.0/8,10.0.\r0.0/8", &why));
  EXPECT_EQ(why, "\"10.0.\\x0d0.0\" is not an IPv4 or IPv6 address");
  EXPECT_FALSE(ParseCidrList("10.0.0.0/8\t9", &why));
  EXPECT_EQ(why, "\"10.0.0.0/8\\x099\": the prefix length must be 0 to 32");
}

// n * unit overflowed int64 (libFuzzer); now out of range is no duration.
TEST(Duration, OverflowIsNoDuration) {
  EXPECT_FALSE(ParseDuration("999999999999y"));
  EXPECT_FALSE(ParseDuration("106751991168d"));
  EXPECT_FALSE(ParseDuration("292471208y292471208y"));
  EXPECT_EQ(ParseDuration("292471208y"),
            std::chrono::milliseconds(292471208LL * 365 * 24 * 3600 * 1000));
  EXPECT_FALSE(ParseDuration("99999999999999999999h"));  // Go style: too large
  EXPECT_FALSE(ParseDuration("1.2.3s"));
}

// Only a regular file is read: a FIFO must not block slurmctld's start, a
// device or directory is refused, and so is a file over the size cap.
TEST(ConfigFile, OnlyRegularFilesAreRead) {
  char tmpl[] = "/tmp/sm-config-test.XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  const auto write = [](const std::string& path, const std::string& text) {
    std::ofstream(path) << text;
  };
  EXPECT_EQ(ReadConfigFile(dir + "/absent").state, ConfigFile::State::kMissing);

  write(dir + "/ok", "CollectionInterval=1m\n");
  const ConfigFile ok = ReadConfigFile(dir + "/ok");
  EXPECT_EQ(ok.state, ConfigFile::State::kRead);
  EXPECT_EQ(ok.text, "CollectionInterval=1m\n");

  ASSERT_EQ(mkfifo((dir + "/fifo").c_str(), 0600), 0);
  const auto t0 = std::chrono::steady_clock::now();
  const ConfigFile fifo = ReadConfigFile(dir + "/fifo");  // no writer: must not wait
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
  EXPECT_EQ(fifo.state, ConfigFile::State::kRefused);
  EXPECT_EQ(fifo.problem, "not a regular file (a FIFO)");

  EXPECT_EQ(ReadConfigFile(dir).problem, "not a regular file (a directory)");
  EXPECT_EQ(ReadConfigFile("/dev/zero").problem,
            "not a regular file (a character device)");

  write(dir + "/big", std::string(kMaxConfigFileBytes + 1, '#'));
  EXPECT_EQ(ReadConfigFile(dir + "/big").problem,
            "larger than 64 KiB (65537 bytes)");
  write(dir + "/cap", std::string(kMaxConfigFileBytes, '#'));
  EXPECT_EQ(ReadConfigFile(dir + "/cap").state, ConfigFile::State::kRead);

  // Any error other than ENOENT refuses (root reads mode 000 files, so a
  // symlink loop stands in for EACCES here).
  ASSERT_EQ(symlink((dir + "/loop").c_str(), (dir + "/loop").c_str()), 0);
  const ConfigFile loop = ReadConfigFile(dir + "/loop");
  EXPECT_EQ(loop.state, ConfigFile::State::kRefused);
  EXPECT_EQ(loop.problem, "cannot open: Too many levels of symbolic links");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace sm
