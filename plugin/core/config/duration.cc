// SPDX-License-Identifier: GPL-2.0-or-later
#include "config/duration.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <string>
#include <utility>

#include "base/go_parse.h"

namespace sm {
namespace {

using std::chrono::milliseconds;

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

}  // namespace sm
