// SPDX-License-Identifier: GPL-2.0-or-later
// The two Go string helpers Soperator's parsers are built on, reproduced so
// that edge cases (signs, spaces, overflow) behave the same.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace sm {

// strconv.Atoi / ParseInt(s, 10, 64): optional sign, decimal digits only,
// no spaces; nullopt on any error including overflow.
std::optional<int64_t> GoAtoi(std::string_view s);

// strings.TrimSpace for ASCII white space.
std::string_view TrimSpace(std::string_view s);

}  // namespace sm
