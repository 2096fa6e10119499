// SPDX-License-Identifier: GPL-2.0-or-later
// resv_list: what `scontrol show reservations --json` (23.02+) printed,
// then one record per name the nodes carry that it did not list (slurmctld
// 23.02+ keeps a node's active reservation on the node, resv_name,
// build_nodes.cc; 22.05 only here, where the plugin looks it up). Built for
// every release, as slurmctld has one in each.
#include <limits>
#include <map>
#include <set>
#include <unordered_map>

#include "builders.h"

extern "C" {
#include "src/common/hostlist.h"
}

namespace shim {
namespace {

void FreeResv(void* x) {
  auto* r = static_cast<slurmctld_resv_t*>(x);
  xfree(r->name);
  xfree(r->node_list);
  xfree(r->users);
  xfree(r->partition);
  FREE_NULL_BITMAP(r->node_bitmap);
  xfree(r);
}

// data_parser's flag words -> RESERVE_FLAG_* bits, learnt from the release's
// own reservation_flags_string() one bit at a time: the words it prints are
// data_parser's. The others (SKIP, USER_DELETE, ...) are not printed by
// scontrol either, so nothing the plugin exports depends on them.
uint64_t FlagBit(const std::string& word) {
  static const std::unordered_map<std::string, uint64_t> kBits = [] {
    std::unordered_map<std::string, uint64_t> m;
    for (int b = 0; b < 64; ++b) {
      reserve_info_t info = {};
      info.flags = uint64_t{1} << b;
      char* s = reservation_flags_string(&info);
      if (s && *s && !strchr(s, ',')) m.emplace(s, info.flags);
      xfree(s);
    }
    return m;
  }();
  const auto it = kBits.find(word);
  return it == kBits.end() ? 0 : it->second;
}

int64_t Time(const Num& n, int64_t unset) {
  if (n.kind == Num::kInfinite) return std::numeric_limits<time_t>::max();
  return n.has() ? n.value : unset;
}

slurmctld_resv_t* NewResv(const std::string& name) {
  auto* r = static_cast<slurmctld_resv_t*>(xmalloc(sizeof(slurmctld_resv_t)));
  r->magic = 0x3b82;  // RESV_MAGIC, private to reservation.c
  r->name = xstrdup(name.c_str());
  return r;
}

// One reservation as slurmctld holds it; _pack_resv() sends start_time_first
// as the start of a reservation that does not float.
void AddDumped(const ReservationIn& in, const NodeTable& table) {
  slurmctld_resv_t* r = NewResv(in.name);
  list_append(resv_list, r);
  r->users = Dup(in.users);
  r->partition = Dup(in.partition);
  r->node_list = Dup(in.node_list);
  // Hosts the node dump does not have are left out of the bitmap.
  r->node_bitmap = NewNodeBitmap();
  if (!in.node_list.empty()) {
    if (auto hl = hostlist_create(in.node_list.c_str())) {
      while (char* host = hostlist_shift(hl)) {
        if (const auto it = table.slot.find(host); it != table.slot.end())
          bit_set(r->node_bitmap, it->second);
        free(host);
      }
      hostlist_destroy(hl);
    }
  }
  for (const std::string& w : in.flags) {
    const uint64_t bit = FlagBit(w);
    if (!bit)
      Warn("resv-flag", in.where + ": flag " + w +
                            " is not one scontrol prints on this release; dropped");
    r->flags |= bit;
  }
  if (r->flags & RESERVE_FLAG_TIME_FLOAT)
    Warn("resv-float", in.where + ": a floating reservation is replayed as fixed "
                                  "(its start moves with the replay's clock in slurmctld)");
  r->flags &= ~static_cast<uint64_t>(RESERVE_FLAG_TIME_FLOAT);
  r->start_time = r->start_time_first = Time(in.start_time, 0);
  r->end_time = Time(in.end_time, std::numeric_limits<time_t>::max());
  r->node_cnt = in.node_count.has() ? Fit<uint32_t>(in.where, "node_count", in.node_count.value)
                                    : bit_set_count(r->node_bitmap);
  r->core_cnt = in.core_count.has() ? Fit<uint32_t>(in.where, "core_count", in.core_count.value)
                                    : 0;
  if (in.purge_completed.has())
    r->purge_comp_time = Fit<uint32_t>(in.where, "purge_completed", in.purge_completed.value);
}

}  // namespace

void BuildReservations(const std::vector<NodeIn>& nodes, const NodeTable& table,
                       const std::vector<ReservationIn>* dumped) {
  resv_list = list_create(FreeResv);
  std::set<std::string> listed;
  for (size_t i = 0; dumped && i < dumped->size(); ++i) {
    if (!listed.insert((*dumped)[i].name).second) continue;
    AddDumped((*dumped)[i], table);
  }
  std::map<std::string, std::vector<int>> resv;
  for (int i = 0; i < static_cast<int>(nodes.size()); ++i)
    if (!nodes[i].reservation.empty() && !listed.count(nodes[i].reservation))
      resv[nodes[i].reservation].push_back(i);
  for (const auto& [name, slots] : resv) {
    slurmctld_resv_t* r = NewResv(name);
    r->node_bitmap = NewNodeBitmap();
    for (int s : slots) bit_set(r->node_bitmap, s);
    r->node_list = bitmap2node_name(r->node_bitmap);
    r->node_cnt = static_cast<uint32_t>(slots.size());
    // Active for as long as anyone replays it.
    r->start_time = 0;
    r->end_time = std::numeric_limits<time_t>::max();
    list_append(resv_list, r);
  }
}

void FreeReservations() { DestroyList(resv_list); }

}  // namespace shim
