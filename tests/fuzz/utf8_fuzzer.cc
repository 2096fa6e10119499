// SPDX-License-Identifier: GPL-2.0-or-later
// UTF-8 validation, repair and truncation of label values (user-controlled
// job names, reasons, comments), against a validator of the fuzz suite's
// own (exposition_check.h).
#include <fuzzer/FuzzedDataProvider.h>

#include "exposition_check.h"
#include "base/utf8.h"

using sm::fuzz::Check;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  const size_t max_points = in.ConsumeIntegralInRange<size_t>(0, 80);
  const std::string s = in.ConsumeRemainingBytesAsString();

  const bool valid = sm::IsValidUtf8(s);
  Check(valid == sm::fuzz::ValidUtf8(s), "IsValidUtf8 disagrees", s);

  std::string repaired = "prefix";
  sm::AppendRepairedUtf8(repaired, s);
  Check(repaired.starts_with("prefix"), "AppendRepairedUtf8 changed its prefix");
  const std::string_view added = std::string_view(repaired).substr(6);
  Check(sm::fuzz::ValidUtf8(added), "repair left invalid UTF-8", added);
  if (valid) Check(added == s, "repair changed valid UTF-8", s);

  const std::string_view cut = sm::TruncateCodePoints(s, max_points);
  Check(cut.data() == s.data() && cut.size() <= s.size(),
        "truncation is not a prefix", s);
  if (valid) {
    Check(sm::fuzz::ValidUtf8(cut), "truncation split a code point", s);
    size_t points = 0;
    for (char c : cut) points += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    Check(points <= max_points, "truncation kept too many code points", s);
    Check(points == max_points || cut.size() == s.size(),
          "truncation cut more than needed", s);
  }
  return 0;
}
