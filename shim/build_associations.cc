// SPDX-License-Identifier: GPL-2.0-or-later
// assoc_mgr's association tree (assoc_mgr_assoc_list, assoc_mgr_root_assoc)
// from `sshare --json`: one record per line with the usage fields
// priority/multifactor keeps (shares_norm, usage_raw/norm/efctv, level_fs,
// fs_factor) and the parent pointers _set_assoc_parent_and_user() sets. The
// replay's priority plugin is multifactor with Fair Tree, the default since
// 23.11, under which sshare --json is what slurmctld computed.
#include <cmath>
#include <map>

#include "builders.h"

namespace shim {
namespace {

// print_fields_double()'s "not set" (empty column), or the value.
long double Value(const Real& r) {
  if (r.kind == Num::kInfinite) return INFINITY;
  return r.has() ? r.value : static_cast<long double>(NO_VAL);
}

}  // namespace

void BuildAssociations(const std::vector<ShareIn>& shares) {
  assoc_mgr_lock_t locks = {};
  locks.assoc = WRITE_LOCK;
  assoc_mgr_lock(&locks);
  assoc_mgr_assoc_list = list_create(slurmdb_destroy_assoc_rec);
  std::map<std::string, slurmdb_assoc_rec_t*> accounts;  // account -> its line
  std::vector<std::pair<slurmdb_assoc_rec_t*, const ShareIn*>> built;
  try {
    uint32_t next_id = 1;
    for (const ShareIn& in : shares) {
      auto* a = static_cast<slurmdb_assoc_rec_t*>(xmalloc(sizeof(slurmdb_assoc_rec_t)));
      list_append(assoc_mgr_assoc_list, a);
      a->id = in.id > 0 ? Fit<uint32_t>(in.where, "id", in.id) : next_id;
      next_id = std::max(next_id, a->id + 1);
      // A user line names the user and its account (parent); an account
      // line the account and its parent account.
      a->acct = xstrdup((in.user ? in.parent : in.name).c_str());
      if (in.user) a->user = xstrdup(in.name.c_str());
      a->partition = Dup(in.partition);
      a->shares_raw = in.shares.has() ? Fit<uint32_t>(in.where, "shares", in.shares.value)
                                      : NO_VAL;
      auto* u = static_cast<slurmdb_assoc_usage_t*>(xmalloc(sizeof(slurmdb_assoc_usage_t)));
      a->usage = u;
      u->shares_norm = static_cast<double>(Value(in.shares_normalized));
      u->usage_raw = static_cast<long double>(in.usage);
      u->usage_norm = Value(in.usage_normalized);
      u->usage_efctv = Value(in.effective_usage);
      u->level_fs = Value(in.fairshare_level);
      u->fs_factor = in.fairshare_factor.has() ? in.fairshare_factor.value : 0;
      if (!in.user) accounts.emplace(in.name, a);
      built.emplace_back(a, &in);
    }
    // The root account has no parent; the others hang off theirs.
    for (auto& [a, in] : built) {
      const auto p = accounts.find(in->parent);
      if (!in->user && in->parent.empty()) {
        if (!assoc_mgr_root_assoc) assoc_mgr_root_assoc = a;
        continue;
      }
      if (p == accounts.end() || p->second == a) {
        Warn("share-parent", in->where + ": parent account \"" + in->parent +
                                 "\" has no line of its own; replayed at the top");
        continue;
      }
      a->usage->parent_assoc_ptr = p->second;
      a->usage->fs_assoc_ptr = p->second;
      a->parent_id = p->second->id;
    }
  } catch (...) {
    assoc_mgr_unlock(&locks);
    throw;
  }
  assoc_mgr_unlock(&locks);
  // What sshare's columns mean depends on the priority plugin.
  xfree(slurm_conf.priority_type);
  slurm_conf.priority_type = xstrdup("priority/multifactor");
  slurm_conf.priority_flags |= PRIORITY_FLAGS_FAIR_TREE;
}

void FreeAssociations() {
  assoc_mgr_lock_t locks = {};
  locks.assoc = WRITE_LOCK;
  assoc_mgr_lock(&locks);
  assoc_mgr_root_assoc = nullptr;
  DestroyList(assoc_mgr_assoc_list);
  assoc_mgr_unlock(&locks);
}

}  // namespace shim
