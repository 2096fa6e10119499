// SPDX-License-Identifier: GPL-2.0-or-later
#include "model/tres.h"

#include <cctype>

#include "base/go_parse.h"

namespace sm {
namespace {

std::optional<int64_t> ParseMemoryBytes(std::string_view v) {
  if (v.empty()) return std::nullopt;
  const char last = v.back();
  if (last >= '0' && last <= '9') return GoAtoi(v);  // bare number = bytes
  int shift;
  switch (std::tolower(static_cast<unsigned char>(last))) {
    case 'k': shift = 10; break;
    case 'm': shift = 20; break;
    case 'g': shift = 30; break;
    case 't': shift = 40; break;
    case 'p': shift = 50; break;
    default: return std::nullopt;
  }
  const auto n = GoAtoi(v.substr(0, v.size() - 1));
  if (!n) return std::nullopt;
  // Go's int64 multiply wraps on overflow; do the same, without UB.
  return static_cast<int64_t>(static_cast<uint64_t>(*n) << shift);
}

}  // namespace

std::optional<Tres> ParseTres(std::string_view s) {
  Tres out;
  while (true) {
    const size_t comma = s.find(',');
    const std::string_view piece = s.substr(0, comma);
    const size_t eq = piece.find('=');
    if (eq != std::string_view::npos) {
      const std::string_view key = TrimSpace(piece.substr(0, eq));
      const std::string_view value = TrimSpace(piece.substr(eq + 1));
      if (key == "cpu") {
        const auto n = GoAtoi(value);
        if (!n) return std::nullopt;
        out.cpus = *n;
      } else if (key == "mem") {
        const auto n = ParseMemoryBytes(value);
        if (!n) return std::nullopt;
        out.memory_bytes = *n;
      } else if (key == "gres/gpu") {
        const auto n = GoAtoi(value);
        if (!n) return std::nullopt;
        out.gpus = *n;
        out.has_gpus = true;
      }
    }
    if (comma == std::string_view::npos) break;
    s.remove_prefix(comma + 1);
  }
  return out;
}

}  // namespace sm
