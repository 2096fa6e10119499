// SPDX-License-Identifier: GPL-2.0-or-later
#include "base/hostlist.h"

#include <cstdint>
#include <optional>

#include "base/go_parse.h"
#include "exposition/number_format.h"

namespace sm {
namespace {

// fmt.Sprintf("%0*d", width, n)
void AppendPadded(std::string& out, int64_t n, size_t width) {
  std::string digits;
  AppendUint(digits, n < 0 ? 0 - static_cast<uint64_t>(n)
                           : static_cast<uint64_t>(n));
  size_t len = digits.size() + (n < 0 ? 1 : 0);
  if (n < 0) out.push_back('-');
  for (; len < width; ++len) out.push_back('0');
  out.append(digits);
}

// ^(.+)\[(.+)]$ with a greedy prefix: the rightmost '[' that leaves a
// non-empty range. '.' does not match a newline in Go's regexp.
bool MatchBracket(std::string_view piece, std::string_view& prefix,
                  std::string_view& range) {
  if (piece.size() < 4 || piece.back() != ']') return false;
  for (size_t p = piece.size() - 2; p >= 1; --p) {
    if (piece[p] != '[') continue;
    if (p + 1 > piece.size() - 2) continue;  // empty range
    prefix = piece.substr(0, p);
    range = piece.substr(p + 1, piece.size() - p - 2);
    return prefix.find('\n') == std::string_view::npos &&
           range.find('\n') == std::string_view::npos;
  }
  return false;
}

bool ExpandPiece(std::string_view piece, std::vector<std::string>& out) {
  std::string_view prefix, range;
  if (!MatchBracket(piece, prefix, range)) {
    out.emplace_back(piece);
    return true;
  }
  while (true) {
    const size_t comma = range.find(',');
    const std::string_view elem = TrimSpace(range.substr(0, comma));
    const size_t dash = elem.find('-');
    if (dash != std::string_view::npos) {
      const std::string_view lo_s = elem.substr(0, dash);
      const std::string_view hi_s = elem.substr(dash + 1);
      if (hi_s.find('-') != std::string_view::npos) return false;
      const auto lo = GoAtoi(lo_s), hi = GoAtoi(hi_s);
      if (!lo || !hi || *lo > *hi) return false;
      // In unsigned arithmetic: hi - lo and ++i overflowed int64 at the
      // ends of its range (n[9223372036854775806-9223372036854775807]
      // looped until bad_alloc).
      const uint64_t span = static_cast<uint64_t>(*hi) - static_cast<uint64_t>(*lo);
      if (span >= kMaxExpandedHosts || out.size() + span >= kMaxExpandedHosts)
        return false;
      for (uint64_t k = 0; k <= span; ++k) {
        std::string& host = out.emplace_back(prefix);
        AppendPadded(host, static_cast<int64_t>(static_cast<uint64_t>(*lo) + k),
                     lo_s.size());
      }
    } else {
      const auto n = GoAtoi(elem);
      if (!n || out.size() >= kMaxExpandedHosts) return false;
      std::string& host = out.emplace_back(prefix);
      AppendPadded(host, *n, elem.size());
    }
    if (comma == std::string_view::npos) return true;
    range.remove_prefix(comma + 1);
  }
}

}  // namespace

bool ExpandHostList(std::string_view list, std::vector<std::string>& out) {
  const size_t original = out.size();
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= list.size(); ++i) {
    if (i < list.size()) {
      if (list[i] == '[') ++depth;
      else if (list[i] == ']') --depth;
      if (list[i] != ',' || depth != 0) continue;
    }
    const std::string_view piece = TrimSpace(list.substr(start, i - start));
    start = i + 1;
    if (piece.empty()) continue;
    if (!ExpandPiece(piece, out) || out.size() > kMaxExpandedHosts) {
      out.resize(original);
      return false;
    }
  }
  return true;
}

}  // namespace sm
