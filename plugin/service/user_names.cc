// SPDX-License-Identifier: GPL-2.0-or-later
#include "user_names.h"

#include <pwd.h>

#include <vector>

namespace sm {

std::string UserNames::Name(uid_t uid) {
  const auto now = std::chrono::steady_clock::now();
  {
    std::lock_guard lock(mu_);
    const auto it = cache_.find(uid);
    if (it != cache_.end() && now - it->second.at < ttl_) return it->second.name;
  }
  std::string name;
  std::vector<char> buf(16384);
  passwd pw{};
  passwd* result = nullptr;
  if (getpwuid_r(uid, &pw, buf.data(), buf.size(), &result) == 0 && result)
    name = result->pw_name;
  std::lock_guard lock(mu_);
  cache_[uid] = {name, now};
  return name;
}

}  // namespace sm
