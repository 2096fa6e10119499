// SPDX-License-Identifier: GPL-2.0-or-later
// ASCII helpers for HTTP header syntax, where case folding and white space
// are ASCII-only by definition (RFC 9110 section 5.6).
#pragma once

#include <cctype>
#include <string_view>

namespace sm {

inline bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  }
  return true;
}

// Optional white space: spaces and horizontal tabs only.
inline std::string_view TrimOws(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace sm
