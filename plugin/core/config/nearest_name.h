// SPDX-License-Identifier: GPL-2.0-or-later
// "Did you mean": the closest of a list of known names to a misspelt one.
#pragma once

#include <optional>
#include <span>
#include <string_view>

namespace sm {

// Levenshtein distance, ASCII case ignored.
size_t EditDistance(std::string_view a, std::string_view b);

// The name in `known` at the smallest edit distance from `name` (the
// first of equals), when that distance is at most a third of `name`'s
// length and at most 4: beyond that a suggestion is a guess, not a typo.
std::optional<std::string_view> NearestName(
    std::string_view name, std::span<const std::string_view> known);

}  // namespace sm
