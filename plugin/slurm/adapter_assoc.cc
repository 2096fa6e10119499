// SPDX-License-Identifier: GPL-2.0-or-later
// Associations as `sshare -a -l` prints them and QoS as `scontrol show
// assoc_mgr flags=qos` / `sacctmgr show qos` print them, copied under
// assoc_mgr's read locks (what _slurm_rpc_get_shares and
// assoc_mgr_info_get_pack_msg take), never slurmctld's.
#include <cmath>
#include <unordered_map>
#include <vector>

#include "adapter_accounting.h"

namespace sm::slurm {

TimedAssocLock::TimedAssocLock(assoc_mgr_lock_t locks, LockTiming& timing)
    : turn_(our_assoc_turn), locks_(locks), timing_(timing) {
  ThrowIfLocksClosed();  // adapter_util.h
  const auto t0 = std::chrono::steady_clock::now();
  assoc_mgr_lock(&locks_);
  acquired_ = std::chrono::steady_clock::now();
  timing_.used = true;
  timing_.wait_seconds +=
      std::chrono::duration<double>(acquired_ - t0).count();
}

TimedAssocLock::~TimedAssocLock() {
  assoc_mgr_unlock(&locks_);
  timing_.hold_seconds += std::chrono::duration<double>(
                              std::chrono::steady_clock::now() - acquired_)
                              .count();
}

namespace {

// ---- Associations --------------------------------------------------------

// What assoc_mgr_get_shares() copies, plus what the lazy classic-fairshare
// computation it triggers reads (see FillEffectiveUsage).
struct RawAssoc {
  std::string_view account, user, partition;
  uint32_t id = 0;
  uint32_t parent_id = 0;     // usage->parent_assoc_ptr
  uint32_t fs_parent_id = 0;  // usage->fs_assoc_ptr
  bool fs_parent_is_root = false;
  bool is_root = false;
  uint32_t shares_raw = 0;
  uint32_t level_shares = 0;
  double shares_norm = 0;
  long double usage_raw = 0, usage_norm = 0, usage_efctv = 0, level_fs = 0;
  double fs_factor = 0;
};

// print_fields_double() prints nothing for these (compared as doubles).
std::optional<double> Printed(long double v) {
  const double d = static_cast<double>(v);
  if (d == static_cast<double>(NO_VAL64) || d == static_cast<double>(INFINITE64) ||
      d == static_cast<double>(NO_VAL) || d == static_cast<double>(INFINITE))
    return std::nullopt;
  return d;
}

bool IsNoVal(long double v) {
  return v - static_cast<long double>(NO_VAL) > -0.00001 &&
         v - static_cast<long double>(NO_VAL) < 0.00001;  // fuzzy_equal
}

// Classic fairshare (no PriorityFlags=FAIR_TREE) leaves user associations'
// usage_efctv at NO_VAL; assoc_mgr_get_shares() then calls
// priority_p_set_assoc_usage() under its read lock, in list order. We never
// write to slurmctld: this replays priority/multifactor's arithmetic on the
// copies, in the same order, so later lines see earlier results as sshare's
// do (set_assoc_usage_norm, then _set_assoc_usage_efctv).
void FillEffectiveUsage(std::vector<RawAssoc>& rows, long double root_usage_raw,
                        uint16_t flags) {
  std::unordered_map<uint32_t, size_t> by_id;
  std::unordered_map<uint32_t, std::vector<size_t>> children;
  for (size_t i = 0; i < rows.size(); ++i) {
    by_id[rows[i].id] = i;
    children[rows[i].parent_id].push_back(i);
  }
  for (RawAssoc& a : rows) {
    if (a.user.empty() || !IsNoVal(a.usage_efctv)) continue;
    a.usage_norm = root_usage_raw ? a.usage_raw / root_usage_raw : 0;
    if (a.usage_norm > 1) a.usage_norm = 1;
    const auto p = by_id.find(a.fs_parent_id);
    if (a.fs_parent_is_root || p == by_id.end()) {
      a.usage_efctv = a.usage_norm;
      continue;
    }
    const RawAssoc& parent = rows[p->second];
    if (a.shares_raw == SLURMDB_FS_USE_PARENT) {
      a.usage_efctv = parent.usage_efctv;
    } else if (flags & PRIORITY_FLAGS_DEPTH_OBLIVIOUS) {
      if (a.shares_norm && parent.shares_norm && parent.usage_efctv &&
          a.usage_norm) {
        const long double ratio_p = parent.usage_efctv / parent.shares_norm;
        long double ratio_s = 0;
        for (size_t s : children[parent.id])
          if (rows[s].shares_raw != SLURMDB_FS_USE_PARENT)
            ratio_s += rows[s].usage_norm;
        ratio_s /= parent.shares_norm;
        const long double ratio_l = (a.usage_norm / a.shares_norm) / ratio_s;
        long double k = 1;
        if (ratio_p && ratio_l && logl(ratio_p) * logl(ratio_l) < 0)
          k = 1 / (1 + powl(5.0L * logl(ratio_p), 2));
        a.usage_efctv = ratio_p * pow(ratio_l, k) * a.shares_norm;
      } else {
        a.usage_efctv = a.usage_norm;
      }
    } else if (!a.level_shares) {
      a.usage_efctv = parent.usage_efctv;
    } else {
      a.usage_efctv =
          a.usage_norm + (parent.usage_efctv - a.usage_norm) *
                             (a.shares_raw / static_cast<long double>(a.level_shares));
    }
  }
}

// sshare's FairShare column: Fair Tree prints fs_factor on user lines only;
// classic prints priority_p_calc_fs_factor() on every line.
std::optional<double> FairShareColumn(const RawAssoc& a, bool fair_tree,
                                      double damp_factor) {
  if (fair_tree) {
    if (a.user.empty()) return std::nullopt;
    return Printed(a.fs_factor);
  }
  if (IsNoVal(a.usage_efctv) || a.shares_norm <= 0) return 0.0;
  return Printed(pow(2.0, -((a.usage_efctv / a.shares_norm) / damp_factor)));
}

}  // namespace

// Cannot fail: no list is no associations (below).
std::shared_ptr<ShareSnapshot> ControllerSource::CollectShares(
    LockTiming& timing, std::string&) {
  const LockGateScope gate(locks_closed_);  // adapter_util.h
  auto snap = std::make_shared<ShareSnapshot>();
  std::vector<RawAssoc> rows;
  long double root_usage_raw = 0;
  const bool multifactor =
      slurm_conf.priority_type && strstr(slurm_conf.priority_type, "multifactor");
  const uint16_t flags = slurm_conf.priority_flags;
  {
    assoc_mgr_lock_t locks = {};
    locks.assoc = READ_LOCK;
    locks.tres = READ_LOCK;
    TimedAssocLock lock(locks, timing);
    // No list: no accounting storage to load one from. sshare has
    // nothing to print then, and neither do we (not an error).
    if (!assoc_mgr_assoc_list) return snap;
    rows.reserve(list_count(assoc_mgr_assoc_list));
    if (assoc_mgr_root_assoc && assoc_mgr_root_assoc->usage)
      root_usage_raw = assoc_mgr_root_assoc->usage->usage_raw;
    Arena& arena = snap->arena;
    ForEachRecord(assoc_mgr_assoc_list, [&](void* x) {
      auto* a = static_cast<slurmdb_assoc_rec_t*>(x);
      if (!a->usage) return;
      RawAssoc& r = rows.emplace_back();
      r.account = arena.StoreCString(a->acct);
      r.user = arena.StoreCString(a->user);
      r.partition = arena.StoreCString(a->partition);
      r.id = a->id;
      r.is_root = a == assoc_mgr_root_assoc;
      r.shares_raw = r.is_root ? NO_VAL : a->shares_raw;
      const slurmdb_assoc_usage_t* u = a->usage;
      if (u->parent_assoc_ptr) r.parent_id = u->parent_assoc_ptr->id;
      if (u->fs_assoc_ptr) {
        r.fs_parent_id = u->fs_assoc_ptr->id;
        r.fs_parent_is_root = u->fs_assoc_ptr == assoc_mgr_root_assoc;
      }
      r.level_shares = u->level_shares;
      r.shares_norm = u->shares_norm;
      r.usage_raw = u->usage_raw;
      r.usage_norm = u->usage_norm;
      r.usage_efctv = u->usage_efctv;
      r.level_fs = u->level_fs;
      r.fs_factor = u->fs_factor;
    });
  }
  // Off-lock from here.
  const bool fair_tree = flags & PRIORITY_FLAGS_FAIR_TREE;
  if (multifactor && !fair_tree) FillEffectiveUsage(rows, root_usage_raw, flags);
  const double damp =
      slurm_conf.fs_dampening_factor ? slurm_conf.fs_dampening_factor : 1;
  snap->shares.reserve(rows.size());
  for (const RawAssoc& r : rows) {
    Share& s = snap->shares.emplace_back();
    s.account = r.account;
    s.user = r.user;
    s.partition = r.partition;
    s.use_parent = r.shares_raw == SLURMDB_FS_USE_PARENT;
    if (r.shares_raw != NO_VAL && r.shares_raw != INFINITE && !s.use_parent)
      s.raw_shares = r.shares_raw;
    s.norm_shares = Printed(r.shares_norm);
    const auto raw_usage = static_cast<uint64_t>(r.usage_raw);
    if (raw_usage != NO_VAL64 && raw_usage != INFINITE64) s.raw_usage = raw_usage;
    s.norm_usage = Printed(r.usage_norm);
    s.effective_usage = Printed(r.usage_efctv);
    s.fairshare = FairShareColumn(r, fair_tree, damp);
    if (!s.use_parent) s.level_fs = Printed(r.level_fs);
  }
  return snap;
}

// ---- QoS -------------------------------------------------------------------

namespace {

std::optional<uint32_t> Limit32(uint32_t v) {
  if (v == INFINITE || v == NO_VAL) return std::nullopt;
  return v;
}

std::optional<uint64_t> Limit64(const uint64_t* array, uint32_t i) {
  if (!array || array[i] == INFINITE64 || array[i] == NO_VAL64)
    return std::nullopt;
  return array[i];
}

}  // namespace

std::shared_ptr<QosSnapshot> ControllerSource::CollectQos(LockTiming& timing,
                                                         std::string&) {
  const LockGateScope gate(locks_closed_);  // adapter_util.h
  auto snap = std::make_shared<QosSnapshot>();
  Arena& arena = snap->arena;
  assoc_mgr_lock_t locks = {};
  locks.qos = READ_LOCK;
  locks.tres = READ_LOCK;
  TimedAssocLock lock(locks, timing);
  if (!assoc_mgr_qos_list) return snap;  // no accounting storage, as above
  // The TRES names once; g_tres_count is the size of every TRES array.
  const uint32_t tres_count = assoc_mgr_tres_name_array ? g_tres_count : 0;
  std::vector<std::string_view> tres_names(tres_count);
  for (uint32_t i = 0; i < tres_count; ++i)
    tres_names[i] = arena.StoreCString(assoc_mgr_tres_name_array[i]);
  ForEachRecord(assoc_mgr_qos_list, [&](void* x) {
    auto* q = static_cast<slurmdb_qos_rec_t*>(x);
    Qos& out = snap->qos.emplace_back();
    out.name = arena.StoreCString(q->name);
    out.priority = q->priority;
    out.grp_jobs_limit = Limit32(q->grp_jobs);
    out.grp_submit_jobs_limit = Limit32(q->grp_submit_jobs);
    out.max_jobs_per_user_limit = Limit32(q->max_jobs_pu);
    out.max_submit_jobs_per_user_limit = Limit32(q->max_submit_jobs_pu);
    if (const auto wall = Limit32(q->max_wall_pj))
      out.max_wall_per_job_seconds = static_cast<int64_t>(*wall) * 60;
    const slurmdb_qos_usage_t* u = q->usage;
    if (u) {
      out.jobs = u->grp_used_jobs;
      out.jobs_submitted = u->grp_used_submit_jobs;
      out.jobs_accruing = u->accrue_cnt;
      out.usage_raw = static_cast<double>(u->usage_raw);
    }
    out.tres.resize(tres_count);
    for (uint32_t i = 0; i < tres_count; ++i) {
      QosTres& t = out.tres[i];
      t.name = tres_names[i];
      if (u && u->grp_used_tres && i < u->tres_cnt) t.used = u->grp_used_tres[i];
      if (u && u->grp_used_tres_run_secs && i < u->tres_cnt)
        t.run_seconds = u->grp_used_tres_run_secs[i];
      t.grp_limit = Limit64(q->grp_tres_ctld, i);
      t.max_per_user_limit = Limit64(q->max_tres_pu_ctld, i);
    }
  });
  return snap;
}

}  // namespace sm::slurm
