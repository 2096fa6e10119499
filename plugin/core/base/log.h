// SPDX-License-Identifier: GPL-2.0-or-later
// Logging through whatever the host provides: slurmctld's log inside the
// controller, stderr in the shim and tests.
#pragma once

#include <string>
#include <string_view>

namespace sm {

// The levels of our own messages, and of LogLevel= in the configuration
// (exporter_config.h includes this header, never the other way round).
enum class LogLevel { kDebug, kInfo, kWarn, kError };

using LogSink = void (*)(LogLevel level, const char* message);

// Not thread-safe against concurrent Log calls: set once before threads
// start and reset after they are joined.
void SetLogSink(LogSink sink, LogLevel threshold);

void Log(LogLevel level, std::string_view message);

// What an admin checks to see that the plugin runs and where (its build,
// the configuration it read, the addresses it listens on): written at info
// level whatever LogLevel says, so LogLevel=warn keeps them
// (docs/troubleshooting.md, "A normal start"). slurmctld's own
// SlurmctldDebug still filters them like any info line.
void LogNotice(std::string_view message);

// `s` fit to quote in a log line: printable ASCII is kept, every other
// byte (controls, NUL, any byte of UTF-8) becomes \xNN, and past
// `max_bytes` of input it is cut with "...". Config values and keys are
// quoted through this, never raw.
std::string Printable(std::string_view s, size_t max_bytes = 64);
inline void LogDebug(std::string_view m) { Log(LogLevel::kDebug, m); }
inline void LogInfo(std::string_view m) { Log(LogLevel::kInfo, m); }
inline void LogWarn(std::string_view m) { Log(LogLevel::kWarn, m); }
inline void LogError(std::string_view m) { Log(LogLevel::kError, m); }

}  // namespace sm
