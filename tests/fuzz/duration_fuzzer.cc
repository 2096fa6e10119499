// SPDX-License-Identifier: GPL-2.0-or-later
// ParseDuration (Prometheus, then Go duration syntax) on any text. UBSan
// is the main oracle: the regression inputs' `n * unit` overflowed int64 for
// 999999999999y; the checks below are what callers rely on besides.
#include <chrono>
#include <string>
#include <string_view>

#include "config/exporter_config.h"
#include "fuzz_check.h"

using sm::fuzz::Check;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view s(reinterpret_cast<const char*>(data), size);
  const auto d = sm::ParseDuration(s);
  // Surrounding spaces never change the result (config values are trimmed
  // in one place, environment values are not).
  Check(sm::ParseDuration(" " + std::string(s) + "\t") == d,
        "surrounding whitespace changes the duration", s);
  if (!d) return 0;
  // Only Go syntax has a sign: a negative duration starts with '-'.
  const size_t first = s.find_first_not_of(" \t\r\n\v\f");
  if (d->count() < 0)
    Check(first != std::string_view::npos && s[first] == '-',
          "negative duration without a minus sign", s);
  // "0", or at least one digit: nothing else is a duration.
  Check(s.find_first_of("0123456789") != std::string_view::npos,
        "a duration without digits", s);
  return 0;
}
