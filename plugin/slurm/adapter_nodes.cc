// SPDX-License-Identifier: GPL-2.0-or-later
// Nodes, as slurmrestd lists them with SHOW_ALL|SHOW_DETAIL|SHOW_MIXED.
#include <span>
#include <unordered_map>
#include <vector>

#include "adapter.h"
#include "adapter_accounting.h"
#include "adapter_util.h"
#include "mixed_rule.h"
#include "node_groups.h"
#include "families/accounting/node_gres.h"

namespace sm::slurm {
namespace {

NodeState MapNodeState(uint32_t raw) {
  NodeState s;
  if (raw == NO_VAL) {  // slurmrestd prints "INVALID" only for this
    s.base = NodeBase::kNone;
    s.flags = node_flag::kInvalid;
    return s;
  }
  switch (raw & NODE_STATE_BASE) {
    case NODE_STATE_UNKNOWN: s.base = NodeBase::kUnknown; break;
    case NODE_STATE_DOWN: s.base = NodeBase::kDown; break;
    case NODE_STATE_IDLE: s.base = NodeBase::kIdle; break;
    case NODE_STATE_ALLOCATED: s.base = NodeBase::kAllocated; break;
    case NODE_STATE_ERROR: s.base = NodeBase::kError; break;
    case NODE_STATE_MIXED: s.base = NodeBase::kMixed; break;
    case NODE_STATE_FUTURE: s.base = NodeBase::kFuture; break;
    default: s.base = NodeBase::kNone; break;
  }
  static const BitMap<uint32_t> kBits[] = {
      {NODE_STATE_DRAIN, node_flag::kDrain},
      {NODE_STATE_MAINT, node_flag::kMaintenance},
      {NODE_STATE_RES, node_flag::kReserved},
      {NODE_STATE_COMPLETING, node_flag::kCompleting},
      {NODE_STATE_FAIL, node_flag::kFail},
      {NODE_STATE_PLANNED, node_flag::kPlanned},
      {NODE_STATE_NO_RESPOND, node_flag::kNotResponding},
      {NODE_STATE_CLOUD, node_flag::kCloud},
      {NODE_STATE_POWER_DOWN, node_flag::kPowerDown},
      {NODE_STATE_POWER_DRAIN, node_flag::kPowerDrain},
      {NODE_STATE_POWERED_DOWN, node_flag::kPoweredDown},
      {NODE_STATE_POWERING_DOWN, node_flag::kPoweringDown},
      {NODE_STATE_POWERING_UP, node_flag::kPoweringUp},
      {NODE_STATE_POWER_UP, node_flag::kPowerUp},
      {NODE_STATE_REBOOT_REQUESTED, node_flag::kRebootRequested},
      {NODE_STATE_REBOOT_ISSUED, node_flag::kRebootIssued},
      {NODE_STATE_INVALID_REG, node_flag::kInvalidReg},
      {NODE_STATE_DYNAMIC_FUTURE, node_flag::kDynamicFuture},
      {NODE_STATE_DYNAMIC_NORM, node_flag::kDynamicNorm},
#if SM_SLURM_AT_LEAST(24, 5)
      {NODE_STATE_BLOCKED, node_flag::kBlocked},
#endif
#if SM_SLURM_AT_LEAST(25, 5)
      {NODE_STATE_EXTERNAL, node_flag::kExternal},
#endif
  };
  s.flags |= MapBits(raw, kBits);
  return s;
}

// Values needed after the locks are released.
struct Raw {
  uint32_t index;
  uint32_t state;
  uint16_t cpus_efctv;
  bool listed;  // false: hidden from clients, kept for native families
  std::string_view gres;  // listed nodes' configured GRES string
  // The node's GresUsed entries in NodeCopy::gres_used.
  uint32_t gres_begin;
  uint32_t gres_count;
};

// Allocated CPUs and memory per node slot, summed over the jobs holding
// resources. Mirrors cons_tres: running jobs hold CPUs and memory, a
// suspended job keeps its memory.
//
// Where the select plugin keeps these numbers, per release:
// - 22.05/24.11: node->select_nodeinfo (select_g_select_nodeinfo_get()).
// - 25.05/25.11: node->alloc_cpus, alloc_memory, alloc_tres_fmt_str.
// - 26.05: node_select_stats_array[node->index] under the select_node lock.
// In every release they are refreshed only by
// select_g_select_nodeinfo_set_all(), which needs the node WRITE lock
// (22.05-25.11) or the select_node WRITE lock (26.05), and which slurmctld
// calls on demand only (node RPCs, its own /metrics/nodes, health checks,
// some backfill paths), never periodically. Our collection never takes a
// write lock (docs/performance.md, the lock table), and reading those fields under read locks without
// set_all gives whatever the last client request left there: stale for as
// long as nobody runs sinfo. So in every release we keep summing the job
// allocations under the read locks we already hold (job R is held with
// node R): always current, consistent with the job snapshot, and equal to
// what set_all computes (the cons_tres core union of running jobs, capped
// at the effective CPUs; the summed memory of running and suspended jobs)
// except for jobs that share cores (OverSubscribe/--overlap), which set_all
// counts once and we cap at cpus_efctv.
struct Allocation {
  std::vector<uint64_t> cpus;
  std::vector<uint64_t> memory_mb;
};

void SumJobAllocations(Allocation& a) {
  // Every job record is looked at for its state: prefetch a few ahead (see
  // ForEachRecordPrefetched), the walk is memory-bound.
  ForEachRecordPrefetched(job_list, [](void* x) {
    auto* job = static_cast<const job_record_t*>(x);
    __builtin_prefetch(&job->job_state);
    __builtin_prefetch(&job->job_resrcs);
  }, [&](void* x) {
    auto* job = static_cast<job_record_t*>(x);
    const bool running = IS_JOB_RUNNING(job);
    if ((!running && !IS_JOB_SUSPENDED(job)) || !job->job_resrcs) return;
    job_resources_t* r = job->job_resrcs;
    uint32_t j = 0;
    ForEachSetBit(r->node_bitmap, [&](uint32_t node) {
      if (node < a.cpus.size() && j < r->nhosts) {
        if (running && r->cpus) a.cpus[node] += r->cpus[j];
        if (r->memory_allocated) a.memory_mb[node] += r->memory_allocated[j];
      }
      ++j;
    });
  });
}

void GpuCounts(node_record_t* node, Node& out) {
  if (!node->gres_list) return;
  const uint32_t gpu = GpuPluginId();
  ForEachRecord(node->gres_list, [&](void* x) {
    auto* gs = static_cast<gres_state_t*>(x);
    if (gs->plugin_id != gpu || !gs->gres_data) return;
    auto* ns = static_cast<gres_node_state_t*>(gs->gres_data);
    out.gpus_total += static_cast<int64_t>(ns->gres_cnt_avail);
    out.gpus_alloc += static_cast<int64_t>(ns->gres_cnt_alloc);
  });
}

// The node's last energy reading (Node::power_watts and the rest). Plain
// numbers out of node_ptr->energy, which slurmctld overwrites under the
// node write lock (update_node_record_acct_gather_data(), registration):
// nothing allocated per node (tests/shim/locked_allocs.py).
void CopyEnergy(const node_record_t* node, Node& n) {
  const acct_gather_energy_t* e = node->energy;
  // No plugin or no poll yet leaves the calloc'd zeros; NO_VAL watts is a
  // plugin that cannot read its sensor (scontrol prints n/s or n/a).
  if (!e || !e->poll_time || e->current_watts == NO_VAL) return;
  n.power_watts = e->current_watts;
  n.power_average_watts = e->ave_watts;
  if (e->consumed_energy != NO_VAL64)
    n.energy_joules = static_cast<int64_t>(e->consumed_energy);
  n.energy_poll_time = static_cast<int64_t>(e->poll_time);
}

// The fields every node record gets, listed or not; `n` is a fresh Node.
void CopyNode(node_record_t* node, Arena& arena, int gpu_pos, Node& n) {
  n.name = arena.StoreCString(node->name);
  n.address = arena.StoreCString(node->comm_name);
  n.comment = arena.StoreCString(node->comment);
  n.reason = arena.StoreCString(node->reason);
  n.tres = arena.StoreCString(node->tres_fmt_str);
#if SM_SLURM_AT_LEAST(23, 11)
  n.instance_id = arena.StoreCString(node->instance_id);
#endif
#if SM_SLURM_AT_LEAST(23, 2)
  n.reservation = arena.StoreCString(node->resv_name);
#endif
  n.state = MapNodeState(node->node_state);
  n.stored_base = n.state.base;  // state.base gets the client's MIXED later
  // What scontrol and slurmrestd show: the configured values.
  n.cpus = node->config_ptr ? node->config_ptr->cpus : node->cpus;
  n.effective_cpus = node->cpus_efctv;
  n.real_memory_mb = static_cast<int64_t>(
      node->config_ptr ? node->config_ptr->real_memory : node->real_memory);
  if (node->free_mem != NO_VAL64)
    n.free_memory_mb = static_cast<int64_t>(node->free_mem);
  n.specialized_memory_mb = static_cast<int64_t>(node->mem_spec_limit);
  if (gpu_pos >= 0 && node->tres_cnt)
    n.gpus_tres = static_cast<int64_t>(node->tres_cnt[gpu_pos]);
  GpuCounts(node, n);
  CopyEnergy(node, n);
}

inline void PrefetchNode(const node_record_t* node) {
  __builtin_prefetch(&node->name);
  __builtin_prefetch(&node->comm_name);
  __builtin_prefetch(&node->node_state);
  __builtin_prefetch(&node->config_ptr);
  __builtin_prefetch(&node->cpus_efctv);
  __builtin_prefetch(&node->free_mem);
  __builtin_prefetch(&node->tres_fmt_str);
  __builtin_prefetch(&node->gres_list);
  __builtin_prefetch(&node->reason);
  __builtin_prefetch(&node->energy);
}

// Hidden from clients that do not pass SHOW_FUTURE (slurmrestd does not).
bool Hidden(node_record_t* node) {
  if (!node->name || !node->name[0]) return true;
  if (IS_NODE_FUTURE(node)) return true;
#if !SM_SLURM_AT_LEAST(23, 2)
  // 22.05 also hides powered-down cloud nodes unless PrivateData=cloud.
  if (!(slurm_conf.private_data & PRIVATE_CLOUD_NODES) && IS_NODE_CLOUD(node) &&
      IS_NODE_POWERED_DOWN(node))
    return true;
#endif
  return false;
}

// The state bases that depend on the node's allocation: what clients
// print (SHOW_MIXED) and the class Slurm's statistics count.
void DeriveBases(Node& n, const Raw& raw, bool alloc_tres) {
  const auto alloc = static_cast<uint16_t>(n.alloc_cpus.value_or(0));
  if (ClientShowsMixed(raw.cpus_efctv, alloc, alloc_tres))
    n.state.base = NodeBase::kMixed;
  n.statistics_base =
      StatisticsBase(n.stored_base, raw.cpus_efctv, alloc, alloc_tres);
}

// One node collection's working set. PresizeNodeCopy() allocates and
// touches it off-lock from the last collection's sizes, so that the copy
// under the locks (CopyNodesLocked) neither calls malloc nor page-faults
// unless the tables grew past them (tests/shim/locked_allocs.py counts).
struct NodeCopy {
  std::shared_ptr<NodeSnapshot> snap;
  int gpu_pos = -1;
  size_t slots = 0;     // node_record_count at the copy
  size_t n_listed = 0;  // nodes[0, n_listed) were written
  std::vector<Raw> raws;
  Allocation alloc;
  // Partition membership as (partition, node slot) pairs in partition-list
  // order; grouped by node off-lock. Reservation names by node slot (22.05).
  std::vector<std::pair<uint32_t, uint32_t>> members;
  std::vector<std::string_view> resv_names;
  std::vector<Partition> partitions;
  std::vector<GresCount> gres_used;  // every listed node's (Raw::gres_begin)
  NodeGroupCopy groups;
};

void SizeForSlots(NodeCopy& c, size_t slots) {
  c.slots = slots;
  c.snap->nodes.resize(slots);
  c.raws.resize(slots);
  c.alloc.cpus.assign(slots, 0);
  c.alloc.memory_mb.assign(slots, 0);
  c.resv_names.assign(slots, {});
}

// Off-lock: room for last time's nodes, memberships and strings plus a
// margin; resize() then clear() keeps the capacity with its pages touched.
void PresizeNodeCopy(NodeCopy& c, const NodeCopySizes& last) {
  if (!last.slots) return;  // the first collection: nothing to go by
  SizeForSlots(c, last.slots);
  c.snap->unlisted_nodes.resize(last.unlisted + 64);
  c.snap->unlisted_nodes.clear();
  c.members.resize(last.members + 64);
  c.members.clear();
  c.partitions.resize(last.partitions + 16);
  c.partitions.clear();
  c.gres_used.resize(last.gres + last.gres / 8 + 64);
  c.gres_used.clear();
  c.groups.nodesets.reserve(last.nodesets + 16);
  c.groups.feature_set_by_slot.reserve(last.slots);
  c.snap->arena.Reserve(last.bytes * 9 / 8);
}

// Under the node read lock: every node record, listed or not.
void CopyNodeTable(NodeCopy& c) {
  Arena& arena = c.snap->arena;
  size_t n_raw = 0;
  constexpr int kAhead = 8;  // node records prefetched ahead
  for (int i = 0; i < kAhead && i < node_record_count; ++i)
    if (node_record_table_ptr[i]) PrefetchNode(node_record_table_ptr[i]);
  node_record_t* node;
  for (int i = 0; (node = next_node(&i)); ++i) {
    if (i + kAhead < node_record_count && node_record_table_ptr[i + kAhead])
      PrefetchNode(node_record_table_ptr[i + kAhead]);
    const bool is_listed = !Hidden(node);
    std::string_view gres;
    const size_t gres_begin = c.gres_used.size();
    if (is_listed) {
      CopyNode(node, arena, c.gpu_pos, c.snap->nodes[c.n_listed++]);
      // What sinfo -N shows: listed nodes only.
      gres = CopyNodeGres(node, arena, c.gres_used);
    } else {
      CopyNode(node, arena, c.gpu_pos, c.snap->unlisted_nodes.emplace_back());
    }
    c.raws[n_raw++] = {static_cast<uint32_t>(node->index), node->node_state,
                       node->cpus_efctv, is_listed, gres,
                       static_cast<uint32_t>(gres_begin),
                       static_cast<uint32_t>(c.gres_used.size() - gres_begin)};
  }
  c.raws.resize(n_raw);
}

// Under the partition read lock, in slurm_populate_node_partitions()'s
// order (the partition list's).
void CopyPartitions(NodeCopy& c) {
  Arena& arena = c.snap->arena;
  ForEachRecord(part_list, [&](void* x) {
    auto* part = static_cast<part_record_t*>(x);
    const auto index = static_cast<uint32_t>(c.partitions.size());
    Partition& p = c.partitions.emplace_back();
    p.name = arena.StoreCString(part->name);
    p.total_cpus = part->total_cpus;
    p.total_nodes = part->total_nodes;
    p.max_nodes = part->max_nodes;
    ForEachSetBit(part->node_bitmap, [&](uint32_t slot) {
      if (slot < c.slots) c.members.emplace_back(index, slot);
    });
  });
}

#if !SM_SLURM_AT_LEAST(23, 2)
// 22.05 has no node->resv_name: the last active reservation wins, as
// _set_nodes_flags() would have set it. Under the node read lock, which
// also protects resv_list.
void CopyActiveReservations(NodeCopy& c, time_t now) {
  ForEachRecord(resv_list, [&](void* x) {
    auto* resv = static_cast<slurmctld_resv_t*>(x);
    if (resv->start_time > now || resv->end_time <= now) return;
    const std::string_view name = c.snap->arena.StoreCString(resv->name);
    ForEachSetBit(resv->node_bitmap, [&](uint32_t slot) {
      if (slot < c.slots) c.resv_names[slot] = name;
    });
  });
}
#endif

// The whole locked part of a node collection: one hold of the conf, job,
// node and partition read locks. Copies raw fields only.
bool CopyNodesLocked(NodeCopy& c, LockTiming& timing, std::string& error,
                     [[maybe_unused]] time_t now) {
  slurmctld_lock_t locks = {};
  locks.conf = READ_LOCK;
  locks.job = READ_LOCK;
  locks.node = READ_LOCK;  // also protects resv_list
  locks.part = READ_LOCK;
  TimedLock lock(locks, timing);
  if (slurmctld_config.shutdown_time) {  // node_fini() may be next
    error = "slurmctld is shutting down";
    return false;
  }
  const size_t count = node_record_count > 0 ? node_record_count : 0;
  if (count == 0) {
    error = "node table not loaded yet";
    return false;
  }
  if (count != c.slots) SizeForSlots(c, count);  // allocates: the table changed
  CopyNodeTable(c);
  CopyPartitions(c);
  CopyNodeSetsLocked(c.groups, c.snap->arena, c.slots);
#if !SM_SLURM_AT_LEAST(23, 2)
  CopyActiveReservations(c, now);
#endif
  SumJobAllocations(c.alloc);
  return true;
}

// Off-lock: node slot -> position in nodes or unlisted_nodes.
struct Where {
  bool listed;
  uint32_t position;
};

// Off-lock: partition membership per node, then each partition's node
// slots turned into positions in nodes (listed) or unlisted_nodes.
void PlacePartitions(NodeCopy& c,
                     const std::unordered_map<uint32_t, Where>& where) {
  for (Partition& p : c.partitions) {
    std::vector<uint32_t> listed, unlisted;
    listed.reserve(p.node_indices.size());
    for (uint32_t slot : p.node_indices) {
      const auto it = where.find(slot);
      if (it == where.end()) continue;
      (it->second.listed ? listed : unlisted).push_back(it->second.position);
    }
    p.node_indices = std::move(listed);
    p.unlisted_node_indices = std::move(unlisted);
  }
  c.snap->partitions = std::move(c.partitions);
}

// Off-lock: what the locked copy left raw, worked out per node.
void DeriveNode(NodeCopy& c, const Raw& raw, Node& n,
                std::vector<std::string_view>&& partitions) {
  n.partitions = std::move(partitions);
#if !SM_SLURM_AT_LEAST(23, 2)
  n.reservation = c.resv_names[raw.index];
#endif
  const auto gres = std::span(c.gres_used).subspan(raw.gres_begin, raw.gres_count);
  n.gres_used.assign(gres.begin(), gres.end());
  const int64_t used = static_cast<int64_t>(c.alloc.cpus[raw.index]);
  // cons_tres never reports more than the effective CPUs.
  n.alloc_cpus = used > raw.cpus_efctv ? raw.cpus_efctv : used;
  n.alloc_idle_cpus = *n.cpus - *n.alloc_cpus;  // slurmrestd's arithmetic
  n.alloc_memory_mb = static_cast<int64_t>(c.alloc.memory_mb[raw.index]);
  DeriveBases(n, raw,
              HasAllocTres(*n.alloc_cpus, *n.alloc_memory_mb, n.gpus_alloc));
  n.gres_configured = ParseGresCounts(raw.gres);
  if (!n.gres_configured.empty() || !n.gres_used.empty())
    n.state_long = NodeStatusLong(raw.state, n.state.base == NodeBase::kMixed,
                                  c.snap->arena);
}

// Off-lock: everything derived from the raw copy.
void DeriveNodes(NodeCopy& c) {
  NodeSnapshot& snap = *c.snap;
  snap.nodes.resize(c.n_listed);
  std::vector<std::vector<std::string_view>> part_names(c.slots);
  for (const auto& [index, slot] : c.members) {
    Partition& p = c.partitions[index];
    part_names[slot].push_back(p.name);
    p.node_indices.push_back(slot);
  }
  std::unordered_map<uint32_t, Where> where;
  where.reserve(c.raws.size());
  std::vector<uint32_t> listed_slots(c.n_listed);
  uint32_t listed_pos = 0, unlisted_pos = 0;
  for (const Raw& raw : c.raws) {
    const uint32_t pos = raw.listed ? listed_pos++ : unlisted_pos++;
    where[raw.index] = {raw.listed, pos};
    if (raw.listed) listed_slots[pos] = raw.index;
    Node& n = raw.listed ? snap.nodes[pos] : snap.unlisted_nodes[pos];
    DeriveNode(c, raw, n, std::move(part_names[raw.index]));
  }
  PlacePartitions(c, where);
  AssignNodeGroups(c.groups, listed_slots, snap);
}

}  // namespace

// Collect and serve only while this slurmctld is the controller in charge:
// its node table is loaded (not yet the case while init() runs, nor on a
// backup that never took over) and it is not in standby (a backup that
// handed control back keeps its stale tables). See InStandby().
bool ControllerSource::Active() {
  // Once shutdown begins no new collection starts: 22.05-24.11 free the
  // node table and job list (node_fini(), job_fini()) without any lock and
  // before our fini() can stop the collector.
  const bool active = node_record_count > 0 && !InStandby() &&
                      slurmctld_config.shutdown_time == 0;
  // A standby lets go of the job snapshot kept for path reuse (a
  // collection still running may keep one until the next tick asks).
  if (!active) ForgetStdioMemo();
  return active;
}

std::shared_ptr<NodeSnapshot> ControllerSource::CollectNodes(
    LockTiming& timing, std::string& error) {
  const LockGateScope gate(locks_closed_);  // adapter_util.h
  NodeCopy c;
  c.snap = std::make_shared<NodeSnapshot>();
  c.gpu_pos = GpuTresPosition();
  PresizeNodeCopy(c, node_sizes_.Load());
  if (!CopyNodesLocked(c, timing, error, Now())) return nullptr;
  node_sizes_.Store({c.slots, c.members.size(), c.snap->arena.bytes_used(),
                     c.snap->unlisted_nodes.size(), c.partitions.size(),
                     c.gres_used.size(), c.groups.nodesets.size()});
  // After the node copy's hold, in one of its own (node_groups.h).
  CopyBlocks(c.groups, c.snap->arena, timing);
  DeriveNodes(c);
  return std::move(c.snap);
}

}  // namespace sm::slurm
