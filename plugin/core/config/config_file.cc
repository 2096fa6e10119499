// SPDX-License-Identifier: GPL-2.0-or-later
#include "config/config_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace sm {
namespace {

const char* KindOf(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a file";
}

ConfigFile Refused(std::string problem) {
  ConfigFile f;
  f.state = ConfigFile::State::kRefused;
  f.problem = std::move(problem);
  return f;
}

}  // namespace

ConfigFile ReadConfigFile(const std::string& path, size_t max_bytes) {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a
  // writer, and slurmctld's start with it. fstat() then refuses it.
  const int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    if (errno == ENOENT) return {};
    return Refused(std::string("cannot open: ") + std::strerror(errno));
  }
  struct Closer {
    int fd;
    ~Closer() { close(fd); }
  } closer{fd};
  struct stat st {};
  if (fstat(fd, &st) != 0)
    return Refused(std::string("cannot stat: ") + std::strerror(errno));
  if (!S_ISREG(st.st_mode))
    return Refused(std::string("not a regular file (") + KindOf(st.st_mode) + ")");
  if (static_cast<uint64_t>(st.st_size) > max_bytes)
    return Refused("larger than " + std::to_string(max_bytes / 1024) + " KiB (" +
                   std::to_string(st.st_size) + " bytes)");
  ConfigFile f;
  f.state = ConfigFile::State::kRead;
  // Read one byte past the cap: a file that grew after fstat() is refused
  // too, never read without bound.
  char buf[4096];
  while (true) {
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Refused(std::string("cannot read: ") + std::strerror(errno));
    if (n == 0) break;
    f.text.append(buf, static_cast<size_t>(n));
    if (f.text.size() > max_bytes)
      return Refused("larger than " + std::to_string(max_bytes / 1024) + " KiB");
  }
  return f;
}

}  // namespace sm
