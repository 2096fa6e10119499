// SPDX-License-Identifier: GPL-2.0-or-later
// assoc_mgr's QoS list and TRES names (libslurmfull's assoc_mgr globals,
// which the plugin reads under assoc_mgr's read locks): the limits of
// `sacctmgr show qos --json` in the `_ctld` arrays slurmctld derives from
// the TRES strings (assoc_mgr_set_qos_tres_cnt). sacctmgr prints no usage
// (running jobs, UsageRaw live only in slurmctld), so the replay has none.
// The TRES they name become assoc_mgr's TRES table, so a job's GPUs sit at
// gres/gpu's position of its TRES array as in slurmctld (build_jobs.cc).
#include <unordered_map>

#include "builders.h"

namespace shim {
namespace {

// Slurm's built-in TRES, in their id order (slurmdbd creates them first).
constexpr const char* kBuiltinTres[] = {"cpu",     "mem",  "energy", "node",
                                        "billing", "fs/disk", "vmem", "pages"};

uint32_t Limit32(const Num& n, const std::string& where, const char* field) {
  if (!n.has()) return INFINITE;  // unset or infinite: no limit
  return Fit<uint32_t>(where, field, n.value);
}

// A `_ctld` array: INFINITE64 (no limit) except the TRES the list names.
uint64_t* TresArray(const std::vector<TresIn>& list,
                    const std::unordered_map<std::string, uint32_t>& pos,
                    uint32_t count, const std::string& where, const char* field) {
  auto* out = static_cast<uint64_t*>(xcalloc(count ? count : 1, sizeof(uint64_t)));
  for (uint32_t i = 0; i < count; ++i) out[i] = INFINITE64;
  for (const TresIn& t : list)
    out[pos.at(t.name)] = Fit<uint64_t>(where, field, t.count);
  return out;
}

}  // namespace

void BuildQos(const std::vector<QosIn>& qos, const std::vector<std::string>& tres_names) {
  // The TRES array: sshare's order when given, else the built-in TRES;
  // then any other TRES a QoS limit names.
  std::vector<std::string> names = tres_names;
  if (names.empty()) names.assign(std::begin(kBuiltinTres), std::end(kBuiltinTres));
  std::unordered_map<std::string, uint32_t> pos;
  for (const std::string& n : names) pos.emplace(n, static_cast<uint32_t>(pos.size()));
  for (const QosIn& q : qos)
    for (const auto* list : {&q.grp_tres, &q.max_tres_per_user})
      for (const TresIn& t : *list)
        if (pos.emplace(t.name, static_cast<uint32_t>(names.size())).second)
          names.push_back(t.name);
  const auto count = static_cast<uint32_t>(names.size());

  assoc_mgr_lock_t locks = {};
  locks.qos = WRITE_LOCK;
  locks.tres = WRITE_LOCK;
  assoc_mgr_lock(&locks);
  // Both views of the TRES, as assoc_mgr_post_tres_list() keeps them: the
  // records (assoc_mgr_find_tres_pos() walks them) and their names.
  g_tres_count = count;
  assoc_mgr_tres_name_array = static_cast<char**>(xcalloc(count ? count : 1, sizeof(char*)));
  assoc_mgr_tres_array = static_cast<slurmdb_tres_rec_t**>(
      xcalloc(count ? count : 1, sizeof(slurmdb_tres_rec_t*)));
  for (uint32_t i = 0; i < count; ++i) {
    assoc_mgr_tres_name_array[i] = xstrdup(names[i].c_str());
    auto* t = static_cast<slurmdb_tres_rec_t*>(xmalloc(sizeof(slurmdb_tres_rec_t)));
    const size_t slash = names[i].find('/');
    t->type = xstrdup(names[i].substr(0, slash).c_str());
    if (slash != std::string::npos) t->name = xstrdup(names[i].substr(slash + 1).c_str());
    t->id = i < std::size(kBuiltinTres) && names[i] == kBuiltinTres[i] ? i + 1 : 1001 + i;
    assoc_mgr_tres_array[i] = t;
  }
  assoc_mgr_qos_list = list_create(slurmdb_destroy_qos_rec);
  try {
    for (const QosIn& in : qos) {
      auto* q = static_cast<slurmdb_qos_rec_t*>(xmalloc(sizeof(slurmdb_qos_rec_t)));
      list_append(assoc_mgr_qos_list, q);
      q->name = xstrdup(in.name.c_str());
      q->id = Fit<uint32_t>(in.where, "id", in.id);
      q->priority = in.priority.has() ? Fit<uint32_t>(in.where, "priority", in.priority.value) : 0;
      q->grp_jobs = Limit32(in.grp_jobs, in.where, "GrpJobs");
      q->grp_submit_jobs = Limit32(in.grp_submit_jobs, in.where, "GrpSubmitJobs");
      q->max_jobs_pu = Limit32(in.max_jobs_per_user, in.where, "MaxJobsPerUser");
      q->max_submit_jobs_pu =
          Limit32(in.max_submit_jobs_per_user, in.where, "MaxSubmitJobsPerUser");
      q->max_wall_pj = Limit32(in.max_wall_per_job, in.where, "MaxWall");
      q->grp_tres_ctld = TresArray(in.grp_tres, pos, count, in.where, "GrpTRES");
      q->max_tres_pu_ctld = TresArray(in.max_tres_per_user, pos, count, in.where, "MaxTRESPU");
      auto* u = static_cast<slurmdb_qos_usage_t*>(xmalloc(sizeof(slurmdb_qos_usage_t)));
      q->usage = u;
      u->tres_cnt = count;
      u->grp_used_tres = static_cast<uint64_t*>(xcalloc(count ? count : 1, sizeof(uint64_t)));
      u->grp_used_tres_run_secs =
          static_cast<uint64_t*>(xcalloc(count ? count : 1, sizeof(uint64_t)));
    }
  } catch (...) {
    assoc_mgr_unlock(&locks);
    throw;
  }
  g_qos_count = static_cast<uint32_t>(list_count(assoc_mgr_qos_list));
  assoc_mgr_unlock(&locks);
}

void FreeQos() {
  assoc_mgr_lock_t locks = {};
  locks.qos = WRITE_LOCK;
  locks.tres = WRITE_LOCK;
  assoc_mgr_lock(&locks);
  DestroyList(assoc_mgr_qos_list);
  for (uint32_t i = 0; assoc_mgr_tres_name_array && i < g_tres_count; ++i) {
    xfree(assoc_mgr_tres_name_array[i]);
    slurmdb_destroy_tres_rec(assoc_mgr_tres_array[i]);
  }
  xfree(assoc_mgr_tres_name_array);
  xfree(assoc_mgr_tres_array);
  g_tres_count = 0;
  g_qos_count = 0;
  assoc_mgr_unlock(&locks);
}

}  // namespace shim
