// SPDX-License-Identifier: GPL-2.0-or-later
// The files a web config names, as WebSecurity (http/web_security.h) reads
// and watches them: a stamp that tells a changed file, and a bounded read
// that never blocks the event loop.
#pragma once

#include <sys/types.h>

#include <ctime>
#include <string>

namespace sm {
namespace web {

struct FileStamp {
  std::string path;
  dev_t dev = 0;
  ino_t ino = 0;
  off_t size = 0;
  timespec mtime{};
  bool operator==(const FileStamp& o) const {
    return path == o.path && dev == o.dev && ino == o.ino && size == o.size &&
           mtime.tv_sec == o.mtime.tv_sec && mtime.tv_nsec == o.mtime.tv_nsec;
  }
};

// `path` as it is now (zeros when it cannot be stat'ed).
FileStamp Stamp(const std::string& path);

// Regular files only (a FIFO would block the loop), at most 1 MiB.
bool ReadSmallFile(const std::string& path, std::string* out, std::string* error);

}  // namespace web
}  // namespace sm
