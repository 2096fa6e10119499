// SPDX-License-Identifier: GPL-2.0-or-later
#include "config/nearest_name.h"

#include <algorithm>
#include <cctype>
#include <numeric>
#include <vector>

namespace sm {
namespace {

char Fold(char c) {
  return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
}

}  // namespace

size_t EditDistance(std::string_view a, std::string_view b) {
  // One row of the Wagner-Fischer table at a time.
  std::vector<size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), 0);
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      const size_t replace = diagonal + (Fold(a[i - 1]) == Fold(b[j - 1]) ? 0 : 1);
      row[j] = std::min({above + 1, row[j - 1] + 1, replace});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::optional<std::string_view> NearestName(
    std::string_view name, std::span<const std::string_view> known) {
  const size_t limit = std::min<size_t>(4, name.size() / 3);
  std::optional<std::string_view> best;
  size_t best_distance = limit + 1;
  for (std::string_view k : known) {
    // The distance is at least the difference in length: a value far
    // longer than any name (a pasted line) costs nothing.
    if (name.size() > k.size() + limit || k.size() > name.size() + limit)
      continue;
    const size_t d = EditDistance(name, k);
    if (d < best_distance) {
      best = k;
      best_distance = d;
    }
  }
  return best;
}

}  // namespace sm
