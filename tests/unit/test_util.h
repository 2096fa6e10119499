// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "exposition.h"

namespace sm::testing {

inline std::string Render(MetricSet& set, Format f = Format::kText) {
  set.Seal();
  std::string out;
  set.Write(f, out);
  return out;
}

// The sample lines of one family (histogram lines included), in order.
inline std::vector<std::string> Samples(std::string_view text,
                                        std::string_view family) {
  std::vector<std::string> out;
  std::istringstream in{std::string(text)};
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(family, 0) != 0) continue;
    const std::string_view rest = std::string_view(line).substr(family.size());
    for (std::string_view suffix : {"", "_bucket", "_sum", "_count"}) {
      if (!rest.starts_with(suffix)) continue;
      const char next = rest.size() > suffix.size() ? rest[suffix.size()] : 0;
      if (next == '{' || next == ' ') {
        out.push_back(line);
        break;
      }
    }
  }
  return out;
}

}  // namespace sm::testing
