// SPDX-License-Identifier: GPL-2.0-or-later
// libFuzzer target: the listener's request head parser
// (plugin/service/http/parser.h) on arbitrary bytes. Checks what the
// listener relies on: a complete head lies within the input and the 8 KiB
// limit, an error names a status the listener sends, no decoded path
// holds a NUL, and the input fed in two parts (as reads deliver it) gets
// the verdict of one call.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "http/parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  sm::http::RequestHead head;
  const sm::http::ParseResult r = sm::http::ParseRequestHead(in, &head);
  switch (r.status) {
    case sm::http::ParseResult::kComplete:
      if (r.consumed == 0 || r.consumed > in.size() || r.consumed > sm::http::kMaxHeadBytes)
        std::abort();
      if (head.path.find('\0') != std::string::npos || head.method.empty()) std::abort();
      if (head.asterisk != (head.path == "*" && head.method == "OPTIONS")) std::abort();
      if (!head.asterisk && head.path.front() != '/') std::abort();
      break;
    case sm::http::ParseResult::kError:
      if (r.error != 400 && r.error != 431 && r.error != 505) std::abort();
      break;
    case sm::http::ParseResult::kIncomplete:
      if (in.size() >= sm::http::kMaxHeadBytes) std::abort();  // must be 431
      break;
  }
  // The split point comes from the input itself, so the fuzzer explores it.
  const size_t split = size ? data[0] % (size + 1) : 0;
  sm::http::HeadParser parser;
  parser.Feed(in.substr(0, split));
  const sm::http::ParseResult again = parser.Feed(in);
  if (again.status != r.status || again.error != r.error || again.consumed != r.consumed)
    std::abort();
  if (r.status == sm::http::ParseResult::kComplete && parser.head().path != head.path)
    std::abort();
  return 0;
}
