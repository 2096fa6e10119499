// SPDX-License-Identifier: GPL-2.0-or-later
// The configuration keys (exporter_config.cc), as LoadConfig (config_load.cc)
// reads them from the file and the environment.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "config/exporter_config.h"

namespace sm {

// Returns an error text, or "" when the value was taken.
using Setter = std::function<std::string(Config&, std::string_view)>;

struct Option {
  const char* key;  // as documented (file)
  const char* env;  // nullptr: no environment variable
  Setter set;
  bool listener = false;  // invalid: no listener starts (fail closed)
};

// Every key the file and the environment may set.
const std::vector<Option>& Options();

// Checked apart from the others (see LoadConfig).
inline constexpr const char* kLookbackKey = "AccountingJobsLookback";

// "CollectionInterval", "collection-interval" and "collection_interval"
// name the same key.
std::string NormalizeKey(std::string_view key);

// A Soperator key that means nothing inside slurmctld (ignored, with a
// warning); `key` normalized.
bool IsOutOfProcessKey(std::string_view key);

}  // namespace sm
