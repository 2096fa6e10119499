// SPDX-License-Identifier: GPL-2.0-or-later
// Keyed hashes that tell "the same input as last time" without keeping the
// input: what lets a render reuse the bytes of a family whose rows did not
// change (docs/performance.md, "Render cost that follows change").
//
// Not cryptographic. Each process draws its own random key, so label
// values a user controls (job names, comments) cannot be chosen to collide
// with another family's input; by chance, two different inputs of one
// family get the same 128-bit fingerprint with odds of about 2^-64 per
// comparison even for a weak mix.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

namespace sm {

struct Fingerprint {
  uint64_t a = 0, b = 0;
  bool operator==(const Fingerprint&) const = default;
};

// The process's key (random, drawn once).
struct HashKey {
  uint64_t k0, k1, k2, k3;
};
const HashKey& ProcessHashKey();

class FingerprintHasher {
 public:
  FingerprintHasher() : FingerprintHasher(ProcessHashKey()) {}
  explicit FingerprintHasher(const HashKey& key)
      : key_(key), a_(key.k0), b_(key.k1) {}

  void Word(uint64_t w) {
    a_ = Mum(a_ ^ w, key_.k2);
    b_ = Mum(b_ + w, key_.k3) ^ a_;
  }
  void Double(double d) {
    uint64_t w;
    std::memcpy(&w, &d, sizeof w);
    Word(w);
  }
  // Length first, so that ("ab","c") and ("a","bc") differ.
  void String(std::string_view s) {
    Word(s.size());
    const char* p = s.data();
    size_t n = s.size();
    for (; n >= 8; p += 8, n -= 8) {
      uint64_t w;
      std::memcpy(&w, p, 8);
      Word(w);
    }
    if (n) {
      uint64_t w = 0;
      std::memcpy(&w, p, n);
      Word(w);
    }
  }
  Fingerprint Finish() const {
    return {Mum(a_ ^ key_.k1, key_.k3), Mum(b_ ^ key_.k0, key_.k2)};
  }

 private:
  // GCC and clang have it on every 64-bit target.
  __extension__ typedef unsigned __int128 U128;
  // The 128-bit product folded to 64 bits (wyhash's "mum").
  static uint64_t Mum(uint64_t x, uint64_t k) {
    const U128 r = static_cast<U128>(x) * (k | 1);
    return static_cast<uint64_t>(r) ^ static_cast<uint64_t>(r >> 64);
  }
  HashKey key_;
  uint64_t a_, b_;
};

// A 64-bit keyed hash of `bytes`: what finds a candidate among the last
// render's gzip chunks; a candidate is compared byte for byte before use.
inline uint64_t HashBytes(std::string_view bytes) {
  FingerprintHasher h;
  h.String(bytes);
  return h.Finish().a;
}

}  // namespace sm
