// SPDX-License-Identifier: GPL-2.0-or-later
// resv_list: slurmctld 23.02+ keeps a node's active reservation on the node
// (resv_name, build_nodes.cc); 22.05 only here, where the plugin looks it
// up. Built for every release, as slurmctld has one in each.
#include <limits>
#include <map>

#include "builders.h"

namespace shim {
namespace {

void FreeResv(void* x) {
  auto* r = static_cast<slurmctld_resv_t*>(x);
  xfree(r->name);
  xfree(r->node_list);
  FREE_NULL_BITMAP(r->node_bitmap);
  xfree(r);
}

}  // namespace

void BuildReservations(const std::vector<NodeIn>& nodes) {
  resv_list = list_create(FreeResv);
  std::map<std::string, std::vector<int>> resv;
  for (int i = 0; i < static_cast<int>(nodes.size()); ++i)
    if (!nodes[i].reservation.empty()) resv[nodes[i].reservation].push_back(i);
  for (const auto& [name, slots] : resv) {
    auto* r = static_cast<slurmctld_resv_t*>(xmalloc(sizeof(slurmctld_resv_t)));
    r->magic = 0x3b82;  // RESV_MAGIC, private to reservation.c
    r->name = xstrdup(name.c_str());
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
