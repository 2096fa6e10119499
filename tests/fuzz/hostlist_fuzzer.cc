// SPDX-License-Identifier: GPL-2.0-or-later
// Soperator's host list expansion (slurm_node_job) on any node list.
// Regression input hostlist/regress-int64-max-range: n[9223372036854775806-9223372036854775807] overflowed ++i and
// looped until bad_alloc at 1.3 GB.
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_check.h"
#include "base/hostlist.h"

using sm::fuzz::Check;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // The cap bounds the host count, not the bytes: 2^20 copies of a long
  // prefix would pass -rss_limit_mb. A job's node list names nodes that
  // exist, so real prefixes are short; 256 bytes still covers every shape.
  if (size > 256) return 0;
  const std::string_view list(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> out = {"kept"};
  const bool ok = sm::ExpandHostList(list, out);
  Check(!out.empty() && out[0] == "kept", "existing entries changed", list);
  if (!ok) {
    Check(out.size() == 1, "a failed expansion left hosts behind", list);
    return 0;
  }
  Check(out.size() - 1 <= sm::kMaxExpandedHosts, "more hosts than the cap", list);
  // A host is a piece of the list, or a prefix from it plus a number
  // (sign, zero padding to the width written, at most 20 digits).
  for (size_t i = 1; i < out.size(); ++i)
    Check(out[i].size() <= list.size() + 21, "a host longer than its source",
          out[i]);
  return 0;
}
