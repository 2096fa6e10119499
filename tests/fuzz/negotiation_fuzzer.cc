// SPDX-License-Identifier: GPL-2.0-or-later
// libFuzzer target: Accept and Accept-Encoding negotiation
// (plugin/core/exposition/negotiation.h) on arbitrary header values. Checks
// consistency a scraper can rely on: appending a refusal of gzip
// ("gzip;q=0" first) always means identity, and q-values parse into
// 0..1000 or are refused.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "exposition/negotiation.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  const sm::Format f = sm::NegotiateFormat(in);
  if (f != sm::Format::kText && f != sm::Format::kOpenMetrics) std::abort();
  (void)sm::NegotiateGzip(in);
  // The first mention of gzip counts: a leading refusal wins.
  if (sm::NegotiateGzip("gzip;q=0, " + std::string(in))) std::abort();
  const int q = sm::ParseQValue(in.substr(0, 8));
  if (q < -1 || q > 1000) std::abort();
  return 0;
}
