// SPDX-License-Identifier: GPL-2.0-or-later
#include "base/fingerprint.h"

#include <sys/random.h>

#include <chrono>

namespace sm {

const HashKey& ProcessHashKey() {
  // Trivially destructible: safe to read while exit() runs (immortal.h).
  static const HashKey key = [] {
    HashKey k{};
    // GRND_NONBLOCK: init() must never wait on the kernel's entropy.
    if (getrandom(&k, sizeof k, GRND_NONBLOCK) != static_cast<ssize_t>(sizeof k)) {
      // No entropy (a very early boot): the clock still differs per
      // process, which is all a chance collision needs.
      const auto t = static_cast<uint64_t>(
          std::chrono::steady_clock::now().time_since_epoch().count());
      k = {t ^ 0x9E3779B97F4A7C15ull, t * 0xC2B2AE3D27D4EB4Full,
           0xA0761D6478BD642Full ^ (t << 7), 0xE7037ED1A0B428DBull ^ (t >> 3)};
    }
    return k;
  }();
  return key;
}

}  // namespace sm
