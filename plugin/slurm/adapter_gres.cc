// SPDX-License-Identifier: GPL-2.0-or-later
// Each node's GRES by type, as sinfo's Gres and GresUsed columns show them
// (SckyzO's slurm_node_gres_*), and sinfo's StateLong for the `status`
// label. Copied inside the node walk, under its node read lock. And each
// job's allocated GPUs, copied inside the job walk.
//
// gres_get_node_used(), which fills GresUsed, writes to slurmctld (it
// rebuilds the cached gres_node_state_t.gres_used string), so we never call
// it: CopyNodeGres() counts what its _node_gres_used() prints.
#include <algorithm>
#include <cctype>
#include <cstdint>

#include "adapter_accounting.h"
#include "families/accounting/node_gres.h"

namespace sm::slurm {
namespace {

// "name" or "name:type" in the arena; a NULL type prints "(null)", which
// SckyzO's parser drops.
std::string_view TypeKey(Arena& arena, const char* name, const char* type) {
  const std::string_view n = name ? name : "";
  if (!type) return arena.Store(n);
  const std::string_view t = type;
  char* p = arena.Allocate(n.size() + 1 + t.size());
  memcpy(p, n.data(), n.size());
  p[n.size()] = ':';
  memcpy(p + n.size() + 1, t.data(), t.size());
  return {p, n.size() + 1 + t.size()};
}

// Appends to `used`, whose entries from `begin` on are this node's.
void AddUsed(std::vector<GresCount>& used, size_t begin, std::string_view key,
             uint64_t count) {
  for (size_t i = begin; i < used.size(); ++i) {
    if (used[i].type == key) {  // SckyzO sums a repeated type
      used[i].count += count;
      return;
    }
  }
  used.push_back({key, count});
}

// _node_gres_used()'s count for the topo records of type topo_type_id[i]:
// the union of their bitmaps (only those sized like the first one present),
// ANDed with the allocation when sizes agree; shared GRES (23.11+) sum the
// per-record allocated counts. Without allocating: a bit is in the union
// when one of the group's equally sized bitmaps has it.
uint64_t TopoGroupCount(const gres_node_state_t* ns, int i, bool shared) {
  uint64_t count = 0;
  if (shared) {
    for (int j = i; j < ns->topo_cnt; ++j)
      if (ns->topo_type_id[j] == ns->topo_type_id[i])
        count += ns->topo_gres_cnt_alloc[j];
    return count;
  }
  bitstr_t* first = nullptr;
  for (int j = i; j < ns->topo_cnt && !first; ++j)
    if (ns->topo_type_id[j] == ns->topo_type_id[i]) first = ns->topo_gres_bitmap[j];
  if (!first || !ns->gres_bit_alloc ||
      bit_size(first) != bit_size(ns->gres_bit_alloc))
    return 0;
  const bitoff_t size = bit_size(first);
  for (bitoff_t b = 0; b < size; ++b) {
    if (!bit_test(ns->gres_bit_alloc, b)) continue;
    for (int j = i; j < ns->topo_cnt; ++j) {
      bitstr_t* m = ns->topo_gres_bitmap[j];
      if (ns->topo_type_id[j] != ns->topo_type_id[i] || !m ||
          bit_size(m) != size)
        continue;
      if (bit_test(m, b)) {
        ++count;
        break;
      }
    }
  }
  return count;
}

void CopyGresState(gres_state_t* gs, Arena& arena, std::vector<GresCount>& out,
                   size_t begin) {
  auto* ns = static_cast<gres_node_state_t*>(gs->gres_data);
  if (!ns) return;
#if SM_SLURM_AT_LEAST(24, 5)
  if (!ns->gres_cnt_avail) return;  // _node_gres_used() prints nothing
#endif
  const char* name = gs->gres_name;
  if (ns->topo_cnt && !ns->no_consume) {
#if SM_SLURM_AT_LEAST(23, 11)
    const bool shared = gres_is_shared_name(const_cast<char*>(name));
#else
    const bool shared = false;
#endif
    // One entry per type, in the order of each type's first record.
    for (int i = 0; i < ns->topo_cnt; ++i) {
      bool seen = false;
      for (int j = 0; j < i && !seen; ++j)
        seen = ns->topo_type_id[j] == ns->topo_type_id[i];
      if (seen) continue;
      AddUsed(out, begin, TypeKey(arena, name, ns->topo_type_name[i]),
              TopoGroupCount(ns, i, shared));
    }
  } else if (ns->type_cnt == 0) {
    AddUsed(out, begin, TypeKey(arena, name, nullptr),
            ns->no_consume ? 0 : ns->gres_cnt_alloc);
  } else {
    for (int i = 0; i < ns->type_cnt; ++i)
      AddUsed(out, begin, TypeKey(arena, name, ns->type_name[i]),
              ns->no_consume ? 0 : ns->type_cnt_alloc[i]);
  }
}

}  // namespace

std::string_view CopyNodeGres(node_record_t* node, Arena& arena,
                              std::vector<GresCount>& used) {
  // What the node RPC packs as the node's Gres (sinfo's Gres column).
  const char* configured =
      node->gres ? node->gres : (node->config_ptr ? node->config_ptr->gres : nullptr);
  const std::string_view copy = arena.StoreCString(configured);
  const size_t begin = used.size();
  ForEachRecord(node->gres_list, [&](void* x) {
    CopyGresState(static_cast<gres_state_t*>(x), arena, used, begin);
  });
  return copy;
}

// gres_ctld_set_job_tres_cnt() counts the same entries into
// tres_alloc_cnt (the gres/gpu total is Σ total_gres, a no_consume entry's
// NO_CONSUME_VAL64 aside), but only when gres/gpu is an accounted TRES: we
// read the list itself, so the count does not depend on
// AccountingStorageTRES (docs/metrics-native.md, "GPUs").
int64_t JobAllocatedGpus(job_record_t* job) {
  uint64_t total = 0;
  const uint32_t gpu = GpuPluginId();
  ForEachRecord(job->gres_list_alloc, [&](void* x) {
    auto* gs = static_cast<gres_state_t*>(x);
    if (gs->plugin_id != gpu || !gs->gres_data) return;
    const uint64_t n = static_cast<gres_job_state_t*>(gs->gres_data)->total_gres;
    if (n == NO_CONSUME_VAL64 || n == NO_VAL64) return;
    total += n;
  });
  return static_cast<int64_t>(std::min<uint64_t>(total, INT64_MAX));
}

std::string_view NodeStatusLong(uint32_t node_state, bool mixed, Arena& arena) {
  if (mixed) node_state = (node_state & ~NODE_STATE_BASE) | NODE_STATE_MIXED;
  // sinfo's _print_state_long(): node_state_string(), lower-cased.
  const char* s = node_state_string(node_state);
  std::string_view upper = s ? s : "";
  char* p = arena.Allocate(upper.size());
  for (size_t i = 0; i < upper.size(); ++i)
    p[i] = static_cast<char>(std::tolower(static_cast<unsigned char>(upper[i])));
  return {p, upper.size()};
}

}  // namespace sm::slurm
