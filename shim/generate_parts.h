// SPDX-License-Identifier: GPL-2.0-or-later
// What the generator's two halves share: the cluster side (generate.cc:
// nodes, jobs, sdiag) and the accounting side (generate_accounting.cc:
// associations, QoS, licenses, reservations) draw from one random stream
// and agree on users, accounts and host lists.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "generate.h"
#include "model.h"

namespace shim {

class Rng {
 public:
  explicit Rng(uint64_t seed) : gen_(seed * 0x9E3779B97F4A7C15ull + 1) {}
  int64_t Range(int64_t lo, int64_t hi) {  // inclusive
    return std::uniform_int_distribution<int64_t>(lo, hi)(gen_);
  }
  double Unit() { return std::uniform_real_distribution<double>(0, 1)(gen_); }
  bool Chance(double p) { return Unit() < p; }
  template <typename T>
  const T& Pick(const std::vector<T>& v) {
    return v[static_cast<size_t>(Range(0, static_cast<int64_t>(v.size()) - 1))];
  }
  std::string Alnum(int n) {
    static const char kChars[] = "abcdefghijklmnopqrstuvwxyz0123456789";
    std::string s;
    for (int i = 0; i < n; ++i) s += kChars[Range(0, 35)];
    return s;
  }

 private:
  std::mt19937_64 gen_;
};

struct User {
  int64_t uid;
  std::string name;
  bool resolvable;
};

// uid 10001.. "user0001"; every 25th cannot be resolved.
std::vector<User> Users(int64_t count);

// The account a user's jobs run under, its first association:
// acct-(uid mod --accounts).
std::string JobAccount(int64_t uid, int64_t accounts);

// Names ending in 5 digits (gpu-h100-00007) in Slurm's ranged form
// (gpu-h100-[00007-00009,00012]), prefixes in first-seen order.
std::string RangedHosts(const std::vector<std::string>& names);

// The accounting dumps of the cluster `c` (its nodes set, some carrying
// one of `reservations`): sshare's lines, QoS, licenses, reservations and
// assoc_mgr's TRES names, drawn from `rng` after everything else.
void GenerateAccounting(const GenerateOptions& opt, Rng& rng, const std::vector<User>& users,
                        const std::vector<std::string>& reservations, ClusterIn& c);

}  // namespace shim
