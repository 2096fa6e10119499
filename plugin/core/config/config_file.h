// SPDX-License-Identifier: GPL-2.0-or-later
// Reading soperator_metrics.conf without letting the file hurt slurmctld:
// only a regular file is read (a FIFO would block slurmctld's start, a
// device could be endless), and only up to a size cap.
#pragma once

#include <cstddef>
#include <string>

namespace sm {

// A configuration file is a few hundred bytes; anything near this is not one.
inline constexpr size_t kMaxConfigFileBytes = 64 * 1024;

struct ConfigFile {
  enum class State {
    kMissing,  // ENOENT: defaults and environment apply
    kRead,     // `text` holds the whole file
    kRefused,  // unreadable, not a regular file or too big: `problem` says
  };
  State state = State::kMissing;
  std::string text;
  std::string problem;  // e.g. "not a regular file (a FIFO)"
};

ConfigFile ReadConfigFile(const std::string& path,
                          size_t max_bytes = kMaxConfigFileBytes);

}  // namespace sm
