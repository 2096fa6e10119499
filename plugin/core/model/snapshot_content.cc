// SPDX-License-Identifier: GPL-2.0-or-later
// What two snapshots of a part are compared by: a render takes the families
// that follow from the jobs or the nodes alone from the body it replaces
// when that part's content is what it was (docs/performance.md, "Render
// cost that follows change"). A field left out here would make those
// families stale when only that field changes, so each Hash* below binds
// every field of its struct by name: the compiler counts the names against
// the fields, and a field added to Job, Node, Partition or GresCount stops
// the build until it is named and hashed (padding cannot hide it). The size
// checks stop it when a field's type changes.
#include <iterator>
#include <optional>

#include "model/snapshot.h"

namespace sm {
namespace {

// The layouts when every field below was hashed with its current type
// (x86-64 and aarch64 Linux, the platforms the plugin is built for).
static_assert(sizeof(void*) != 8 || sizeof(Job) == 464,
              "Job changed: hash the new field in HashJobBesidesTimes, then update the size");
static_assert(sizeof(void*) != 8 || sizeof(Node) == 432,
              "Node changed: hash the new field in HashNode, then update the size");
static_assert(sizeof(void*) != 8 || sizeof(Partition) == 88,
              "Partition changed: hash the new field in HashPartition, then update "
              "the size");

void Optional(FingerprintHasher& h, const std::optional<int64_t>& v) {
  h.Word(v.has_value());
  h.Word(static_cast<uint64_t>(v.value_or(0)));
}

// Every field but start_time and end_time (HashJobTimes). Small fields
// share words: a job is hashed for every render after a collection, and
// fewer words is most of what that costs (bench/render_bench.cc,
// BM_JobsContent).
void HashJobBesidesTimes(FingerprintHasher& h, const Job& job) {
  const auto& [id, name, state, flags, state_reason, partition, user_id, user_name, mail_user,
               std_err, std_out, nodes, node_count, array_job_id, array_task_id,
               array_task_string, submit_time, start_time, end_time, tres_alloc, tres_req,
               cpus, memory_per_node_mb, account, statistics_partition, squeue_pending,
               squeue_reason, held, waits_part_node_limit, reason_has_part_node_limit_bit,
               cpus_alloc, memory_alloc_mb, gpus_alloc, gpus_tres, min_nodes, max_nodes,
               array_pending_tasks, node_indices] = job;
  static_cast<void>(start_time);  // HashJobTimes
  static_cast<void>(end_time);
  const std::optional<int64_t>* const optionals[] = {
      &node_count, &array_job_id, &array_task_id, &submit_time, &cpus, &memory_per_node_mb};
  uint64_t present = user_id.has_value();
  for (size_t i = 0; i < std::size(optionals); ++i)
    present |= uint64_t{optionals[i]->has_value()} << (i + 1);
  h.Word(uint64_t{id} | uint64_t{flags} << 32);
  h.Word(static_cast<uint64_t>(state) | present << 8 | uint64_t{squeue_pending} << 32 |
         uint64_t{held} << 33 | uint64_t{waits_part_node_limit} << 34 |
         uint64_t{reason_has_part_node_limit_bit} << 35);
  for (const auto* o : optionals) h.Word(static_cast<uint64_t>(o->value_or(0)));
  h.Word(uint64_t{user_id.value_or(0)} | uint64_t{array_pending_tasks} << 32);
  h.Word(uint64_t{min_nodes} | uint64_t{max_nodes} << 32);
  h.Word(static_cast<uint64_t>(cpus_alloc));
  h.Word(static_cast<uint64_t>(memory_alloc_mb));
  h.Word(static_cast<uint64_t>(gpus_alloc));
  h.Word(static_cast<uint64_t>(gpus_tres));
  for (std::string_view s :
       {name, state_reason, partition, user_name, mail_user, std_err, std_out, nodes,
        array_task_string, tres_alloc, tres_req, account, statistics_partition, squeue_reason})
    h.String(s);
  h.Word(node_indices.size());
  for (uint32_t slot : node_indices) h.Word(slot);
}

void HashJobTimes(FingerprintHasher& h, const Job& j) {
  Optional(h, j.start_time);
  Optional(h, j.end_time);
}

void HashGres(FingerprintHasher& h, const std::vector<GresCount>& gres) {
  h.Word(gres.size());
  for (const GresCount& g : gres) {
    const auto& [type, count] = g;
    h.String(type);
    h.Word(count);
  }
}

void HashNode(FingerprintHasher& h, const Node& node) {
  const auto& [name, instance_id, address, comment, reason, reservation, tres, state,
               stored_base, statistics_base, partitions, cpus, alloc_cpus, alloc_idle_cpus,
               effective_cpus, real_memory_mb, alloc_memory_mb, free_memory_mb,
               specialized_memory_mb, gres_configured, gres_used, state_long, gpus_total,
               gpus_alloc, gpus_tres, power_watts, power_average_watts, energy_joules,
               energy_poll_time] = node;
  for (std::string_view s : {name, instance_id, address, comment, reason, reservation, tres})
    h.String(s);
  const auto& [base, state_flags] = state;
  h.Word(static_cast<uint64_t>(base));
  h.Word(state_flags);
  h.Word(static_cast<uint64_t>(stored_base));
  h.Word(static_cast<uint64_t>(statistics_base));
  h.Word(partitions.size());
  for (std::string_view p : partitions) h.String(p);
  for (const std::optional<int64_t>* o :
       {&cpus, &alloc_cpus, &alloc_idle_cpus, &effective_cpus, &real_memory_mb,
        &alloc_memory_mb, &free_memory_mb, &specialized_memory_mb})
    Optional(h, *o);
  HashGres(h, gres_configured);
  HashGres(h, gres_used);
  h.String(state_long);
  h.Word(static_cast<uint64_t>(gpus_total));
  h.Word(static_cast<uint64_t>(gpus_alloc));
  h.Word(static_cast<uint64_t>(gpus_tres));
  for (const std::optional<int64_t>* o :
       {&power_watts, &power_average_watts, &energy_joules, &energy_poll_time})
    Optional(h, *o);
}

void HashPartition(FingerprintHasher& h, const Partition& partition) {
  const auto& [name, node_indices, total_cpus, total_nodes, max_nodes, unlisted_node_indices] =
      partition;
  h.String(name);
  h.Word(node_indices.size());
  for (uint32_t i : node_indices) h.Word(i);
  h.Word(static_cast<uint64_t>(total_cpus));
  h.Word(static_cast<uint64_t>(total_nodes));
  h.Word(max_nodes);
  h.Word(unlisted_node_indices.size());
  for (uint32_t i : unlisted_node_indices) h.Word(i);
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

// One pass for both: a second walk over 50,000 jobs costs more in cache
// misses than the few words it hashes (bench/render_bench.cc,
// BM_JobsContent).
const std::array<Fingerprint, 2>& JobSnapshot::Contents() const {
  return contents_.Get([this] {
    FingerprintHasher besides, times;
    besides.Word(native_nodes_alloc_per_record);
    besides.Word(jobs.size());
    for (const Job& j : jobs) {
      HashJobBesidesTimes(besides, j);
      HashJobTimes(times, j);
    }
    const Fingerprint b = besides.Finish(), t = times.Finish();
    FingerprintHasher all;
    for (uint64_t w : {b.a, b.b, t.a, t.b}) all.Word(w);
    return std::array<Fingerprint, 2>{all.Finish(), b};
  });
}

Fingerprint JobSnapshot::Content() const { return Contents()[0]; }
Fingerprint JobSnapshot::ContentBesidesTimes() const { return Contents()[1]; }

}  // namespace sm
