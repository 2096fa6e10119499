// SPDX-License-Identifier: GPL-2.0-or-later
// The jobs' job_resources. The plugin sums running jobs' job_resources per
// node, as cons_tres does, rather than asking select (which needs the node
// write lock). So the node dump's alloc_cpus and alloc_memory are made the
// sums of the jobs that run there: nodes are the authority, jobs carry it.
#include <algorithm>

#include "builders.h"
#include "mixed_rule.h"

extern "C" {
#include "src/common/job_resources.h"
}

namespace shim {
namespace {

// Per node slot: what the jobs hold, CPUs of running jobs, memory of
// running and suspended ones.
struct Sums {
  std::vector<int64_t> cpus, mem;
};

Sums SumAllocations(const std::vector<JobAlloc>& allocs, size_t count) {
  Sums s{std::vector<int64_t>(count, 0), std::vector<int64_t>(count, 0)};
  for (const JobAlloc& a : allocs)
    for (const auto& [slot, cm] : a.per_node) {
      if (a.running) s.cpus[slot] += cm.first;
      s.mem[slot] += cm.second;
    }
  return s;
}

// The job that will carry a node's whole allocation: one already on the
// node, else any (running, for CPUs).
JobAlloc* Carrier(std::vector<JobAlloc>& allocs, int slot, bool need_running) {
  JobAlloc* any = nullptr;
  for (JobAlloc& a : allocs) {
    if (need_running && !a.running) continue;
    if (a.per_node.count(slot)) return &a;
    if (!any) any = &a;
  }
  return any;
}

// Moves the node's CPUs or memory (`part`) onto one job when the jobs'
// sum differs from what the dump says the node has allocated.
void Reconcile(std::vector<JobAlloc>& allocs, const NodeIn& n, int slot,
               int64_t want, int64_t have, bool cpus) {
  if (want == have) return;
  // Zero the node on every job, then give the whole amount to one.
  for (JobAlloc& a : allocs) {
    if (cpus && !a.running) continue;
    if (auto it = a.per_node.find(slot); it != a.per_node.end())
      (cpus ? it->second.first : it->second.second) = 0;
  }
  if (want <= 0) return;
  if (JobAlloc* c = Carrier(allocs, slot, cpus)) {
    (cpus ? c->per_node[slot].first : c->per_node[slot].second) = want;
  } else if (cpus) {
    Warn("node-alloc-cpus-unheld", n.where + ".alloc_cpus: " + std::to_string(want) +
         " allocated CPUs, but no running job in the input can hold "
         "them; the plugin derives allocations from running jobs and "
         "will show 0");
  } else {
    Warn("node-alloc-mem-unheld", n.where + ".alloc_memory: " + std::to_string(want) +
         " MB allocated, but no running or suspended job in the input "
         "can hold it; the plugin will show 0");
  }
}

job_resources_t* NewJobResources(const JobAlloc& a) {
  job_resources_t* r = create_job_resources();
  r->nhosts = static_cast<uint32_t>(a.per_node.size());
  r->node_bitmap = NewNodeBitmap();
  r->cpus = static_cast<uint16_t*>(xcalloc(r->nhosts, sizeof(uint16_t)));
  r->memory_allocated = static_cast<uint64_t*>(xcalloc(r->nhosts, sizeof(uint64_t)));
  uint32_t j = 0;
  int64_t total = 0;
  for (const auto& [slot, cm] : a.per_node) {  // ascending slot: bitmap order
    bit_set(r->node_bitmap, slot);
    r->cpus[j] = static_cast<uint16_t>(std::clamp<int64_t>(cm.first, 0, UINT16_MAX));
    r->memory_allocated[j] = static_cast<uint64_t>(std::max<int64_t>(0, cm.second));
    total += r->cpus[j];
    ++j;
  }
  r->ncpus = static_cast<uint32_t>(total);
  r->nodes = bitmap2node_name(r->node_bitmap);
  return r;
}

// Warns where the MIXED the plugin will derive from the carried
// allocations (mixed_rule.h, the plugin's own rule) differs from the dump.
void CheckMixed(const std::vector<JobAlloc>& allocs, const std::vector<NodeIn>& nodes,
                const std::vector<uint32_t>& states, const NodeTable& table) {
  const Sums held = SumAllocations(allocs, nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    const NodeIn& n = nodes[i];
    if (states[i] == NO_VAL) continue;
    const node_record_t* rec = node_record_table_ptr[i];
    const int64_t alloc = std::min<int64_t>(held.cpus[i], rec->cpus_efctv);
    const bool mixed = sm::slurm::ClientShowsMixed(
        rec->cpus_efctv, static_cast<uint16_t>(alloc),
        sm::slurm::HasAllocTres(alloc, held.mem[i], table.gpus_used[i]));
    const bool said_mixed = std::find(n.state.begin(), n.state.end(), "MIXED") != n.state.end();
    if (said_mixed != mixed)
      Warn("node-mixed-differs", n.where + ".state: the dump says " + (said_mixed ? "MIXED" : "not MIXED") +
           " but with " + std::to_string(alloc) + " of " + std::to_string(rec->cpus_efctv) +
           " CPUs allocated the plugin derives " + (mixed ? "MIXED" : "not MIXED"));
  }
}

}  // namespace

void BuildAllocations(std::vector<JobAlloc>& allocs, const std::vector<NodeIn>& nodes,
                      const std::vector<uint32_t>& states, const NodeTable& table) {
  const Sums sums = SumAllocations(allocs, nodes.size());
  for (int i = 0; i < static_cast<int>(nodes.size()); ++i) {
    const NodeIn& n = nodes[i];
    Reconcile(allocs, n, i, n.alloc_cpus.has() ? n.alloc_cpus.value : sums.cpus[i],
              sums.cpus[i], /*cpus=*/true);
    Reconcile(allocs, n, i, n.alloc_memory.has() ? n.alloc_memory.value : sums.mem[i],
              sums.mem[i], /*cpus=*/false);
  }
  for (JobAlloc& a : allocs)
    if (!a.per_node.empty()) a.job->job_resrcs = NewJobResources(a);
  CheckMixed(allocs, nodes, states, table);
}

}  // namespace shim
