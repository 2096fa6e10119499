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

  // Two lanes that do not wait on each other: a 128-bit multiply fold and
  // a 64-bit multiply, each over every word.
  void Word(uint64_t w) {
    a_ = Mum(a_ ^ w, key_.k2);
    b_ = (b_ ^ w) * (key_.k3 | 1);
  }
  void Double(double d) {
    uint64_t w;
    std::memcpy(&w, &d, sizeof w);
    Word(w);
  }
  // Length first, so that ("ab","c") and ("a","bc") differ; 16 bytes per
  // multiply, then one word into the lanes (label values are mostly
  // shorter than 16 bytes).
  void String(std::string_view s) {
    const char* p = s.data();
    size_t n = s.size();
    uint64_t h = n ^ key_.k0;
    for (; n > 16; p += 16, n -= 16) h = Fold(Load(p, 8) ^ key_.k1, Load(p + 8, 8) ^ h);
    const uint64_t w0 = Load(p, n < 8 ? n : 8);
    const uint64_t w1 = n > 8 ? Load(p + 8, n - 8) : 0;
    Word(Fold(w0 ^ key_.k1, w1 ^ h));
  }
  Fingerprint Finish() const {
    return {Mum(a_ ^ key_.k1, key_.k3), Mum(b_ ^ key_.k0, key_.k2)};
  }

 private:
  // Up to 8 bytes, little-endian as they lie in memory, zero-padded.
  // An empty string_view may hold a null pointer, which memcpy must not be
  // given even for 0 bytes (UBSan reports it: the ASan build's shim tests).
  static uint64_t Load(const char* p, size_t n) {
    uint64_t w = 0;
    if (n != 0) std::memcpy(&w, p, n);
    return w;
  }
  // GCC and clang have it on every 64-bit target.
  __extension__ typedef unsigned __int128 U128;
  // The 128-bit product folded to 64 bits (wyhash's "mum"), of two data
  // words (each keyed: a product is 0 only when a word equals a key word).
  static uint64_t Fold(uint64_t x, uint64_t y) {
    const U128 r = static_cast<U128>(x) * y;
    return static_cast<uint64_t>(r) ^ static_cast<uint64_t>(r >> 64);
  }
  // The same with an odd key as multiplier: never a product of 0 for x != 0.
  static uint64_t Mum(uint64_t x, uint64_t k) { return Fold(x, k | 1); }
  HashKey key_;
  uint64_t a_, b_;
};

// A 64-bit keyed hash of `bytes`: what decides where a body's gzip form
// is cut into pieces (gzip_form.h).
inline uint64_t HashBytes(std::string_view bytes) {
  FingerprintHasher h;
  h.String(bytes);
  return h.Finish().a;
}

}  // namespace sm
