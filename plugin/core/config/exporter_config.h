// SPDX-License-Identifier: GPL-2.0-or-later
// Configuration: the Soperator exporter's options that still mean something
// inside slurmctld, plus our own. Sources, strongest first: the file
// soperator_metrics.conf beside slurm.conf (Slurm-style Key=Value lines),
// then SLURM_EXPORTER_* environment variables, then Soperator's defaults.
// Nothing here stops slurmctld; but any error (a bad value, an unknown key,
// a file that is not text) keeps the exporter from starting at all: the
// caller fails closed when a message has `error` set.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

// The value parsers of the options, for the callers that read the same
// values (the listeners, config_check).
#include "config/bind_address.h"
#include "config/cidr.h"
#include "config/duration.h"
#include "base/log.h"

namespace sm {

enum class JobSource { kController, kAccounting };

struct Config {
  std::string cluster_name;  // default: slurm.conf ClusterName
  std::string cluster_namespace = "soperator";
  std::chrono::milliseconds collection_interval{30000};
  int max_collector_inflight = 1;
  std::string metrics_bind_address = ":8080";
  bool metrics_bind_address_set = false;  // given in the file or environment
  std::string monitoring_bind_address = ":8081";
  // MonitoringBindAddress claims a port on an address MetricsBindAddress
  // claims too (BindAddressesOverlap): the monitoring listener could never
  // bind, so it is not started (LoadConfig warns).
  bool monitoring_conflicts = false;
  LogLevel log_level = LogLevel::kDebug;
  std::string log_format = "json";
  JobSource job_source = JobSource::kController;
  std::chrono::milliseconds accounting_jobs_lookback{3600 * 1000};
  // Ours: bounds on the finished jobs JobSource=accounting keeps after
  // slurmctld purged them (docs/configuration.md, "Finished jobs").
  int accounting_jobs_max = 100000;
  uint64_t accounting_jobs_max_bytes = uint64_t{128} << 20;

  // Ours.
  bool native_values = false;  // reproduce metrics/openmetrics' values
  // Serve what slurm.conf's PrivateData hides to unauthenticated scrapers
  // too (an explicit choice; slurmctld 26.05's ignore_private_data).
  bool ignore_private_data = false;
  // Copy what did not change from the last render (docs/configuration.md,
  // IncrementalRender); no: write and compress every byte every time.
  bool incremental_render = true;
  int listener_threads = 4;
  std::vector<std::string> disabled_families;
  // Cardinality switches of the per-user and per-node accounting families
  // (docs/configuration.md): off drops series, never changes a value.
  bool fairshare_user_metrics = true;  // the slurm_user_fairshare* families
  bool queue_user_label = true;  // user label of slurm_{queue,cores}_pending
  bool node_gres_metrics = true;  // slurm_node_gres_total and _used
  // slurm_node_info with a nodeset_name label, as Soperator's open change
  // to it (docs/soperator.md): off until a Soperator release has it.
  bool node_info_nodeset_label = false;
  // Access control for both listeners (docs/configuration.md, Security).
  std::string web_config_file;        // exporter-toolkit web config; "" none
  std::vector<Cidr> allowed_networks;  // empty: every peer
  // Set when a listener option (bind address, web config, allowed
  // networks) was given but invalid: the listeners then do not start
  // rather than serve somewhere or someone the admin did not ask for.
  std::string listener_config_error;
};

struct ConfigMessage {
  bool error;  // false: a warning, the exporter starts
  std::string text;
};

using EnvLookup = std::function<const char*(const char*)>;

// `file` is the config file's content (nullopt when there is none);
// `file_name` only names it in messages.
Config LoadConfig(const std::optional<std::string>& file,
                  std::string_view file_name, const EnvLookup& env,
                  std::vector<ConfigMessage>& messages);

}  // namespace sm
