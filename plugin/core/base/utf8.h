// SPDX-License-Identifier: GPL-2.0-or-later
// Label values come from user-controlled Slurm strings (job names, reasons,
// comments). Soperator panics on invalid UTF-8; we repair instead.
#pragma once

#include <string>
#include <string_view>

namespace sm {

bool IsValidUtf8(std::string_view s);

// Length of the valid UTF-8 sequence starting at s[i], or 0 when the bytes
// there are not one (overlong forms, surrogates and code points above
// U+10FFFF are invalid).
size_t Utf8SequenceLength(std::string_view s, size_t i);

// Appends s with every maximal invalid byte sequence replaced by U+FFFD.
void AppendRepairedUtf8(std::string& out, std::string_view s);

// Truncates to at most max_code_points code points, never splitting one
// (Soperator trims reservation names to 50 runes).
std::string_view TruncateCodePoints(std::string_view s, size_t max_code_points);

}  // namespace sm
