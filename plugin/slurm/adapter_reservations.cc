// SPDX-License-Identifier: GPL-2.0-or-later
// Reservations as `scontrol show reservation` prints them: resv_list under
// the node read lock (what _slurm_rpc_resv_show takes), times as
// _pack_resv() sends them, state and flags as the client formats them.
#include <vector>

#include "adapter_accounting.h"

namespace sm::slurm {
namespace {

struct RawResv {
  std::string_view name, users, nodes, partition;
  bool users_set = false, nodes_set = false;
  uint64_t flags = 0;
  uint32_t purge_comp_time = 0;
  uint32_t duration = 0;
  time_t start_time = 0, start_time_first = 0, end_time = 0;
  uint32_t node_cnt = 0, core_cnt = 0;
};

// printf("%s") of a NULL pointer, as scontrol prints an unset field.
constexpr std::string_view kNull = "(null)";

}  // namespace

std::shared_ptr<ReservationSnapshot> ControllerSource::CollectReservations(
    LockTiming& timing, std::string& error) {
  const LockGateScope gate(locks_closed_);  // adapter_util.h
  const int64_t now = Now();
  auto snap = std::make_shared<ReservationSnapshot>();
  Arena& arena = snap->arena;
  std::vector<RawResv> raws;
  {
    slurmctld_lock_t locks = {};
    locks.node = READ_LOCK;
    TimedLock lock(locks, timing);
    if (!resv_list) {
      error = "no reservation list yet";
      return nullptr;
    }
    ForEachRecord(resv_list, [&](void* x) {
      auto* r = static_cast<slurmctld_resv_t*>(x);
      RawResv& o = raws.emplace_back();
      o.name = arena.StoreCString(r->name);
      o.users = arena.StoreCString(r->users);
      o.users_set = r->users != nullptr;
      o.nodes = arena.StoreCString(r->node_list);
      o.nodes_set = r->node_list != nullptr;
      o.partition = arena.StoreCString(r->partition);
      o.flags = r->flags;
      o.purge_comp_time = r->purge_comp_time;
      o.duration = r->duration;
      o.start_time = r->start_time;
      o.start_time_first = r->start_time_first;
      o.end_time = r->end_time;
      o.node_cnt = r->node_cnt;
      o.core_cnt = r->core_cnt;
    });
  }
  // Off-lock.
  for (const RawResv& r : raws) {
    // _pack_resv(): a floating reservation starts `start_time` seconds from
    // now; others report when they first started.
    int64_t start = r.start_time_first, end = r.end_time;
    if (r.flags & RESERVE_FLAG_TIME_FLOAT) {
      start = r.start_time + now;
      if (r.duration == INFINITE) {
        end = start + YEAR_SECONDS;
      } else if (r.duration && r.duration != NO_VAL) {
        end = start + static_cast<int64_t>(r.duration) * 60;
      } else if (start > end) {
        start = end;
      }
    }
    Reservation& out = snap->reservations.emplace_back();
    out.name = r.name;
    // slurm_sprint_reservation_info(): ACTIVE when start <= now <= end.
    out.state = start <= now && end >= now ? "ACTIVE" : "INACTIVE";
    out.users = r.users_set ? r.users : kNull;
    out.nodes = r.nodes_set ? r.nodes : kNull;
    out.partition = r.partition;  // "(null)" becomes "", as SckyzO reads it
    reserve_info_t info = {};
    info.flags = r.flags;
    info.purge_comp_time = r.purge_comp_time;
    char* flags = reservation_flags_string(&info);
    out.flags = arena.StoreCString(flags);
    xfree(flags);
    out.start_time = start;
    out.end_time = end;
    out.node_count = r.node_cnt == NO_VAL ? 0 : r.node_cnt;
    out.core_count = r.core_cnt;
  }
  return snap;
}

}  // namespace sm::slurm
