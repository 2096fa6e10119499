// SPDX-License-Identifier: GPL-2.0-or-later
// soperator_metrics.conf and the SLURM_EXPORTER_* variables through
// LoadConfig: whatever an admin (or a broken disk) puts there, the result
// is a Config slurmctld can run with, or an error that keeps the listeners
// from starting (regression input config/regress-interval-1000y: CollectionInterval=1000y spun slurmctld at
// 164% CPU; 1 MB of random bytes gave 4,128 log lines of raw binary).
//
// Input: byte 0 says which variables are set (bit i: kVars[i]; bit 7: no
// file at all); each set variable's value follows, up to a newline; the
// rest is the file.
#include <array>
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "config/exporter_config.h"
#include "fuzz_check.h"
#include "base/utf8.h"

using namespace sm;
using fuzz::Check;

namespace {

constexpr std::array<const char*, 7> kVars = {
    "SLURM_EXPORTER_COLLECTION_INTERVAL", "SLURM_EXPORTER_METRICS_BIND_ADDRESS",
    "SLURM_EXPORTER_LOG_LEVEL",           "SLURM_EXPORTER_MAX_COLLECTOR_INFLIGHT",
    "SLURM_EXPORTER_CLUSTER_NAME",        "SLURM_EXPORTER_JOB_SOURCE",
    "SLURM_EXPORTER_ALLOWED_NETWORKS"};

size_t Lines(std::string_view s) {
  size_t n = 1;
  for (char c : s) n += c == '\n';
  return n;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  const uint8_t set = data[0];
  std::map<std::string, std::string> env;
  for (size_t i = 0; i < kVars.size(); ++i) {
    if (!(set & (1u << i))) continue;
    const size_t nl = rest.find('\n');
    env[kVars[i]] = std::string(rest.substr(0, nl));
    rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
  }
  const std::optional<std::string> file =
      (set & 0x80) ? std::nullopt : std::optional<std::string>(rest);

  std::vector<ConfigMessage> messages;
  const Config c = LoadConfig(
      file, "soperator_metrics.conf",
      [&](const char* k) -> const char* {
        const auto it = env.find(k);
        // c_str() stops at a NUL: the process environment cannot hold one.
        return it == env.end() ? nullptr : it->second.c_str();
      },
      messages);

  // The ranges docs/configuration.md promises, whatever the input.
  using std::chrono::hours;
  using std::chrono::seconds;
  Check(c.collection_interval >= seconds(1) && c.collection_interval <= hours(24),
        "CollectionInterval outside 1s..24h");
  Check(c.max_collector_inflight >= 1 && c.max_collector_inflight <= 16,
        "MaxCollectorInflight outside 1..16");
  Check(c.listener_threads >= 1 && c.listener_threads <= 64,
        "ListenerThreads outside 1..64");
  Check(c.accounting_jobs_lookback.count() > 0 &&
            c.accounting_jobs_lookback <= hours(24 * 366),
        "AccountingJobsLookback outside 1ms..366d");
  Check(c.accounting_jobs_max >= 1 && c.accounting_jobs_max <= 10000000,
        "AccountingJobsMax outside 1..10000000");
  Check(c.accounting_jobs_max_bytes >= (uint64_t{1} << 20) &&
            c.accounting_jobs_max_bytes <= (uint64_t{64} << 30),
        "AccountingJobsMaxBytes outside 1M..64G");
  // Fail closed: either the listeners are told not to start, or both
  // addresses are ones they can bind as written.
  if (c.listener_config_error.empty()) {
    std::string why;
    Check(ParseBindAddress(c.metrics_bind_address, &why).has_value(),
          "unusable MetricsBindAddress kept", c.metrics_bind_address);
    Check(ParseBindAddress(c.monitoring_bind_address, &why).has_value(),
          "unusable MonitoringBindAddress kept", c.monitoring_bind_address);
  }
  // Messages go to slurmctld's log: printable, and at most one per
  // variable, one per line of the file and the two notes at the end; a
  // file that is not text is one message, however long.
  for (const ConfigMessage& m : messages) {
    Check(!m.text.empty(), "empty config message");
    Check(IsValidUtf8(m.text), "config message not UTF-8", m.text);
    for (unsigned char ch : m.text)
      Check(ch >= 0x20 && ch != 0x7f, "control byte in a config message", m.text);
  }
  const bool binary = file && file->find('\0') != std::string::npos;
  const size_t file_messages = !file ? 0 : binary ? 1 : Lines(*file);
  Check(messages.size() <= env.size() + file_messages + 2,
        "more config messages than inputs");
  return 0;
}
