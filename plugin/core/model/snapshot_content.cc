// SPDX-License-Identifier: GPL-2.0-or-later
// What two snapshots of a part are compared by: a render takes the families
// that follow from the jobs or the nodes alone from the body it replaces
// when that part's content is what it was (docs/performance.md, "Render
// cost that follows change"). A field left out here would make those
// families stale when only that field changes, so the size checks below
// stop the build when Job, Node or Partition gains a field until it is
// added.
#include <iterator>
#include <optional>

#include "model/snapshot.h"

namespace sm {
namespace {

// The layouts when every field below was hashed (x86-64 and aarch64 Linux,
// the platforms the plugin is built for).
static_assert(sizeof(void*) != 8 || sizeof(Job) == 464,
              "Job changed: hash the new field in HashJob, then update the size");
static_assert(sizeof(void*) != 8 || sizeof(Node) == 368,
              "Node changed: hash the new field in HashNode, then update the size");
static_assert(sizeof(void*) != 8 || sizeof(Partition) == 88,
              "Partition changed: hash the new field in HashPartition, then update "
              "the size");

void Optional(FingerprintHasher& h, const std::optional<int64_t>& v) {
  h.Word(v.has_value());
  h.Word(static_cast<uint64_t>(v.value_or(0)));
}

// Small fields share words: a job is hashed for every render after a
// collection, and fewer words is most of what that costs
// (bench/render_bench.cc, BM_JobsContent).
void HashJob(FingerprintHasher& h, const Job& j) {
  const std::optional<int64_t>* const optionals[] = {
      &j.node_count, &j.array_job_id, &j.array_task_id, &j.submit_time,
      &j.start_time, &j.end_time,     &j.cpus,          &j.memory_per_node_mb};
  uint64_t present = j.user_id.has_value();
  for (size_t i = 0; i < std::size(optionals); ++i)
    present |= uint64_t{optionals[i]->has_value()} << (i + 1);
  h.Word(uint64_t{j.id} | uint64_t{j.flags} << 32);
  h.Word(static_cast<uint64_t>(j.state) | present << 8 |
         uint64_t{j.squeue_pending} << 32 | uint64_t{j.held} << 33 |
         uint64_t{j.waits_part_node_limit} << 34 |
         uint64_t{j.reason_has_part_node_limit_bit} << 35);
  for (const auto* o : optionals) h.Word(static_cast<uint64_t>(o->value_or(0)));
  h.Word(uint64_t{j.user_id.value_or(0)} | uint64_t{j.array_pending_tasks} << 32);
  h.Word(uint64_t{j.min_nodes} | uint64_t{j.max_nodes} << 32);
  h.Word(static_cast<uint64_t>(j.cpus_alloc));
  h.Word(static_cast<uint64_t>(j.memory_alloc_mb));
  h.Word(static_cast<uint64_t>(j.gpus_alloc));
  h.Word(static_cast<uint64_t>(j.gpus_tres));
  h.String(j.name);
  h.String(j.state_reason);
  h.String(j.partition);
  h.String(j.user_name);
  h.String(j.mail_user);
  h.String(j.std_err);
  h.String(j.std_out);
  h.String(j.nodes);
  h.String(j.array_task_string);
  h.String(j.tres_alloc);
  h.String(j.tres_req);
  h.String(j.account);
  h.String(j.statistics_partition);
  h.String(j.squeue_reason);
  h.Word(j.node_indices.size());
  for (uint32_t slot : j.node_indices) h.Word(slot);
}

void HashGres(FingerprintHasher& h, const std::vector<GresCount>& gres) {
  h.Word(gres.size());
  for (const GresCount& g : gres) {
    h.String(g.type);
    h.Word(g.count);
  }
}

void HashNode(FingerprintHasher& h, const Node& n) {
  h.String(n.name);
  h.String(n.instance_id);
  h.String(n.address);
  h.String(n.comment);
  h.String(n.reason);
  h.String(n.reservation);
  h.String(n.tres);
  h.Word(static_cast<uint64_t>(n.state.base));
  h.Word(n.state.flags);
  h.Word(static_cast<uint64_t>(n.stored_base));
  h.Word(static_cast<uint64_t>(n.statistics_base));
  h.Word(n.partitions.size());
  for (std::string_view p : n.partitions) h.String(p);
  Optional(h, n.cpus);
  Optional(h, n.alloc_cpus);
  Optional(h, n.alloc_idle_cpus);
  Optional(h, n.effective_cpus);
  Optional(h, n.real_memory_mb);
  Optional(h, n.alloc_memory_mb);
  Optional(h, n.free_memory_mb);
  Optional(h, n.specialized_memory_mb);
  HashGres(h, n.gres_configured);
  HashGres(h, n.gres_used);
  h.String(n.state_long);
  h.Word(static_cast<uint64_t>(n.gpus_total));
  h.Word(static_cast<uint64_t>(n.gpus_alloc));
  h.Word(static_cast<uint64_t>(n.gpus_tres));
}

void HashPartition(FingerprintHasher& h, const Partition& p) {
  h.String(p.name);
  h.Word(p.node_indices.size());
  for (uint32_t i : p.node_indices) h.Word(i);
  h.Word(static_cast<uint64_t>(p.total_cpus));
  h.Word(static_cast<uint64_t>(p.total_nodes));
  h.Word(p.max_nodes);
  h.Word(p.unlisted_node_indices.size());
  for (uint32_t i : p.unlisted_node_indices) h.Word(i);
}

}  // namespace

Fingerprint NodeSnapshot::Content() const {
  return content_.Get([this] {
    FingerprintHasher h;
    h.Word(nodes.size());
    for (const Node& n : nodes) HashNode(h, n);
    h.Word(partitions.size());
    for (const Partition& p : partitions) HashPartition(h, p);
    h.Word(unlisted_nodes.size());
    for (const Node& n : unlisted_nodes) HashNode(h, n);
    return h.Finish();
  });
}

Fingerprint JobSnapshot::Content() const {
  return content_.Get([this] {
    FingerprintHasher h;
    h.Word(native_nodes_alloc_per_record);
    h.Word(jobs.size());
    for (const Job& j : jobs) HashJob(h, j);
    return h.Finish();
  });
}

}  // namespace sm
