// SPDX-License-Identifier: GPL-2.0-or-later
// LoadConfig: the file and the environment read into a Config, with a
// message for every value not taken (exporter_config.h).
#include <map>
#include <set>

#include "config/config_options.h"
#include "base/go_parse.h"
#include "base/log.h"
#include "base/utf8.h"

namespace sm {
namespace {

std::string_view StripQuotes(std::string_view v) {
  if (v.size() >= 2 && v.front() == '"' && v.back() == '"')
    return v.substr(1, v.size() - 2);
  return v;
}

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
    if (IsOutOfProcessKey(key)) {
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
