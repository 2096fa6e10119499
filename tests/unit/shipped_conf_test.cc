// SPDX-License-Identifier: GPL-2.0-or-later
// The example soperator_metrics.conf the packages install, held to the
// parser it documents: what its comments say is what LoadConfig does
// (tests/packaging/test_docs.py holds its keys to docs/configuration.md).
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>

#include "config/exporter_config.h"

namespace sm {
namespace {

std::string Shipped() {
  std::ifstream in(SM_TEST_FIXTURES "/../../packaging/soperator_metrics.conf");
  std::stringstream s;
  s << in.rdbuf();
  EXPECT_FALSE(s.str().empty()) << "cannot read packaging/soperator_metrics.conf";
  return s.str();
}

Config Load(const std::optional<std::string>& file, std::vector<ConfigMessage>& messages,
            const EnvLookup& env = [](const char*) { return nullptr; }) {
  return LoadConfig(file, "soperator_metrics.conf", env, messages);
}

std::string Texts(const std::vector<ConfigMessage>& messages) {
  std::string out;
  for (const ConfigMessage& m : messages)
    out += (m.error ? "error: " : "warning: ") + m.text + "\n";
  return out;
}

// Every field a key sets, for comparing two configurations.
std::string Dump(const Config& c) {
  std::ostringstream o;
  o << c.cluster_name << '|' << c.cluster_namespace << '|'
    << c.collection_interval.count() << '|' << c.max_collector_inflight << '|'
    << c.metrics_bind_address << '|' << c.monitoring_bind_address << '|'
    << static_cast<int>(c.log_level) << '|' << c.log_format << '|'
    << static_cast<int>(c.job_source) << '|' << c.accounting_jobs_lookback.count()
    << '|' << c.native_values << '|' << c.ignore_private_data << '|'
    << c.listener_threads << '|' << c.disabled_families.size() << '|'
    << c.fairshare_user_metrics << '|' << c.queue_user_label << '|'
    << c.node_gres_metrics << '|' << c.node_info_nodeset_label << '|'
    << c.web_config_file << '|'
    << c.allowed_networks.size() << '|' << c.monitoring_conflicts << '|'
    << c.accounting_jobs_max << '|' << c.accounting_jobs_max_bytes;
  return o.str();
}

// "#Key=value" lines, each with the comment lines just above it.
struct Entry {
  std::string key, value, comment;
};
std::vector<Entry> Entries(const std::string& text) {
  std::vector<Entry> out;
  std::string comment;
  std::istringstream in(text);
  static const std::regex kKey(R"(^#([A-Za-z]+)=(.*)$)");
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_match(line, m, kKey)) {
      out.push_back({m[1], m[2], comment});
    } else if (line.rfind("# ", 0) == 0 || line == "#") {
      comment += line.substr(1) + "\n";
    } else if (line.empty()) {
      comment.clear();
    }
  }
  return out;
}

std::string Uncommented(const std::string& text) {
  return std::regex_replace(text, std::regex(R"((^|\n)#([A-Za-z]+=))"), "$1$2");
}

TEST(ShippedConf, AsShippedSetsNothing) {
  std::vector<ConfigMessage> none, shipped;
  const Config defaults = Load(std::nullopt, none);
  const Config c = Load(Shipped(), shipped);
  EXPECT_EQ(Texts(shipped), "");
  EXPECT_EQ(Dump(c), Dump(defaults));
}

// "Every line below is commented out and shows the default."
TEST(ShippedConf, EveryCommentedLineShowsTheDefault) {
  const std::string text = Shipped();
  ASSERT_GE(Entries(text).size(), 15u);
  std::vector<ConfigMessage> none, uncommented;
  const Config defaults = Load(std::nullopt, none);
  const Config c = Load(Uncommented(text), uncommented);
  EXPECT_EQ(Texts(uncommented), "");
  EXPECT_EQ(Dump(c), Dump(defaults));
}

// DisabledFamilies' example names real families, and the typo its comment
// warns of is the error it says.
TEST(ShippedConf, DisabledFamiliesExampleIsAccepted) {
  int examples = 0;
  for (const Entry& e : Entries(Shipped())) {
    if (e.key != "DisabledFamilies") continue;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(e.comment, m, std::regex(R"( (DisabledFamilies=\S+))")))
        << e.comment;
    ++examples;
    std::vector<ConfigMessage> msgs;
    EXPECT_EQ(Load(m[1].str() + "\n", msgs).disabled_families.size(), 2u);
    EXPECT_EQ(Texts(msgs), "");
    ASSERT_NE(e.comment.find("is an error naming the closest family"), std::string::npos);
    Load(m[1].str() + "s\n", msgs);  // slurm_job_infos
    EXPECT_NE(Texts(msgs).find("error: "), std::string::npos) << Texts(msgs);
    EXPECT_NE(Texts(msgs).find("(did you mean slurm_job_info?)"), std::string::npos)
        << Texts(msgs);
  }
  EXPECT_EQ(examples, 1);
}

// "(A to B)" in a key's comment: both ends are accepted, one step beyond
// either is an error.
TEST(ShippedConf, StatedRangesAreTheAcceptedOnes) {
  static const std::regex kRange(R"(\((\d+)(s|h)? to (\d+)(s|h)?\))");
  int ranges = 0;
  for (const Entry& e : Entries(Shipped())) {
    std::smatch m;
    if (!std::regex_search(e.comment, m, kRange)) continue;
    ++ranges;
    std::vector<std::pair<std::string, bool>> values;
    if (m[2].matched) {  // durations: one millisecond beyond is refused
      const auto unit = [](const std::string& u) { return u == "h" ? 3600000LL : 1000LL; };
      const long long lo = std::stoll(m[1]) * unit(m[2]), hi = std::stoll(m[3]) * unit(m[4]);
      values = {{m[1].str() + m[2].str(), true}, {m[3].str() + m[4].str(), true},
                {std::to_string(lo - 1) + "ms", false}, {std::to_string(hi + 1) + "ms", false}};
    } else {
      const long long lo = std::stoll(m[1]), hi = std::stoll(m[3]);
      values = {{std::to_string(lo), true}, {std::to_string(hi), true},
                {std::to_string(lo - 1), false}, {std::to_string(hi + 1), false}};
    }
    for (const auto& [value, ok] : values) {
      std::vector<ConfigMessage> msgs;
      Load(e.key + "=" + value + "\n", msgs);
      EXPECT_EQ(msgs.empty(), ok) << e.key << "=" << value << " (comment says " << m[0]
                                  << "):\n" << Texts(msgs);
    }
  }
  EXPECT_EQ(ranges, 4);  // CollectionInterval, MaxCollectorInflight, ListenerThreads,
                         // AccountingJobsMax
}

// "Each key can also be set through the environment variable named after
// it ... the file wins over the environment."
TEST(ShippedConf, EachKeyHasTheEnvironmentVariableNamedAfterIt) {
  for (const Entry& e : Entries(Shipped())) {
    std::string env = "SLURM_EXPORTER_";
    for (size_t i = 0; i < e.key.size(); ++i) {
      if (i > 0 && std::isupper(static_cast<unsigned char>(e.key[i]))) env += '_';
      env += static_cast<char>(std::toupper(static_cast<unsigned char>(e.key[i])));
    }
    // A control byte: an error naming the variable, if and only if read.
    std::vector<ConfigMessage> msgs;
    Load(std::nullopt, msgs, [&](const char* name) {
      return env == name ? "\x01" : nullptr;
    });
    ASSERT_EQ(msgs.size(), 1u) << e.key << ": " << env << " not read:\n" << Texts(msgs);
    EXPECT_TRUE(msgs[0].error);
    EXPECT_NE(msgs[0].text.find(env), std::string::npos) << msgs[0].text;
  }
  std::vector<ConfigMessage> msgs;
  const Config c = Load("CollectionInterval=20s\n", msgs, [](const char* name) {
    return std::string(name) == "SLURM_EXPORTER_COLLECTION_INTERVAL" ? "10s" : nullptr;
  });
  EXPECT_EQ(c.collection_interval, std::chrono::seconds(20));
}

// "Any error here (a bad or out-of-range value, an unknown key, a line
// without "=") stops the exporter": each is an error (runtime.cc starts
// nothing then; tests/packaging/test_troubleshooting.py shows it in a real
// slurmctld).
TEST(ShippedConf, StatedErrorsAreErrors) {
  const std::string text = Shipped();
  ASSERT_NE(text.find("Any error here (a bad or out-of-range value, an unknown key, a line\n"
                      "# without \"=\") stops the exporter"),
            std::string::npos);
  for (const char* bad : {"CollectionInterval=fast", "ListenerThreads=65",
                          "CollectionIntervall=30s", "CollectionInterval 30s"}) {
    std::vector<ConfigMessage> msgs;
    Load(text + bad + "\n", msgs);
    ASSERT_EQ(msgs.size(), 1u) << bad;
    EXPECT_TRUE(msgs[0].error) << bad << ": " << msgs[0].text;
  }
}

// The address pairs MonitoringBindAddress's comment names as taking the
// same port and address: each is a conflict, and the monitoring listener
// is not started.
TEST(ShippedConf, StatedBindConflictsAreConflicts) {
  for (const Entry& e : Entries(Shipped())) {
    if (e.key != "MonitoringBindAddress") continue;
    static const std::regex kPair(R"re("([^"]+)" and\s+"([^"]+)")re");
    int pairs = 0;
    for (std::sregex_iterator it(e.comment.begin(), e.comment.end(), kPair), end; it != end;
         ++it, ++pairs) {
      for (const auto& [metrics, monitoring] :
           {std::pair{(*it)[1].str(), (*it)[2].str()}, std::pair{(*it)[2].str(), (*it)[1].str()}}) {
        std::vector<ConfigMessage> msgs;
        const Config c = Load("MetricsBindAddress=" + metrics +
                                  "\nMonitoringBindAddress=" + monitoring + "\n",
                              msgs);
        EXPECT_TRUE(c.monitoring_conflicts) << metrics << " vs " << monitoring;
        ASSERT_EQ(msgs.size(), 1u) << Texts(msgs);
        EXPECT_FALSE(msgs[0].error);
        EXPECT_NE(msgs[0].text.find("the monitoring listener is not started"),
                  std::string::npos);
      }
    }
    EXPECT_EQ(pairs, 2);
    return;
  }
  FAIL() << "no #MonitoringBindAddress= line";
}

}  // namespace
}  // namespace sm
