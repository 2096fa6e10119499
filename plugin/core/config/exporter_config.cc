// SPDX-License-Identifier: GPL-2.0-or-later
// Every configuration key: its name in the file and in the environment,
// and which values it takes (docs/configuration.md, "Keys").
#include <algorithm>
#include <cctype>

#include "config/config_options.h"
#include "serving/family_registry.h"
#include "base/go_parse.h"
#include "base/log.h"

namespace sm {
namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string SetString(std::string& field, std::string_view v) {
  field = std::string(v);
  return "";
}

std::string SetBool(bool& field, std::string_view v) {
  const std::string l = Lower(v);
  if (l == "yes" || l == "true" || l == "1" || l == "on") {
    field = true;
  } else if (l == "no" || l == "false" || l == "0" || l == "off") {
    field = false;
  } else {
    return "accepted values are yes or no";
  }
  return "";
}

std::string SetInt(int& field, std::string_view v, int min, int max) {
  const auto n = GoAtoi(TrimSpace(v));
  if (!n || *n < min || *n > max)
    return "accepted values are whole numbers from " + std::to_string(min) +
           " to " + std::to_string(max);
  field = static_cast<int>(*n);
  return "";
}

// A byte count: a whole number, optionally with K, M or G (powers of 1024).
std::string SetBytes(uint64_t& field, std::string_view v, uint64_t min,
                     uint64_t max) {
  std::string_view t = TrimSpace(v);
  uint64_t unit = 1;
  if (!t.empty()) {
    switch (t.back()) {
      case 'k': case 'K': unit = uint64_t{1} << 10; break;
      case 'm': case 'M': unit = uint64_t{1} << 20; break;
      case 'g': case 'G': unit = uint64_t{1} << 30; break;
      default: break;
    }
    if (unit != 1) t.remove_suffix(1);
  }
  const bool digits = !t.empty() && t.size() <= 12 &&
                      std::all_of(t.begin(), t.end(),
                                  [](char c) { return c >= '0' && c <= '9'; });
  const uint64_t count = digits ? std::stoull(std::string(t)) : 0;
  // Compared before multiplying: 12 digits times 1G would wrap.
  if (!digits || count > max / unit || count * unit < min)
    return "accepted values are sizes from 1M to 64G, e.g. 128M";
  field = count * unit;
  return "";
}

std::string SetBindAddress(std::string& field, std::string_view v) {
  std::string why;
  if (!ParseBindAddress(v, &why)) return why;
  field = std::string(TrimSpace(v));
  return "";
}

std::string SetCollectionInterval(Config& c, std::string_view v) {
  // Beyond a day the interval means "never", and far beyond it
  // condition_variable::wait_for overflows and returns at once.
  const auto d = ParseDuration(v);
  if (!d || *d < std::chrono::seconds(1) || *d > std::chrono::hours(24))
    return "accepted values are durations from 1s to 24h, e.g. 30s, 1m, 1m30s";
  c.collection_interval = *d;
  return "";
}

std::string SetMetricsBindAddress(Config& c, std::string_view v) {
  std::string err = SetBindAddress(c.metrics_bind_address, v);
  if (err.empty()) c.metrics_bind_address_set = true;
  return err;
}

std::string SetWebConfigFile(Config& c, std::string_view v) {
  // Read when the listeners start. slurmctld's working directory is
  // not the admin's: only absolute paths mean one file.
  const std::string_view path = TrimSpace(v);
  if (!path.empty() && path.front() != '/')
    return "must be an absolute path, e.g. /etc/slurm/web-config.yml";
  c.web_config_file = std::string(path);
  return "";
}

std::string SetAllowedNetworks(Config& c, std::string_view v) {
  std::string why;
  if (TrimSpace(v).empty()) {
    c.allowed_networks.clear();
    return why;
  }
  auto nets = ParseCidrList(v, &why);
  if (!nets)
    return why + "; accepted values are comma-separated networks, "
                 "e.g. 127.0.0.0/8,10.0.0.0/8,::1/128";
  c.allowed_networks = std::move(*nets);
  return why;
}

std::string SetLogLevel(Config& c, std::string_view v) {
  const std::string l = Lower(TrimSpace(v));
  if (l == "debug") c.log_level = LogLevel::kDebug;
  else if (l == "info") c.log_level = LogLevel::kInfo;
  else if (l == "warn") c.log_level = LogLevel::kWarn;
  else if (l == "error" || l == "dpanic" || l == "panic" || l == "fatal")
    c.log_level = LogLevel::kError;
  else
    return "accepted values are debug, info, warn, error";
  return "";
}

std::string SetJobSource(Config& c, std::string_view v) {
  const std::string l = Lower(TrimSpace(v));
  if (l.empty() || l == "controller") {
    c.job_source = JobSource::kController;
  } else if (l == "accounting") {
    c.job_source = JobSource::kAccounting;
  } else {
    return "accepted values are controller or accounting";
  }
  return "";
}

std::string SetLookback(Config& c, std::string_view v) {
  const auto d = ParseDuration(v);
  if (!d || d->count() <= 0 || *d > std::chrono::hours(24 * 366))
    return "accepted values are durations from 1ms to 366d, e.g. 1h";
  c.accounting_jobs_lookback = *d;
  return "";
}

// Why `name` cannot be disabled: not a family of the registry
// (family_registry.h), with the nearest one that is when it is close.
std::string UnknownFamily(std::string_view name) {
  std::string why = "unknown family " + Printable(name);
  if (const auto nearest = NearestFamily(name))
    why += " (did you mean " + std::string(*nearest) + "?)";
  return why;
}

// Comma-separated family names, each one a family some path serves: a
// misspelt name would otherwise switch nothing off, silently.
std::string SetFamilies(Config& c, std::string_view v) {
  std::vector<std::string> names;
  while (!v.empty()) {
    const size_t comma = v.find(',');
    const std::string_view name = TrimSpace(v.substr(0, comma));
    if (!name.empty()) {
      if (!IsKnownFamily(name)) return UnknownFamily(name);
      names.emplace_back(name);
    }
    v = comma == std::string_view::npos ? std::string_view()
                                         : v.substr(comma + 1);
  }
  c.disabled_families = std::move(names);
  return "";
}

// Soperator options that only make sense for a process talking to
// slurmrestd from outside.
constexpr const char* kOutOfProcessKeys[] = {
    "SlurmApiServer", "KubeconfigPath", "Standalone",
    "StaticToken",    "ScontrolPath",   "KeyRotationInterval"};

}  // namespace

std::string NormalizeKey(std::string_view key) {
  std::string out;
  for (char c : key) {
    if (c == '-' || c == '_') continue;
    out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  return out;
}

bool IsOutOfProcessKey(std::string_view key) {
  return std::any_of(std::begin(kOutOfProcessKeys), std::end(kOutOfProcessKeys),
                     [&](const char* k) { return NormalizeKey(k) == key; });
}

const std::vector<Option>& Options() {
  using C = Config&;
  using V = std::string_view;
  static const std::vector<Option> options = {
      {"ClusterName", "SLURM_EXPORTER_CLUSTER_NAME",
       [](C c, V v) { return SetString(c.cluster_name, v); }},
      {"ClusterNamespace", "SLURM_EXPORTER_CLUSTER_NAMESPACE",
       [](C c, V v) { return SetString(c.cluster_namespace, v); }},
      {"CollectionInterval", "SLURM_EXPORTER_COLLECTION_INTERVAL",
       SetCollectionInterval},
      {"MaxCollectorInflight", "SLURM_EXPORTER_MAX_COLLECTOR_INFLIGHT",
       [](C c, V v) { return SetInt(c.max_collector_inflight, v, 1, 16); }},
      {"MetricsBindAddress", "SLURM_EXPORTER_METRICS_BIND_ADDRESS",
       SetMetricsBindAddress, true},
      {"MonitoringBindAddress", "SLURM_EXPORTER_MONITORING_BIND_ADDRESS",
       [](C c, V v) { return SetBindAddress(c.monitoring_bind_address, v); }, true},
      {"WebConfigFile", "SLURM_EXPORTER_WEB_CONFIG_FILE", SetWebConfigFile, true},
      {"AllowedNetworks", "SLURM_EXPORTER_ALLOWED_NETWORKS", SetAllowedNetworks, true},
      {"LogLevel", "SLURM_EXPORTER_LOG_LEVEL", SetLogLevel},
      // slurmctld formats its own log; kept for compatibility only.
      {"LogFormat", "SLURM_EXPORTER_LOG_FORMAT",
       [](C c, V v) { return SetString(c.log_format, v); }},
      {"JobSource", "SLURM_EXPORTER_JOB_SOURCE", SetJobSource},
      {"AccountingJobsLookback", "SLURM_EXPORTER_ACCOUNTING_JOBS_LOOKBACK",
       SetLookback},
      {"AccountingJobsMax", "SLURM_EXPORTER_ACCOUNTING_JOBS_MAX",
       [](C c, V v) { return SetInt(c.accounting_jobs_max, v, 1, 10000000); }},
      {"AccountingJobsMaxBytes", "SLURM_EXPORTER_ACCOUNTING_JOBS_MAX_BYTES",
       [](C c, V v) {
         return SetBytes(c.accounting_jobs_max_bytes, v, uint64_t{1} << 20,
                         uint64_t{64} << 30);
       }},
      {"NativeValues", "SLURM_EXPORTER_NATIVE_VALUES",
       [](C c, V v) { return SetBool(c.native_values, v); }},
      {"IgnorePrivateData", "SLURM_EXPORTER_IGNORE_PRIVATE_DATA",
       [](C c, V v) { return SetBool(c.ignore_private_data, v); }},
      {"IncrementalRender", "SLURM_EXPORTER_INCREMENTAL_RENDER",
       [](C c, V v) { return SetBool(c.incremental_render, v); }},
      {"ListenerThreads", "SLURM_EXPORTER_LISTENER_THREADS",
       [](C c, V v) { return SetInt(c.listener_threads, v, 1, 64); }},
      {"FairshareUserMetrics", "SLURM_EXPORTER_FAIRSHARE_USER_METRICS",
       [](C c, V v) { return SetBool(c.fairshare_user_metrics, v); }},
      {"QueueUserLabel", "SLURM_EXPORTER_QUEUE_USER_LABEL",
       [](C c, V v) { return SetBool(c.queue_user_label, v); }},
      {"NodeInfoNodesetLabel", "SLURM_EXPORTER_NODE_INFO_NODESET_LABEL",
       [](C c, V v) { return SetBool(c.node_info_nodeset_label, v); }},
      {"NodeGresMetrics", "SLURM_EXPORTER_NODE_GRES_METRICS",
       [](C c, V v) { return SetBool(c.node_gres_metrics, v); }},
      {"DisabledFamilies", "SLURM_EXPORTER_DISABLED_FAMILIES",
       [](Config& c, std::string_view v) { return SetFamilies(c, v); }},
  };
  return options;
}

}  // namespace sm
