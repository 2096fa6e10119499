// SPDX-License-Identifier: GPL-2.0-or-later
// What the fuzz targets assert besides "no crash, no sanitizer report": a
// failed check prints what was wrong and aborts, so libFuzzer keeps the
// input as a crash artifact like any other crash.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace sm::fuzz {

[[noreturn]] inline void Fail(const char* what, std::string_view detail = {}) {
  std::fprintf(stderr, "fuzz check failed: %s", what);
  if (!detail.empty()) {
    const size_t shown = detail.size() < 400 ? detail.size() : 400;
    std::fprintf(stderr, ": \"%.*s\"%s", static_cast<int>(shown), detail.data(),
                 shown < detail.size() ? "..." : "");
  }
  std::fputc('\n', stderr);
  std::abort();
}

inline void Check(bool ok, const char* what, std::string_view detail = {}) {
  if (!ok) Fail(what, detail);
}

}  // namespace sm::fuzz
