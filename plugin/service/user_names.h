// SPDX-License-Identifier: GPL-2.0-or-later
// uid -> user name with a cache, resolved on the collector's thread and
// never under slurmctld's locks: an NSS lookup (LDAP, sssd) can take
// milliseconds, and doing it per job under the job lock is what makes the
// native /metrics/jobs hold the lock for most of a second.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <mutex>
#include <string>
#include <unordered_map>

namespace sm {

class UserNames {
 public:
  explicit UserNames(std::chrono::seconds ttl = std::chrono::minutes(10))
      : ttl_(ttl) {}

  // "" when the uid does not resolve (what slurmrestd reports).
  std::string Name(uid_t uid);

 private:
  struct Entry {
    std::string name;
    std::chrono::steady_clock::time_point at;
  };
  std::chrono::seconds ttl_;
  std::mutex mu_;
  std::unordered_map<uid_t, Entry> cache_;
};

}  // namespace sm
