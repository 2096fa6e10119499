// SPDX-License-Identifier: GPL-2.0-or-later
// An exposition body checker written from the format documents, not from
// our encoder: Prometheus text format 0.0.4 and OpenMetrics 1.0 as far as
// our encoders use them (HELP, TYPE, samples without timestamps, # EOF).
// Used by the encoder and render fuzz targets as their oracle.
#pragma once

#include <set>
#include <string>
#include <string_view>

#include "fuzz_check.h"

// The checker is the oracle, not code under test: no coverage feedback
// from it (it would steer the fuzzer towards odd output instead of odd
// input, and its byte loops cost more than the encoders themselves).
#define SM_ORACLE __attribute__((no_sanitize("coverage")))

namespace sm::fuzz {

SM_ORACLE inline bool IsNameStart(char c, bool colon) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
         (colon && c == ':');
}
SM_ORACLE inline bool IsNameChar(char c, bool colon) {
  return IsNameStart(c, colon) || (c >= '0' && c <= '9');
}

// Consumes a metric (colon = true) or label name; false if none.
SM_ORACLE inline bool TakeName(std::string_view& s, bool colon, std::string_view* name) {
  if (s.empty() || !IsNameStart(s[0], colon)) return false;
  size_t n = 1;
  while (n < s.size() && IsNameChar(s[n], colon)) ++n;
  if (name) *name = s.substr(0, n);
  s.remove_prefix(n);
  return true;
}

// Full UTF-8 validation (no overlongs, no surrogates, <= U+10FFFF).
SM_ORACLE inline bool ValidUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    size_t n;
    unsigned cp;
    if (c < 0x80) { ++i; continue; }
    if (c >= 0xC2 && c <= 0xDF) { n = 2; cp = c & 0x1F; }
    else if (c >= 0xE0 && c <= 0xEF) { n = 3; cp = c & 0x0F; }
    else if (c >= 0xF0 && c <= 0xF4) { n = 4; cp = c & 0x07; }
    else return false;
    if (i + n > s.size()) return false;
    for (size_t k = 1; k < n; ++k) {
      const auto b = static_cast<unsigned char>(s[i + k]);
      if ((b & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (b & 0x3F);
    }
    if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10FFFF ||
        (cp >= 0xD800 && cp <= 0xDFFF))
      return false;
    i += n;
  }
  return true;
}

SM_ORACLE inline bool ValidValue(std::string_view v, bool openmetrics) {
  if (v == "NaN" || v == "+Inf" || v == "-Inf") return true;
  if (!openmetrics && v == "Inf") return true;
  if (v.empty()) return false;
  // A decimal or scientific float: [-+]?digits[.digits][e[-+]digits]
  size_t i = 0;
  if (v[i] == '-' || v[i] == '+') ++i;
  size_t digits = 0;
  while (i < v.size() && v[i] >= '0' && v[i] <= '9') ++i, ++digits;
  if (i < v.size() && v[i] == '.') {
    ++i;
    while (i < v.size() && v[i] >= '0' && v[i] <= '9') ++i, ++digits;
  }
  if (digits == 0) return false;
  if (i < v.size() && (v[i] == 'e' || v[i] == 'E')) {
    ++i;
    if (i < v.size() && (v[i] == '-' || v[i] == '+')) ++i;
    size_t exp = 0;
    while (i < v.size() && v[i] >= '0' && v[i] <= '9') ++i, ++exp;
    if (exp == 0) return false;
  }
  return i == v.size();
}

// Label value between quotes: only \\ \" \n escapes, no raw newline or
// unescaped quote. Returns false on malformed input.
SM_ORACLE inline bool TakeLabelValue(std::string_view& s) {
  if (s.empty() || s[0] != '"') return false;
  size_t i = 1;
  while (i < s.size()) {
    const char c = s[i];
    if (c == '"') {
      s.remove_prefix(i + 1);
      return true;
    }
    if (c == '\n') return false;
    if (c == '\\') {
      if (i + 1 >= s.size()) return false;
      const char e = s[i + 1];
      if (e != '\\' && e != '"' && e != 'n') return false;
      i += 2;
      continue;
    }
    ++i;
  }
  return false;
}

SM_ORACLE inline bool SampleBelongs(std::string_view sample, std::string_view family,
                          std::string_view type, bool openmetrics) {
  if (sample == family && !(openmetrics && type == "counter")) return true;
  if (!sample.starts_with(family)) return false;
  const std::string_view suffix = sample.substr(family.size());
  if (type == "histogram")
    return suffix == "_bucket" || suffix == "_sum" || suffix == "_count" ||
           (openmetrics && suffix == "_created");
  if (type == "counter" && openmetrics)
    return suffix == "_total" || suffix == "_created";
  return false;
}

// Aborts (via Fail) unless `body` is a well-formed exposition.
SM_ORACLE inline void CheckExposition(std::string_view body, bool openmetrics) {
  Check(ValidUtf8(body), "body is not valid UTF-8");
  if (body.empty()) {
    Check(!openmetrics, "OpenMetrics body without # EOF");
    return;
  }
  Check(body.back() == '\n', "body does not end with a newline");
  std::string_view family, type;
  std::set<std::string, std::less<>> typed;
  bool eof = false;
  while (!body.empty()) {
    const size_t nl = body.find('\n');
    std::string_view line = body.substr(0, nl);
    body.remove_prefix(nl + 1);
    Check(!eof, "lines after # EOF", line);
    if (line == "# EOF") {
      Check(openmetrics, "# EOF in a text-format body");
      eof = true;
      continue;
    }
    if (line.starts_with("# ")) {
      std::string_view rest = line.substr(2);
      const bool help = rest.starts_with("HELP ");
      const bool is_type = rest.starts_with("TYPE ");
      const bool unit = rest.starts_with("UNIT ");
      if (!help && !is_type && !unit) {
        Check(!openmetrics, "unknown # line in OpenMetrics", line);
        continue;  // a comment in text format
      }
      rest.remove_prefix(5);
      std::string_view name;
      Check(TakeName(rest, true, &name), "metadata line without a name", line);
      if (is_type) {
        Check(rest.starts_with(' '), "TYPE without a type", line);
        type = rest.substr(1);
        Check(type == "gauge" || type == "counter" || type == "histogram" ||
                  type == "untyped" || type == "unknown" || type == "summary",
              "unknown TYPE", line);
        Check(typed.insert(std::string(name)).second,
              "two TYPE lines for one family", line);
        family = name;
      } else if (help) {
        Check(rest.empty() || rest[0] == ' ', "HELP name not followed by space", line);
        // Help text escapes: \\ and \n (text), plus \" (OpenMetrics).
        for (size_t i = 0; i < rest.size(); ++i) {
          if (rest[i] != '\\') continue;
          Check(i + 1 < rest.size() &&
                    (rest[i + 1] == '\\' || rest[i + 1] == 'n' ||
                     (openmetrics && rest[i + 1] == '"')),
                "bad escape in HELP", line);
          ++i;
        }
      }
      continue;
    }
    Check(!line.empty(), "empty line");
    std::string_view rest = line, name;
    Check(TakeName(rest, true, &name), "sample without a metric name", line);
    Check(!family.empty() && SampleBelongs(name, family, type, openmetrics),
          "sample outside its family", line);
    std::set<std::string_view> labels;
    if (rest.starts_with('{')) {
      rest.remove_prefix(1);
      while (!rest.starts_with('}')) {
        std::string_view label;
        Check(TakeName(rest, false, &label), "bad label name", line);
        Check(labels.insert(label).second, "repeated label name", line);
        Check(rest.starts_with('='), "label without =", line);
        rest.remove_prefix(1);
        Check(TakeLabelValue(rest), "bad label value", line);
        if (rest.starts_with(',')) {
          rest.remove_prefix(1);
          Check(!rest.starts_with('}') || !openmetrics,
                "trailing comma in OpenMetrics labels", line);
        } else {
          Check(rest.starts_with('}'), "labels not closed", line);
        }
      }
      rest.remove_prefix(1);
    }
    Check(rest.starts_with(' '), "no space before the value", line);
    rest.remove_prefix(1);
    Check(ValidValue(rest, openmetrics), "bad sample value", line);
  }
  Check(eof == openmetrics, "OpenMetrics body must end with # EOF");
}

}  // namespace sm::fuzz
