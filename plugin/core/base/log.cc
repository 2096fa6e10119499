// SPDX-License-Identifier: GPL-2.0-or-later
#include "base/log.h"

#include <atomic>
#include <cstdio>

namespace sm {
namespace {

void StderrSink(LogLevel level, const char* message) {
  static const char* const kNames[] = {"debug", "info", "warn", "error"};
  std::fprintf(stderr, "soperator-metrics %s: %s\n",
               kNames[static_cast<int>(level)], message);
}

// Atomic: a collection thread a stop did not wait for may still log while
// the runtime sets the sink again (docs/architecture.md, "Stopping").
std::atomic<LogSink> g_sink{StderrSink};
std::atomic<LogLevel> g_threshold{LogLevel::kInfo};

}  // namespace

void SetLogSink(LogSink sink, LogLevel threshold) {
  g_sink.store(sink ? sink : StderrSink);
  g_threshold.store(threshold);
}

void Log(LogLevel level, std::string_view message) {
  if (level < g_threshold.load()) return;
  const std::string copy(message);  // sinks take C strings
  g_sink.load()(level, copy.c_str());
}

void LogNotice(std::string_view message) {
  const std::string copy(message);
  g_sink.load()(LogLevel::kInfo, copy.c_str());
}

std::string Printable(std::string_view s, size_t max_bytes) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  const size_t n = s.size() < max_bytes ? s.size() : max_bytes;
  for (size_t i = 0; i < n; ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7f) {
      out.push_back(static_cast<char>(c));
    } else {
      out += "\\x";
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  if (n < s.size()) out += "...";
  return out;
}

}  // namespace sm
