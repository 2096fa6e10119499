// SPDX-License-Identifier: GPL-2.0-or-later
// libFuzzer target: the exporter-toolkit web config parser
// (plugin/service/http/web_config.h) on arbitrary YAML. A verdict, never a crash
// or unbounded recursion; an accepted config keeps its invariants.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "http/web_config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  std::string error;
  const auto c = sm::ParseWebConfig(in, "/etc/slurm", &error);
  if (!c) {
    if (error.empty()) std::abort();
    return 0;
  }
  for (const auto& [user, hash] : c->users) {
    if (!sm::IsBcryptHash(hash)) std::abort();
  }
  if (c->tls.enabled && c->tls.min_version > c->tls.max_version) std::abort();
  for (const auto& [name, value] : c->headers) {
    for (unsigned char ch : value) {
      if (ch < 0x20 || ch == 0x7f) std::abort();  // no header injection
    }
  }
  return 0;
}
