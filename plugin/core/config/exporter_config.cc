// SPDX-License-Identifier: GPL-2.0-or-later
#include "config/exporter_config.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>

#include "serving/family_registry.h"
#include "base/go_parse.h"
#include "base/log.h"
#include "base/utf8.h"

namespace sm {
namespace {

using std::chrono::milliseconds;

// "CollectionInterval", "collection-interval" and "collection_interval"
// name the same key.
std::string NormalizeKey(std::string_view key) {
  std::string out;
  for (char c : key) {
    if (c == '-' || c == '_') continue;
    out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  return out;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Checked apart from the others (see LoadConfig).
constexpr const char* kLookbackKey = "AccountingJobsLookback";

// Returns an error text, or "" when the value was taken.
using Setter = std::function<std::string(Config&, std::string_view)>;

struct Option {
  const char* key;  // as documented (file)
  const char* env;  // nullptr: no environment variable
  Setter set;
  bool listener = false;  // invalid: no listener starts (fail closed)
};

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

const std::vector<Option>& Options() {
  static const std::vector<Option> options = {
      {"ClusterName", "SLURM_EXPORTER_CLUSTER_NAME",
       [](Config& c, std::string_view v) {
         c.cluster_name = std::string(v);
         return std::string();
       }},
      {"ClusterNamespace", "SLURM_EXPORTER_CLUSTER_NAMESPACE",
       [](Config& c, std::string_view v) {
         c.cluster_namespace = std::string(v);
         return std::string();
       }},
      {"CollectionInterval", "SLURM_EXPORTER_COLLECTION_INTERVAL",
       [](Config& c, std::string_view v) {
         // Beyond a day the interval means "never", and far beyond it
         // condition_variable::wait_for overflows and returns at once.
         const auto d = ParseDuration(v);
         if (!d || *d < std::chrono::seconds(1) || *d > std::chrono::hours(24))
           return std::string(
               "accepted values are durations from 1s to 24h, e.g. 30s, 1m, "
               "1m30s");
         c.collection_interval = *d;
         return std::string();
       }},
      {"MaxCollectorInflight", "SLURM_EXPORTER_MAX_COLLECTOR_INFLIGHT",
       [](Config& c, std::string_view v) {
         return SetInt(c.max_collector_inflight, v, 1, 16);
       }},
      {"MetricsBindAddress", "SLURM_EXPORTER_METRICS_BIND_ADDRESS",
       [](Config& c, std::string_view v) {
         std::string err = SetBindAddress(c.metrics_bind_address, v);
         if (err.empty()) c.metrics_bind_address_set = true;
         return err;
       },
       true},
      {"MonitoringBindAddress", "SLURM_EXPORTER_MONITORING_BIND_ADDRESS",
       [](Config& c, std::string_view v) {
         return SetBindAddress(c.monitoring_bind_address, v);
       },
       true},
      {"WebConfigFile", "SLURM_EXPORTER_WEB_CONFIG_FILE",
       [](Config& c, std::string_view v) {
         // Read when the listeners start. slurmctld's working directory is
         // not the admin's: only absolute paths mean one file.
         const std::string_view path = TrimSpace(v);
         if (!path.empty() && path.front() != '/')
           return std::string("must be an absolute path, e.g. "
                              "/etc/slurm/web-config.yml");
         c.web_config_file = std::string(path);
         return std::string();
       },
       true},
      {"AllowedNetworks", "SLURM_EXPORTER_ALLOWED_NETWORKS",
       [](Config& c, std::string_view v) {
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
       },
       true},
      {"LogLevel", "SLURM_EXPORTER_LOG_LEVEL",
       [](Config& c, std::string_view v) {
         const std::string l = Lower(TrimSpace(v));
         if (l == "debug") c.log_level = LogLevel::kDebug;
         else if (l == "info") c.log_level = LogLevel::kInfo;
         else if (l == "warn") c.log_level = LogLevel::kWarn;
         else if (l == "error" || l == "dpanic" || l == "panic" || l == "fatal")
           c.log_level = LogLevel::kError;
         else
           return std::string("accepted values are debug, info, warn, error");
         return std::string();
       }},
      {"LogFormat", "SLURM_EXPORTER_LOG_FORMAT",
       [](Config& c, std::string_view v) {
         // slurmctld formats its own log; kept for compatibility only.
         c.log_format = std::string(v);
         return std::string();
       }},
      {"JobSource", "SLURM_EXPORTER_JOB_SOURCE",
       [](Config& c, std::string_view v) {
         const std::string l = Lower(TrimSpace(v));
         if (l.empty() || l == "controller") {
           c.job_source = JobSource::kController;
         } else if (l == "accounting") {
           c.job_source = JobSource::kAccounting;
         } else {
           return std::string(
               "accepted values are controller or accounting");
         }
         return std::string();
       }},
      {"AccountingJobsLookback", "SLURM_EXPORTER_ACCOUNTING_JOBS_LOOKBACK",
       [](Config& c, std::string_view v) {
         const auto d = ParseDuration(v);
         if (!d || d->count() <= 0 || *d > std::chrono::hours(24 * 366))
           return std::string(
               "accepted values are durations from 1ms to 366d, e.g. 1h");
         c.accounting_jobs_lookback = *d;
         return std::string();
       }},
      {"AccountingJobsMax", "SLURM_EXPORTER_ACCOUNTING_JOBS_MAX",
       [](Config& c, std::string_view v) {
         return SetInt(c.accounting_jobs_max, v, 1, 10000000);
       }},
      {"AccountingJobsMaxBytes", "SLURM_EXPORTER_ACCOUNTING_JOBS_MAX_BYTES",
       [](Config& c, std::string_view v) {
         return SetBytes(c.accounting_jobs_max_bytes, v, uint64_t{1} << 20,
                         uint64_t{64} << 30);
       }},
      {"NativeValues", "SLURM_EXPORTER_NATIVE_VALUES",
       [](Config& c, std::string_view v) { return SetBool(c.native_values, v); }},
      {"IgnorePrivateData", "SLURM_EXPORTER_IGNORE_PRIVATE_DATA",
       [](Config& c, std::string_view v) {
         return SetBool(c.ignore_private_data, v);
       }},
      {"IncrementalRender", "SLURM_EXPORTER_INCREMENTAL_RENDER",
       [](Config& c, std::string_view v) {
         return SetBool(c.incremental_render, v);
       }},
      {"ListenerThreads", "SLURM_EXPORTER_LISTENER_THREADS",
       [](Config& c, std::string_view v) {
         return SetInt(c.listener_threads, v, 1, 64);
       }},
      {"FairshareUserMetrics", "SLURM_EXPORTER_FAIRSHARE_USER_METRICS",
       [](Config& c, std::string_view v) {
         return SetBool(c.fairshare_user_metrics, v);
       }},
      {"QueueUserLabel", "SLURM_EXPORTER_QUEUE_USER_LABEL",
       [](Config& c, std::string_view v) { return SetBool(c.queue_user_label, v); }},
      {"NodeGresMetrics", "SLURM_EXPORTER_NODE_GRES_METRICS",
       [](Config& c, std::string_view v) { return SetBool(c.node_gres_metrics, v); }},
      {"DisabledFamilies", "SLURM_EXPORTER_DISABLED_FAMILIES",
       [](Config& c, std::string_view v) { return SetFamilies(c, v); }},
  };
  return options;
}

// Soperator options that only make sense for a process talking to
// slurmrestd from outside.
constexpr const char* kOutOfProcessKeys[] = {
    "SlurmApiServer", "KubeconfigPath", "Standalone",
    "StaticToken",    "ScontrolPath",   "KeyRotationInterval"};

std::string_view StripQuotes(std::string_view v) {
  if (v.size() >= 2 && v.front() == '"' && v.back() == '"')
    return v.substr(1, v.size() - 2);
  return v;
}

// Prometheus model.ParseDuration: units y w d h m s ms, in that order,
// integers only; "0" alone is allowed.
std::optional<milliseconds> ParsePrometheusDuration(std::string_view s) {
  if (s == "0") return milliseconds(0);
  static const std::pair<std::string_view, int64_t> kUnits[] = {
      {"y", 365LL * 24 * 3600 * 1000}, {"w", 7LL * 24 * 3600 * 1000},
      {"d", 24LL * 3600 * 1000},       {"h", 3600LL * 1000},
      {"m", 60LL * 1000},              {"s", 1000},
      {"ms", 1}};
  if (s.empty()) return std::nullopt;
  int64_t total = 0;
  size_t next_unit = 0;
  while (!s.empty()) {
    size_t digits = 0;
    while (digits < s.size() && std::isdigit(static_cast<unsigned char>(s[digits])))
      ++digits;
    if (digits == 0 || digits > 12) return std::nullopt;
    const int64_t n = *GoAtoi(s.substr(0, digits));
    s.remove_prefix(digits);
    size_t u = next_unit;
    for (; u < std::size(kUnits); ++u) {
      const auto& unit = kUnits[u].first;
      // "m" must not swallow the "m" of "ms".
      if (s.starts_with(unit) && !(unit == "m" && s.starts_with("ms"))) break;
    }
    if (u == std::size(kUnits)) return std::nullopt;
    s.remove_prefix(kUnits[u].first.size());
    int64_t part;
    if (__builtin_mul_overflow(n, kUnits[u].second, &part) ||
        __builtin_add_overflow(total, part, &total))
      return std::nullopt;  // beyond ~292 million years: no duration
    next_unit = u + 1;
  }
  return milliseconds(total);
}

// Go time.ParseDuration: [-+]?([0-9]*(\.[0-9]*)?unit)+, units ns us µs ms
// s m h.
std::optional<milliseconds> ParseGoDuration(std::string_view s) {
  bool negative = false;
  if (!s.empty() && (s.front() == '-' || s.front() == '+')) {
    negative = s.front() == '-';
    s.remove_prefix(1);
  }
  if (s == "0") return milliseconds(0);
  if (s.empty()) return std::nullopt;
  static const std::pair<std::string_view, double> kUnits[] = {
      {"ns", 1e-6}, {"us", 1e-3}, {"\xC2\xB5s", 1e-3}, {"\xCE\xBCs", 1e-3},
      {"ms", 1},    {"s", 1e3},   {"m", 60e3},         {"h", 3600e3}};
  double total = 0;
  while (!s.empty()) {
    size_t i = 0;
    bool any_digit = false;
    int dots = 0;
    while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.')) {
      any_digit |= s[i] != '.';
      dots += s[i] == '.';
      ++i;
    }
    if (!any_digit || dots > 1) return std::nullopt;
    const double n = std::strtod(std::string(s.substr(0, i)).c_str(), nullptr);
    s.remove_prefix(i);
    const auto* best = static_cast<const std::pair<std::string_view, double>*>(nullptr);
    for (const auto& u : kUnits) {
      if (s.starts_with(u.first) && (!best || u.first.size() > best->first.size()))
        best = &u;
    }
    if (!best) return std::nullopt;
    s.remove_prefix(best->first.size());
    total += n * best->second;
  }
  if (negative) total = -total;
  if (!std::isfinite(total) || std::fabs(total) > 9.2e15) return std::nullopt;
  return milliseconds(static_cast<int64_t>(std::llround(total)));
}

}  // namespace

std::optional<milliseconds> ParseDuration(std::string_view s) {
  s = TrimSpace(s);
  if (auto d = ParsePrometheusDuration(s)) return d;
  return ParseGoDuration(s);
}

std::string BindAddress::str() const {
  const std::string p = ":" + std::to_string(port);
  if (family == Family::kIPv6) return "[" + host + "]" + p;
  return host + p;
}

std::optional<BindAddress> ParseBindAddress(std::string_view a, std::string* why) {
  a = TrimSpace(a);
  const size_t colon = a.rfind(':');
  if (colon == std::string_view::npos) {
    *why = "expected [address]:port, e.g. :8080, 127.0.0.1:8080 or [::1]:8080";
    return std::nullopt;
  }
  const std::string_view host = a.substr(0, colon);
  const std::string_view port = a.substr(colon + 1);
  const auto p = GoAtoi(port);
  if (!p || port.empty() || !std::isdigit(static_cast<unsigned char>(port[0])) ||
      *p > 65535) {
    *why = "the port must be a number from 0 to 65535";
    return std::nullopt;
  }
  BindAddress out;
  out.port = static_cast<int>(*p);
  if (host.empty()) return out;
  if (host.front() == '[') {
    if (host.size() < 2 || host.back() != ']') {
      *why = "unbalanced brackets in \"" + Printable(host) + "\"";
      return std::nullopt;
    }
    const std::string_view inner = host.substr(1, host.size() - 2);
    const auto ip = ParseIpAddress(inner);
    if (inner.empty()) {
      *why = "empty brackets; write :" + std::string(port) +
             " to listen on every address";
      return std::nullopt;
    }
    if (!ip || !ip->v6 || inner.find(':') == std::string_view::npos) {
      *why = "\"" + Printable(inner) + "\" is not a literal IPv6 address";
      return std::nullopt;
    }
    out.family = BindAddress::Family::kIPv6;
    out.host = std::string(inner);
    return out;
  }
  if (host.find(':') != std::string_view::npos) {
    *why = "write IPv6 addresses in brackets, e.g. [::1]:8080";
    return std::nullopt;
  }
  const std::string_view literal = host == "localhost" ? "127.0.0.1" : host;
  const auto ip = ParseIpAddress(literal);
  if (!ip || ip->v6 || literal.find(':') != std::string_view::npos) {
    *why = "\"" + Printable(host) +
           "\" is not a literal IPv4 address (host names are not resolved; "
           "use an address of this machine, e.g. 127.0.0.1, or [::1] for IPv6)";
    return std::nullopt;
  }
  out.family = BindAddress::Family::kIPv4;
  out.host = std::string(literal);
  return out;
}

namespace {

// The addresses a listener on `a` takes.
struct Claim {
  bool every_v4 = false;
  bool every_v6 = false;
  std::optional<IpAddress> one;
};

Claim ClaimOf(const BindAddress& a) {
  if (a.family == BindAddress::Family::kAny) return {true, true, std::nullopt};
  const std::optional<IpAddress> ip = ParseIpAddress(a.host);
  if (!ip) return {};  // not from ParseBindAddress: claims nothing known
  const bool unspecified =
      std::all_of(ip->bytes.begin(), ip->bytes.end(), [](uint8_t b) { return b == 0; });
  if (!unspecified) return {false, false, ip};
  // "[::]" is dual-stack like ":port" (IPV6_V6ONLY off); "0.0.0.0" IPv4 only.
  return {true, ip->v6, std::nullopt};
}

bool Covers(const Claim& c, const IpAddress& ip) {
  return ip.v6 ? c.every_v6 : c.every_v4;
}

}  // namespace

bool BindAddressesOverlap(const BindAddress& a, const BindAddress& b) {
  if (a.port == 0 || b.port == 0 || a.port != b.port) return false;
  const Claim x = ClaimOf(a), y = ClaimOf(b);
  if ((x.every_v4 && y.every_v4) || (x.every_v6 && y.every_v6)) return true;
  if (x.one && Covers(y, *x.one)) return true;
  if (y.one && Covers(x, *y.one)) return true;
  return x.one && y.one && x.one->v6 == y.one->v6 && x.one->bytes == y.one->bytes;
}

namespace {

template <class Apply>
void ParseFile(std::string_view rest, std::string_view file_name,
               const std::map<std::string, const Option*>& by_key,
               const Apply& apply, std::vector<ConfigMessage>& messages) {
  for (int line_no = 1; !rest.empty(); ++line_no) {
    const size_t nl = rest.find('\n');
    std::string_view line = rest.substr(0, nl);
    rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
    const size_t hash = line.find('#');
    if (hash != std::string_view::npos) line = line.substr(0, hash);
    line = TrimSpace(line);
    if (line.empty()) continue;
    const std::string where = std::string(file_name) + ":" + std::to_string(line_no);
    const size_t eq = line.find('=');
    if (eq == std::string_view::npos) {
      messages.push_back({true, where + ": expected Key=Value, got \"" +
                                    Printable(line) + "\""});
      continue;
    }
    const std::string_view raw_key = TrimSpace(line.substr(0, eq));
    const std::string key = NormalizeKey(raw_key);
    const std::string_view value = StripQuotes(TrimSpace(line.substr(eq + 1)));
    const auto it = by_key.find(key);
    if (it != by_key.end()) {
      apply(*it->second, value, where);
      continue;
    }
    const bool out_of_process = std::any_of(
        std::begin(kOutOfProcessKeys), std::end(kOutOfProcessKeys),
        [&](const char* k) { return NormalizeKey(k) == key; });
    if (out_of_process) {
      messages.push_back({false, where + ": " + Printable(raw_key) +
                                     " has no meaning inside slurmctld; ignored"});
    } else {
      messages.push_back({true, where + ": unknown key \"" + Printable(raw_key) +
                                    "\""});
    }
  }
}

// Why `text` cannot be a configuration file, or "": a NUL or other
// control byte, or invalid UTF-8, means binary data (reported once, not
// line by line).
std::string NotText(std::string_view text) {
  int line = 1;
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\n') ++line;
    if (c < 0x20 && c != '\n' && c != '\t' && c != '\r')
      return "byte " + Printable(text.substr(i, 1)) + " on line " +
             std::to_string(line);
    if (c == 0x7f) return "byte \\x7f on line " + std::to_string(line);
  }
  if (!IsValidUtf8(text)) return "invalid UTF-8";
  return "";
}

using ApplyValue = std::function<void(const Option&, std::string_view, const std::string&)>;

// The SLURM_EXPORTER_* variables, the lowest precedence: a variable whose
// key the file sets is not read at all, so a bad value there neither
// reports an error nor stops the exporter (docs/configuration.md).
void ReadEnvironment(const EnvLookup& env, const ApplyValue& apply,
                     const std::set<const Option*>& set_by_file,
                     std::vector<ConfigMessage>& messages) {
  for (const Option& o : Options()) {
    if (!o.env || set_by_file.count(&o)) continue;
    const char* v = env(o.env);
    if (!v || !*v) continue;
    const std::string where = std::string("environment ") + o.env;
    if (const std::string bad = NotText(v); !bad.empty()) {
      messages.push_back({true, where + ": not text (" + bad + ")"});
      continue;
    }
    apply(o, v, where);
  }
}

// AccountingJobsLookback, meaningful only with JobSource=accounting, is
// checked only then, as Soperator does.
void SettleJobSource(Config& config, const Option& lookback,
                     const std::optional<std::pair<std::string, std::string>>& value,
                     std::vector<ConfigMessage>& messages) {
  if (config.job_source != JobSource::kAccounting) return;
  if (value) {
    Config candidate = config;
    const std::string err = lookback.set(candidate, value->first);
    if (err.empty()) {
      config = std::move(candidate);
    } else {
      messages.push_back({true, value->second + ": invalid value \"" +
                                    Printable(value->first) + "\" for " +
                                    kLookbackKey + ": " + err});
    }
  }
}

// The two listeners compared as addresses, not as text (":8080" and
// "[::]:8080" are one socket).
void CheckBindConflict(Config& config, std::vector<ConfigMessage>& messages) {
  std::string why;
  const auto metrics = ParseBindAddress(config.metrics_bind_address, &why);
  const auto monitoring = ParseBindAddress(config.monitoring_bind_address, &why);
  if (!metrics || !monitoring || !BindAddressesOverlap(*metrics, *monitoring)) return;
  config.monitoring_conflicts = true;
  messages.push_back(
      {false, "MonitoringBindAddress " + config.monitoring_bind_address +
                  " conflicts with MetricsBindAddress " +
                  config.metrics_bind_address + " (port " +
                  std::to_string(metrics->port) +
                  " on a same address); the monitoring listener is not "
                  "started: its families are on the metrics listener at "
                  "/metrics/soperator/monitoring"});
}

}  // namespace

Config LoadConfig(const std::optional<std::string>& file,
                  std::string_view file_name, const EnvLookup& env,
                  std::vector<ConfigMessage>& messages) {
  Config config;
  std::map<std::string, const Option*> by_key;
  for (const Option& o : Options()) by_key[NormalizeKey(o.key)] = &o;

  std::map<std::string, std::string> listener_errors;
  // AccountingJobsLookback means something only with JobSource=accounting
  // (Soperator ignores it otherwise): checked at the end, if at all.
  const Option* lookback = by_key.at(NormalizeKey(kLookbackKey));
  std::optional<std::pair<std::string, std::string>> lookback_value;  // value, where

  const ApplyValue apply = [&](const Option& o, std::string_view value,
                          const std::string& source) {
    if (&o == lookback) {
      lookback_value.emplace(std::string(value), source);
      return;
    }
    Config candidate = config;
    const std::string err = o.set(candidate, value);
    if (!err.empty()) {
      messages.push_back({true, source + ": invalid value \"" +
                                    Printable(value) + "\" for " + o.key +
                                    ": " + err});
      if (o.listener) listener_errors[o.key] = source + ": invalid " + o.key + ": " + err;
      return;
    }
    listener_errors.erase(o.key);  // the file overrides a bad environment value
    config = std::move(candidate);
  };

  // The keys the file sets (its messages come with the real pass below):
  // their variables are ignored.
  const bool file_is_text = file && NotText(*file).empty();
  std::set<const Option*> set_by_file;
  if (file_is_text) {
    std::vector<ConfigMessage> ignored;
    ParseFile(*file, file_name, by_key,
              [&](const Option& o, std::string_view, const std::string&) {
                set_by_file.insert(&o);
              },
              ignored);
  }
  // Lowest precedence first: environment, then the file overrides it.
  ReadEnvironment(env, apply, set_by_file, messages);
  if (file) {
    if (!file_is_text) {
      messages.push_back({true, std::string(file_name) + ": not a text file (" +
                                    NotText(*file) + "); nothing in it was read"});
    } else {
      ParseFile(*file, file_name, by_key, apply, messages);
    }
  }
  if (!listener_errors.empty())
    config.listener_config_error = listener_errors.begin()->second;
  SettleJobSource(config, *lookback, lookback_value, messages);
  CheckBindConflict(config, messages);
  return config;
}

}  // namespace sm
