// SPDX-License-Identifier: GPL-2.0-or-later
// Durations as Soperator's flags take them (CollectionInterval,
// AccountingJobsLookback).
#pragma once

#include <chrono>
#include <optional>
#include <string_view>

namespace sm {

// Prometheus style first ("1d", "2w", "1h30m"), then Go style ("0.5s",
// "2h45m30.5s"), like Soperator's flag parser.
std::optional<std::chrono::milliseconds> ParseDuration(std::string_view s);

}  // namespace sm
