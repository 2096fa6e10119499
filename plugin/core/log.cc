// SPDX-License-Identifier: GPL-2.0-or-later
#include "log.h"

#include <cstdio>

namespace sm {
namespace {

void StderrSink(LogLevel level, const char* message) {
  static const char* const kNames[] = {"debug", "info", "warn", "error"};
  std::fprintf(stderr, "soperator-metrics %s: %s\n",
               kNames[static_cast<int>(level)], message);
}

LogSink g_sink = StderrSink;
LogLevel g_threshold = LogLevel::kInfo;

}  // namespace

void SetLogSink(LogSink sink, LogLevel threshold) {
  g_sink = sink ? sink : StderrSink;
  g_threshold = threshold;
}

void Log(LogLevel level, std::string_view message) {
  if (level < g_threshold) return;
  const std::string copy(message);  // sinks take C strings
  g_sink(level, copy.c_str());
}

}  // namespace sm
