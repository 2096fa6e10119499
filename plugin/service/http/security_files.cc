// SPDX-License-Identifier: GPL-2.0-or-later
#include "http/security_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace sm {
namespace web {
namespace {

constexpr size_t kMaxFileBytes = 1 << 20;

}  // namespace

FileStamp Stamp(const std::string& path) {
  FileStamp s{path};
  struct stat st {};
  if (stat(path.c_str(), &st) == 0) {
    s.dev = st.st_dev;
    s.ino = st.st_ino;
    s.size = st.st_size;
    s.mtime = st.st_mtim;
  }
  return s;
}

bool ReadSmallFile(const std::string& path, std::string* out, std::string* error) {
  const int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    *error = path + ": " + std::strerror(errno);
    return false;
  }
  struct stat st {};
  bool ok = fstat(fd, &st) == 0;
  if (ok && !S_ISREG(st.st_mode)) {
    *error = path + ": not a regular file";
    ok = false;
  } else if (ok && static_cast<size_t>(st.st_size) > kMaxFileBytes) {
    *error = path + ": larger than 1 MiB";
    ok = false;
  }
  out->clear();
  char buf[16384];
  while (ok) {
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      *error = path + ": " + std::strerror(errno);
      ok = false;
    }
    if (n <= 0) break;
    out->append(buf, static_cast<size_t>(n));
    if (out->size() > kMaxFileBytes) {
      *error = path + ": larger than 1 MiB";
      ok = false;
    }
  }
  close(fd);
  return ok;
}

}  // namespace web
}  // namespace sm
