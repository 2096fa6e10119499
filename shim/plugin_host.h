// SPDX-License-Identifier: GPL-2.0-or-later
// Loads the real plugin the way slurmctld does (dlopen RTLD_LAZY, the
// plugin_name/plugin_type/plugin_version checks of src/common/plugin.c,
// init(), fini()), drives it offline, and reads its output over HTTP from
// its own HTTP listeners.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace shim {

// Plugin or HTTP trouble (not the input's fault): exit status 1.
class RuntimeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Endpoint {
  std::string host;  // "127.0.0.1", "::1"
  int port = 0;
  std::string str() const;  // "127.0.0.1:9000", "[::1]:9000"
};

// Parses host:port and refuses anything that is not a loopback address.
Endpoint ParseLoopback(const std::string& address, const char* what);
// A port nobody listens on right now.
int FreeLoopbackPort();

struct HttpResult {
  int status = 0;
  std::string content_type;
  std::string content_encoding;
  std::string body;  // as sent (still compressed under Content-Encoding)
};

HttpResult HttpGet(const Endpoint& e, const std::string& path,
                   const std::string& accept, bool gzip = false);

class PluginHost {
 public:
  // Writes slurm.conf and soperator_metrics.conf into a private directory,
  // points SLURM_CONF at it, dlopen()s `path` and checks its symbols.
  // `extra_conf` is copied first, so the listener lines always win.
  PluginHost(const std::string& path, const Endpoint& metrics,
             const Endpoint& monitoring, const std::string& extra_conf);
  ~PluginHost();
  PluginHost(const PluginHost&) = delete;
  PluginHost& operator=(const PluginHost&) = delete;

  // soperator_metrics_offline(virtual clocks), then init(); waits until
  // the main listener answers.
  void Init();
  // soperator_metrics_collect_now(): one synchronous collection.
  void Collect();
  // Fetches `path` from the main listener, or /metrics from the
  // monitoring listener for "/monitoring" (and "/monitoring/metrics").
  // `gzip`: with Accept-Encoding: gzip (the body stays compressed).
  HttpResult Fetch(const std::string& path, bool openmetrics, bool gzip = false);
  void Fini();

  const std::string& plugin_type() const { return type_; }
  // MetricsType=metrics/...: slurmctld serves the five paths itself.
  bool is_metrics() const { return metrics_type_; }

 private:
  // What slurmctld 25.11+ does for GET /metrics/<path>: parse -> dump ->
  // free_set, then xfree() the dumped buffer.
  HttpResult ServeLikeSlurmctld(const std::string& path);
  std::string path_;
  Endpoint metrics_, monitoring_;
  std::string dir_;
  void* handle_ = nullptr;
  std::string type_;
  int (*init_)() = nullptr;
  int (*fini_)() = nullptr;
  void (*offline_)(double (*)(), int64_t (*)()) = nullptr;
  int (*collect_now_)() = nullptr;
  bool initialised_ = false;
  // The metrics interface (src/interfaces/metrics.c's syms[]); the set is
  // opaque to slurmctld, the stats argument is its statistics struct.
  bool metrics_type_ = false;
  int (*dump_)(void* set, char** buf) = nullptr;
  int (*free_set_)(void* set) = nullptr;
  void* (*parse_jobs_)(void*) = nullptr;
  void* (*parse_nodes_)(void*) = nullptr;
  void* (*parse_parts_)(void*) = nullptr;
  void* (*parse_sched_)(void*) = nullptr;
  void* (*parse_ua_)(void*) = nullptr;
};

}  // namespace shim
