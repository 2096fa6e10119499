// SPDX-License-Identifier: GPL-2.0-or-later
#include "base/utf8.h"

namespace sm {

size_t Utf8SequenceLength(std::string_view s, size_t i) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  if (b0 < 0x80) return 1;
  size_t len;
  unsigned char lo = 0x80, hi = 0xBF;  // range allowed for the second byte
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    len = 2;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    len = 3;
    if (b0 == 0xE0) lo = 0xA0;
    if (b0 == 0xED) hi = 0x9F;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    len = 4;
    if (b0 == 0xF0) lo = 0x90;
    if (b0 == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (i + len > s.size()) return 0;
  const auto b1 = static_cast<unsigned char>(s[i + 1]);
  if (b1 < lo || b1 > hi) return 0;
  for (size_t k = 2; k < len; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if (b < 0x80 || b > 0xBF) return 0;
  }
  return len;
}

bool IsValidUtf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    // ASCII fast path: most label values are plain ASCII.
    if (static_cast<unsigned char>(s[i]) < 0x80) {
      ++i;
      continue;
    }
    const size_t n = Utf8SequenceLength(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

void AppendRepairedUtf8(std::string& out, std::string_view s) {
  bool in_invalid_run = false;
  for (size_t i = 0; i < s.size();) {
    const size_t n = Utf8SequenceLength(s, i);
    if (n == 0) {
      if (!in_invalid_run) out.append("\xEF\xBF\xBD");
      in_invalid_run = true;
      ++i;
      continue;
    }
    in_invalid_run = false;
    out.append(s.data() + i, n);
    i += n;
  }
}

std::string_view TruncateCodePoints(std::string_view s, size_t max_code_points) {
  size_t count = 0;
  for (size_t i = 0; i < s.size();) {
    if (count == max_code_points) return s.substr(0, i);
    const size_t n = Utf8SequenceLength(s, i);
    i += n == 0 ? 1 : n;  // an invalid byte counts as one rune, like Go
    ++count;
  }
  return s;
}

}  // namespace sm
