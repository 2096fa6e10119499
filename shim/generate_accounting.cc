// SPDX-License-Identifier: GPL-2.0-or-later
// The accounting side of a synthetic cluster, self-consistent the way
// slurmctld's own answers are: an association tree whose account usage is
// the sum of its children and whose sshare numbers follow Fair Tree (the
// default since 23.11, what the replay assumes: docs/shim.md); users'
// first associations are the accounts their jobs run under; licenses whose
// Free and LastDeficit follow licenses.c; reservations that are the ones
// the nodes carry (active, over exactly those nodes) plus future ones.
// `--odd-names` adds names with quotes, backslashes, newlines, tabs,
// non-ASCII text, invalid UTF-8 and lengths beyond 50 code points to every
// kind. Drawn after the cluster side, so a seed keeps its nodes and jobs.
#include <algorithm>
#include <cmath>
#include <functional>
#include <map>

#include "generate_parts.h"

namespace shim {
namespace {

// Hostile name number `i` of a kind: the patterns in turn, numbered from
// the second round on.
std::string OddName(const std::string& kind, int64_t i) {
  static const char* const kPatterns[] = {
      " \"quoted\" back\\slash\nnewline \xC3\xBC",  // ... ü
      // KIND-ünïcødé-xxx...: over 70 code points
      "-\xC3\xBCn\xC3\xAF" "c\xC3\xB8" "d\xC3\xA9-"
      "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
      "\ttab{x=\"1\",y=2}\xFF\xFE",  // invalid UTF-8: written as U+FFFD
  };
  std::string s = kind + kPatterns[i % 3];
  if (i >= 3) s += "-" + std::to_string(i);
  return s;
}

// One line of sshare's tree while it is built.
struct Assoc {
  std::string name, parent;  // account (user: the user name, parent its account)
  bool user = false;
  int64_t shares = 0;        // 0: root's unset RawShares
  int64_t usage = 0;
  std::vector<size_t> children;  // sshare's order: users, then accounts, by name
  double shares_norm = 0, usage_norm = 0, effective = 0, level_fs = 0, factor = 0;
};

// Fair Tree's fs_factor (fair_tree.c _calc_tree_fs): siblings by level_fs,
// highest first, users before accounts on a tie; users ranked from the top,
// tied ones sharing a rank. Its merging of tied accounts counts only users
// after an account, which sort before it, so it never merges; neither do we.
void RankFairTree(std::vector<Assoc>& a, const std::vector<size_t>& siblings,
                  int64_t users, int64_t& rank, int64_t& rnt, bool account_tied) {
  std::vector<size_t> order = siblings;
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
    if (a[x].level_fs != a[y].level_fs) return a[x].level_fs > a[y].level_fs;
    return a[x].user && !a[y].user;
  });
  double prev = NAN;
  for (size_t i = 0; i < order.size(); ++i) {
    Assoc& s = a[order[i]];
    const bool tied = (i == 0 && account_tied) || (i > 0 && prev == s.level_fs);
    if (s.user) {
      if (!tied) rank = rnt;
      s.factor = static_cast<double>(rank) / static_cast<double>(users);
      --rnt;
    } else {
      RankFairTree(a, s.children, users, rank, rnt, tied);
    }
    prev = s.level_fs;
  }
}

Real Value(double v) {
  if (std::isinf(v)) return {Num::kInfinite, 0};
  return {Num::kValue, v};
}

std::vector<ShareIn> Shares(const GenerateOptions& opt, Rng& rng,
                            const std::vector<User>& users) {
  std::vector<Assoc> a;
  std::map<std::string, size_t> account;  // name -> index
  a.emplace_back().name = "root";
  account["root"] = 0;
  std::vector<std::string> names;
  for (int64_t k = 0; k < opt.accounts; ++k) names.push_back("acct-" + std::to_string(k));
  for (int64_t k = 0; k < opt.odd_names; ++k) names.push_back(OddName("acct", k));
  // The first four accounts (and the odd ones) under root, the others
  // below them: a tree two levels deep.
  for (size_t k = 0; k < names.size(); ++k) {
    Assoc x;
    x.name = names[k];
    x.parent = k < 4 || static_cast<int64_t>(k) >= opt.accounts ? "root" : names[k % 4];
    x.shares = rng.Range(1, 100);
    account[x.name] = a.size();
    a.push_back(x);
  }
  auto add_user = [&](const std::string& user, const std::string& acct, int64_t usage) {
    Assoc x;
    x.name = user;
    x.parent = acct;
    x.user = true;
    x.shares = rng.Range(1, 3);
    x.usage = usage;
    a.push_back(x);
  };
  add_user("root", "root", 0);
  const int64_t per_user = std::min(opt.user_accounts, opt.accounts);
  for (const User& u : users)
    for (int64_t k = 0; k < per_user; ++k)
      add_user(u.name, JobAccount(u.uid + k, opt.accounts),
               rng.Chance(0.3) ? 0 : rng.Range(1, 50000000));
  for (int64_t k = 0; k < opt.odd_names; ++k)
    add_user(users[static_cast<size_t>(k) % users.size()].name,
             OddName("acct", k), rng.Range(1, 50000000));
  for (size_t i = 1; i < a.size(); ++i) a[account.at(a[i].parent)].children.push_back(i);
  for (Assoc& x : a)
    std::stable_sort(x.children.begin(), x.children.end(), [&](size_t p, size_t q) {
      if (a[p].user != a[q].user) return a[p].user;
      return a[p].name < a[q].name;
    });

  // Usage adds up the tree; then each line's numbers as slurmctld's
  // Fair Tree computes them (fair_tree.c _calc_assoc_fs).
  std::function<int64_t(size_t)> sum = [&](size_t i) {
    for (size_t c : a[i].children) a[i].usage += sum(c);
    return a[i].usage;
  };
  sum(0);
  const double total = static_cast<double>(a[0].usage);
  for (Assoc& p : a) {
    int64_t level = 0;
    for (size_t c : p.children) level += a[c].shares;
    for (size_t c : p.children) {
      Assoc& x = a[c];
      x.shares_norm = static_cast<double>(x.shares) / static_cast<double>(level);
      x.usage_norm = total > 0 ? static_cast<double>(x.usage) / total : 0;
      x.effective = p.usage > 0 ? static_cast<double>(x.usage) / static_cast<double>(p.usage) : 0;
      x.level_fs = x.effective == 0 ? INFINITY : x.shares_norm / x.effective;
    }
  }
  int64_t user_count = 0;
  for (const Assoc& x : a) user_count += x.user;
  int64_t rank = user_count, rnt = user_count;
  RankFairTree(a, a[0].children, user_count, rank, rnt, false);

  // sshare's lines: depth first in its order.
  std::vector<ShareIn> out;
  int64_t id = 1;
  std::function<void(size_t)> emit = [&](size_t i) {
    const Assoc& x = a[i];
    ShareIn s;
    s.id = id++;
    s.name = x.name;
    s.parent = x.parent;
    s.user = x.user;
    s.usage = x.usage;
    if (i == 0) {  // root: no RawShares, NormUsage or LevelFS of its own
      s.shares = {Num::kUnset, 0};
      s.shares_normalized = {Num::kValue, 1.0 / 4294967294.0};  // 1/NO_VAL, as slurmctld has it
      s.usage_normalized = {Num::kUnset, 0};
      s.effective_usage = {Num::kValue, 1.0};
      s.fairshare_level = {Num::kUnset, 0};
    } else {
      s.shares = Num::Of(x.shares);
      s.shares_normalized = Value(x.shares_norm);
      s.usage_normalized = Value(x.usage_norm);
      s.effective_usage = Value(x.effective);
      s.fairshare_level = Value(x.level_fs);
    }
    // Fair Tree gives accounts no fairshare factor of their own: 0.
    s.fairshare_factor = {Num::kValue, x.user ? x.factor : 0.0};
    out.push_back(std::move(s));
    for (size_t c : x.children) emit(c);
  };
  emit(0);
  return out;
}

Num Maybe(Rng& rng, double p, int64_t lo, int64_t hi) {
  if (!rng.Chance(p)) return {Num::kInfinite, 0};  // no limit
  return Num::Of(rng.Range(lo, hi));
}

std::vector<QosIn> Qos(const GenerateOptions& opt, Rng& rng) {
  static const char* const kNames[] = {"normal", "high", "low", "gpu", "interactive", "preempt"};
  std::vector<QosIn> out;
  for (int64_t i = 0; i < opt.qos + opt.odd_names; ++i) {
    QosIn q;
    q.name = i >= opt.qos ? OddName("qos", i - opt.qos)
           : i < 6        ? std::string(kNames[i])
                          : "qos-" + std::to_string(i);
    q.id = i + 1;
    const bool unlimited = i == 0;  // normal, as slurmdbd creates it
    q.priority = Num::Of(unlimited ? 0 : rng.Range(1, 1000));
    const double p = unlimited ? 0 : 1;
    q.grp_jobs = Maybe(rng, 0.5 * p, 10, 5000);
    q.grp_submit_jobs = Maybe(rng, 0.3 * p, 100, 20000);
    q.max_jobs_per_user = Maybe(rng, 0.5 * p, 1, 100);
    q.max_submit_jobs_per_user = Maybe(rng, 0.3 * p, 10, 1000);
    q.max_wall_per_job = rng.Chance(0.4 * p)
        ? Num::Of(rng.Pick(std::vector<int64_t>{60, 240, 1440, 4320})) : Num{Num::kInfinite, 0};
    if (rng.Chance(0.5 * p)) q.grp_tres.push_back({"cpu", rng.Range(64, 100000)});
    if (rng.Chance(0.4 * p)) q.grp_tres.push_back({"gres/gpu", rng.Range(8, 4096)});
    if (rng.Chance(0.4 * p))
      q.max_tres_per_user.push_back({"gres/gpu", rng.Pick(std::vector<int64_t>{1, 2, 4, 8, 16})});
    out.push_back(std::move(q));
  }
  return out;
}

std::vector<LicenseIn> Licenses(const GenerateOptions& opt, Rng& rng, int64_t now) {
  static const char* const kNames[] = {"matlab", "comsol", "fluent@flexlm",
                                       "ansys", "abaqus@rlm", "stata"};
  std::vector<LicenseIn> out;
  for (int64_t i = 0; i < opt.licenses + opt.odd_names; ++i) {
    LicenseIn l;
    if (i >= opt.licenses)  // odd ones: local and remote in turn
      l.name = OddName("lic", i - opt.licenses) + ((i - opt.licenses) % 2 ? "@srv" : "");
    else if (i < 6)
      l.name = kNames[i];
    else
      l.name = "lic-" + std::to_string(i) + (i % 3 == 2 ? "@lmgrd" : "");
    l.remote = l.name.find('@') != std::string::npos;
    l.total = rng.Range(1, 500);
    l.used = rng.Range(0, l.total);
    if (l.remote) {
      // All of the server's count is this cluster's (no external share):
      // what the server saw consumed beyond our own use is the deficit
      // (licenses.c _handle_consumed).
      l.last_consumed = l.used + (l.total > l.used && rng.Chance(0.3)
                                      ? rng.Range(1, l.total - l.used) : 0);
      l.last_deficit = l.last_consumed - l.used;
      l.last_update = now - rng.Range(0, 600);
    }
    out.push_back(std::move(l));
  }
  return out;
}

std::vector<ReservationIn> Reservations(const GenerateOptions& opt, Rng& rng,
                                        const std::vector<std::string>& names,
                                        const std::vector<User>& users, const ClusterIn& c,
                                        int64_t now) {
  std::vector<std::string> all = names;
  for (int64_t k = 0; k < opt.odd_names; ++k) all.push_back(OddName("resv", k));
  const std::vector<NodeIn>& nodes = *c.nodes;
  std::vector<ReservationIn> out;
  for (size_t r = 0; r < all.size(); ++r) {
    ReservationIn v;
    v.name = all[r];
    std::vector<size_t> on;
    for (size_t i = 0; i < nodes.size(); ++i)
      if (nodes[i].reservation == v.name) on.push_back(i);
    // A name no node carries is a reservation still to come, on the
    // first nodes (their state shows no RESERVED yet).
    const bool active = !on.empty();
    if (active) {
      v.start_time = Num::Of(now - rng.Range(3600, 7 * 86400));
      v.end_time = Num::Of(now + rng.Range(3600, 30 * 86400));
    } else {
      for (size_t i = 0; i < std::min<size_t>(2, nodes.size()); ++i) on.push_back(i);
      const int64_t start = now + rng.Range(86400, 10 * 86400);
      v.start_time = Num::Of(start);
      v.end_time = Num::Of(start + rng.Range(3600, 3 * 86400));
    }
    std::vector<std::string> hosts;
    int64_t cores = 0;
    for (size_t i : on) {
      hosts.push_back(nodes[i].name);
      cores += nodes[i].cores.or_else(0) * nodes[i].sockets.or_else(0);
    }
    v.node_list = RangedHosts(hosts);
    v.node_count = Num::Of(static_cast<int64_t>(on.size()));
    v.core_count = Num::Of(cores);
    v.purge_completed = {Num::kUnset, 0};
    if (r == 0) {
      v.users = "root";
      v.flags = {"MAINT", "SPEC_NODES"};
    } else {
      // One to three users in a row, as `Users=` lists them.
      const auto n = static_cast<int64_t>(users.size());
      const int64_t first = rng.Range(0, n - 1), count = std::min<int64_t>(n, rng.Range(1, 3));
      for (int64_t k = 0; k < count; ++k)
        v.users += (k ? "," : "") + users[static_cast<size_t>((first + k) % n)].name;
      v.flags = {"SPEC_NODES"};
      v.partition = nodes[on.front()].partitions.back();
    }
    out.push_back(std::move(v));
  }
  return out;
}

}  // namespace

void GenerateAccounting(const GenerateOptions& opt, Rng& rng, const std::vector<User>& users,
                        const std::vector<std::string>& reservations, ClusterIn& c) {
  c.shares = Shares(opt, rng, users);
  c.qos = Qos(opt, rng);
  c.licenses = Licenses(opt, rng, opt.now);
  c.reservations = Reservations(opt, rng, reservations, users, c, opt.now);
  // assoc_mgr's TRES as slurmdbd numbers them: the built-in eight, GPUs,
  // then one per license (AccountingStorageTRES=gres/gpu,license/...).
  c.tres_names = {"cpu", "mem", "energy", "node", "billing", "fs/disk", "vmem", "pages",
                  "gres/gpu"};
  for (const LicenseIn& l : *c.licenses) c.tres_names.push_back("license/" + l.name);
}

}  // namespace shim
