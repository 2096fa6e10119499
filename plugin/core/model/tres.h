// SPDX-License-Identifier: GPL-2.0-or-later
// Soperator's ParseTrackableResources (Soperator exporter spec, section 4):
// cpu, mem and
// gres/gpu out of a TRES string such as "cpu=16,mem=191356M,gres/gpu=1".
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace sm {

struct Tres {
  int64_t cpus = 0;
  int64_t memory_bytes = 0;  // binary units: M = 1024^2
  int64_t gpus = 0;          // plain gres/gpu only; typed gres/gpu:x ignored
  bool has_gpus = false;     // the string had a gres/gpu key at all
};

// nullopt when a cpu, mem or gres/gpu value does not parse; Soperator then
// ignores the whole string.
std::optional<Tres> ParseTres(std::string_view s);

}  // namespace sm
