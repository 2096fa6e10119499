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

TEST(BindAddress, CivetwebSyntax) {
  EXPECT_EQ(CivetwebPorts(":8080"), "8080");
  EXPECT_EQ(CivetwebPorts("127.0.0.1:9100"), "127.0.0.1:9100");
  EXPECT_EQ(CivetwebPorts("localhost:9100"), "127.0.0.1:9100");
  EXPECT_EQ(CivetwebPorts("[::1]:8080"), "[::1]:8080");
  EXPECT_FALSE(CivetwebPorts("8080"));
  EXPECT_EQ(CivetwebPorts(":0"), "0");
  EXPECT_FALSE(CivetwebPorts(":70000"));
  EXPECT_FALSE(CivetwebPorts("example.org:80"));
  EXPECT_FALSE(CivetwebPorts("::1:80"));
}

}  // namespace
}  // namespace sm
