// SPDX-License-Identifier: GPL-2.0-or-later
// part_list: part_record_t as slurmctld's partition_mgr.c holds them, with
// node membership on both sides (the partition's bitmap, the node's
// part_pptr).
#include <algorithm>
#include <set>

#include "builders.h"

namespace shim {
namespace {

void FreePart(void* x) {
  auto* p = static_cast<part_record_t*>(x);
  xfree(p->name);
  xfree(p->nodes);
  FREE_NULL_BITMAP(p->node_bitmap);
  xfree(p);
}

// The partitions dump's order, then first appearance on nodes, then in
// jobs' (comma) partition lists.
std::vector<std::string> PartitionOrder(const ClusterIn& in,
                                        const std::vector<NodeIn>& nodes) {
  std::vector<std::string> order;
  std::set<std::string> seen;
  auto add = [&](const std::string& name) {
    if (!name.empty() && seen.insert(name).second) order.push_back(name);
  };
  if (in.partitions)
    for (const PartitionIn& p : *in.partitions) add(p.name);
  for (const NodeIn& n : nodes)
    for (const std::string& p : n.partitions) add(p);
  if (in.jobs) {
    for (const JobIn& j : *in.jobs) {
      size_t pos = 0;
      while (pos <= j.partition.size()) {
        size_t comma = j.partition.find(',', pos);
        if (comma == std::string::npos) comma = j.partition.size();
        add(j.partition.substr(pos, comma - pos));
        pos = comma + 1;
      }
    }
  }
  return order;
}

part_record_t* NewPartition(const std::string& name, const PartitionIn* given) {
  auto* p = static_cast<part_record_t*>(xmalloc(sizeof(part_record_t)));
  p->magic = PART_MAGIC;
  p->name = xstrdup(name.c_str());
  p->node_bitmap = NewNodeBitmap();
  p->state_up = PARTITION_UP;
  p->max_time = INFINITE;
  p->max_nodes = INFINITE;
  if (given) {
    p->max_time = Minutes(given->max_time, given->where, "maximums.time");
    if (given->max_nodes.has())
      p->max_nodes =
          Fit<uint32_t>(given->where, "maximums.nodes", given->max_nodes.value);
  }
#if !SM_SLURM_AT_LEAST(26, 5)
  p->max_nodes_orig = p->max_nodes;  // gone in 26.05
#endif
  return p;
}

// Membership and the totals _build_part_bitmap() keeps.
void AddMembers(const std::vector<NodeIn>& nodes, const PartitionTable& parts) {
  for (int i = 0; i < node_record_count; ++i) {
    node_record_t* rec = node_record_table_ptr[i];
    const NodeIn& n = nodes[i];
    rec->part_cnt = 0;
    rec->part_pptr = static_cast<void**>(xcalloc(n.partitions.size() + 1, sizeof(void*)));
    for (const std::string& name : n.partitions) {
      if (name.empty()) continue;  // no partition has an empty name
      part_record_t* p = parts.at(name);
      if (bit_test(p->node_bitmap, i)) continue;
      bit_set(p->node_bitmap, i);
      p->total_nodes++;
      p->total_cpus += rec->cpus;
      p->max_cpu_cnt = std::max<uint32_t>(p->max_cpu_cnt, rec->cpus);
      p->max_core_cnt = std::max<uint32_t>(p->max_core_cnt, rec->tot_cores);
      rec->part_pptr[rec->part_cnt++] = p;
    }
  }
  for (const auto& [name, p] : parts) p->nodes = bitmap2node_name(p->node_bitmap);
}

}  // namespace

PartitionTable BuildPartitions(const ClusterIn& in,
                               const std::vector<NodeIn>& nodes) {
  std::unordered_map<std::string, const PartitionIn*> given;
  if (in.partitions)
    for (const PartitionIn& p : *in.partitions) given.emplace(p.name, &p);
  part_list = list_create(FreePart);
  PartitionTable parts;
  for (const std::string& name : PartitionOrder(in, nodes)) {
    const auto it = given.find(name);
    part_record_t* p = NewPartition(name, it == given.end() ? nullptr : it->second);
    list_append(part_list, p);
    parts.emplace(name, p);
  }
  AddMembers(nodes, parts);
  return parts;
}

void FreePartitions() { DestroyList(part_list); }

}  // namespace shim
