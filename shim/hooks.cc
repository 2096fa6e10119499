// SPDX-License-Identifier: GPL-2.0-or-later
// Symbols defined here are exported from the executable (-rdynamic), so
// the dlopen()ed plugin binds to them before libc's: time() and
// getpwuid_r() are interposed for the whole process, and pass through to
// libc (dlsym(RTLD_NEXT)) for every caller and every value the replay does
// not own.
#include "hooks.h"

#include <dlfcn.h>
#include <pwd.h>
#include <sys/types.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <ctime>
#include <mutex>
#include <shared_mutex>
#include <string>

namespace shim {
namespace {

std::mutex g_clock_mu;
double g_monotonic = 0;
double g_unix = 0;  // fractional: advances need not be whole seconds
bool g_following = false;
std::chrono::steady_clock::time_point g_follow_origin;
double g_follow_monotonic = 0;
double g_follow_unix = 0;

std::atomic<uintptr_t> g_virtual_lo{0};
std::atomic<uintptr_t> g_virtual_hi{0};

std::shared_mutex g_users_mu;
UserTable g_users;

double FollowedSeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                       g_follow_origin)
      .count();
}

}  // namespace

void VirtualClock::Set(double monotonic, int64_t unix_seconds) {
  std::lock_guard lock(g_clock_mu);
  g_monotonic = monotonic;
  g_unix = static_cast<double>(unix_seconds);
  g_following = false;
}

void VirtualClock::Advance(double seconds) {
  std::lock_guard lock(g_clock_mu);
  g_monotonic += seconds;
  g_unix += seconds;
}

void VirtualClock::Follow() {
  std::lock_guard lock(g_clock_mu);
  g_following = true;
  g_follow_origin = std::chrono::steady_clock::now();
  g_follow_monotonic = g_monotonic;
  g_follow_unix = g_unix;
}

double VirtualClock::Monotonic() {
  std::lock_guard lock(g_clock_mu);
  if (g_following) return g_follow_monotonic + FollowedSeconds();
  return g_monotonic;
}

int64_t VirtualClock::Unix() {
  std::lock_guard lock(g_clock_mu);
  const double u = g_following ? g_follow_unix + FollowedSeconds() : g_unix;
  return static_cast<int64_t>(std::floor(u));
}

double VirtualClock::MonotonicFn() { return Monotonic(); }
int64_t VirtualClock::UnixFn() { return Unix(); }

void VirtualizeTimeFor(uintptr_t lo, uintptr_t hi) {
  g_virtual_hi.store(hi);
  g_virtual_lo.store(lo);
}

void LearnUsers(const UserTable& users) {
  std::unique_lock lock(g_users_mu);
  for (const auto& [uid, name] : users) {
    std::string& known = g_users[uid];
    if (known.empty()) known = name;
  }
}

namespace {

using TimeFn = time_t (*)(time_t*);
using GetpwuidRFn = int (*)(uid_t, passwd*, char*, size_t, passwd**);

time_t RealTime(time_t* t) {
  static const TimeFn real = reinterpret_cast<TimeFn>(dlsym(RTLD_NEXT, "time"));
  if (real) return real(t);
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  if (t) *t = ts.tv_sec;
  return ts.tv_sec;
}

}  // namespace
}  // namespace shim

extern "C" __attribute__((visibility("default"))) time_t time(time_t* t) noexcept {
  const auto caller = reinterpret_cast<uintptr_t>(__builtin_return_address(0));
  const uintptr_t lo = shim::g_virtual_lo.load(std::memory_order_relaxed);
  if (lo && caller >= lo && caller < shim::g_virtual_hi.load(std::memory_order_relaxed)) {
    const time_t now = static_cast<time_t>(shim::VirtualClock::Unix());
    if (t) *t = now;
    return now;
  }
  return shim::RealTime(t);
}

extern "C" __attribute__((visibility("default"))) int getpwuid_r(
    uid_t uid, passwd* pwd, char* buf, size_t buflen, passwd** result) {
  static const shim::GetpwuidRFn real =
      reinterpret_cast<shim::GetpwuidRFn>(dlsym(RTLD_NEXT, "getpwuid_r"));
  std::string name;
  bool ours = false;
  {
    std::shared_lock lock(shim::g_users_mu);
    const auto it = shim::g_users.find(static_cast<int64_t>(uid));
    if (it != shim::g_users.end()) {
      ours = true;
      name = it->second;
    }
  }
  if (!ours) {
    if (!real) {
      *result = nullptr;
      return ENOENT;
    }
    return real(uid, pwd, buf, buflen, result);
  }
  *result = nullptr;
  if (name.empty()) return 0;  // the dump could not resolve it either
  // pw_name plus empty strings for the other text fields.
  static const char kEmpty[] = "";
  if (buflen < name.size() + 1) return ERANGE;
  std::memcpy(buf, name.c_str(), name.size() + 1);
  std::memset(pwd, 0, sizeof *pwd);
  pwd->pw_name = buf;
  pwd->pw_passwd = const_cast<char*>(kEmpty);
  pwd->pw_uid = uid;
  pwd->pw_gid = static_cast<gid_t>(-1);
  pwd->pw_gecos = const_cast<char*>(kEmpty);
  pwd->pw_dir = const_cast<char*>(kEmpty);
  pwd->pw_shell = const_cast<char*>(kEmpty);
  *result = pwd;
  return 0;
}
