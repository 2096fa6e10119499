// SPDX-License-Identifier: GPL-2.0-or-later
// Every endpoint's families rendered from a cluster built from fuzz bytes
// (node, job, partition and sdiag strings of any bytes, odd host lists,
// states, array records, node history and queue waits over two
// collections; associations, QoS, licenses, reservations and node GRES of
// any names and numbers), then both encoders; each body must pass exposition_check.h. Numbers stay in the
// ranges of the Slurm fields they stand for (times within a few centuries,
// counts as 32-bit Slurm counters), as the adapter delivers them.
#include <fuzzer/FuzzedDataProvider.h>

#include <limits>

#include "serving/endpoints.h"
#include "base/hostlist.h"
#include "exposition_check.h"
#include "families/soperator/node_history.h"

using namespace sm;

namespace {

constexpr int64_t kMaxTime = int64_t{1} << 34;  // year 2514

std::string_view Str(FuzzedDataProvider& in, Arena& a, size_t max = 24) {
  return a.Store(in.ConsumeRandomLengthString(max));
}

std::optional<int64_t> MaybeCount(FuzzedDataProvider& in,
                                  int64_t max = UINT32_MAX) {
  if (in.ConsumeBool()) return std::nullopt;
  return in.ConsumeIntegralInRange<int64_t>(0, max);
}

std::shared_ptr<NodeSnapshot> Nodes(FuzzedDataProvider& in) {
  auto s = std::make_shared<NodeSnapshot>();
  const size_t n = in.ConsumeIntegralInRange<size_t>(0, 6);
  std::vector<std::string_view> parts;
  for (size_t i = 0, np = in.ConsumeIntegralInRange<size_t>(0, 3); i < np; ++i)
    parts.push_back(Str(in, s->arena, 12));
  for (size_t i = 0; i < n; ++i) {
    Node& node = s->nodes.emplace_back();
    node.name = Str(in, s->arena, 16);
    node.instance_id = Str(in, s->arena, 8);
    node.address = Str(in, s->arena, 8);
    node.comment = Str(in, s->arena);
    node.reason = Str(in, s->arena);
    node.reservation = Str(in, s->arena, 12);
    node.tres = Str(in, s->arena, 40);
    node.state.base = static_cast<NodeBase>(in.ConsumeIntegralInRange<int>(0, 7));
    node.state.flags = in.ConsumeIntegral<uint32_t>() & ((1u << 22) - 1);
    node.stored_base = static_cast<NodeBase>(in.ConsumeIntegralInRange<int>(0, 7));
    node.statistics_base = static_cast<NodeBase>(in.ConsumeIntegralInRange<int>(0, 7));
    for (std::string_view p : parts)
      if (in.ConsumeBool()) node.partitions.push_back(p);
    node.cpus = MaybeCount(in);
    node.alloc_cpus = MaybeCount(in);
    node.alloc_idle_cpus = MaybeCount(in);
    node.effective_cpus = MaybeCount(in);
    node.real_memory_mb = MaybeCount(in);
    node.alloc_memory_mb = MaybeCount(in);
    node.free_memory_mb = MaybeCount(in);
    node.specialized_memory_mb = MaybeCount(in);
    node.gpus_total = in.ConsumeIntegralInRange<int64_t>(0, UINT32_MAX);
    node.gpus_alloc = in.ConsumeIntegralInRange<int64_t>(0, UINT32_MAX);
    node.gpus_tres = in.ConsumeIntegralInRange<int64_t>(0, UINT32_MAX);
    for (int g = 0, ng = in.ConsumeIntegralInRange<int>(0, 2); g < ng; ++g) {
      node.gres_configured.push_back({Str(in, s->arena, 12), in.ConsumeIntegral<uint64_t>()});
      node.gres_used.push_back({Str(in, s->arena, 12), in.ConsumeIntegral<uint64_t>()});
    }
    node.state_long = Str(in, s->arena, 10);
  }
  if (in.ConsumeBool() && !s->nodes.empty()) {
    Node hidden = s->nodes.back();
    hidden.state.base = NodeBase::kFuture;
    s->unlisted_nodes.push_back(hidden);
  }
  for (std::string_view name : parts) {
    Partition& p = s->partitions.emplace_back();
    p.name = name;
    for (uint32_t i = 0; i < s->nodes.size(); ++i)
      if (in.ConsumeBool()) p.node_indices.push_back(i);
    for (uint32_t i = 0; i < s->unlisted_nodes.size(); ++i)
      p.unlisted_node_indices.push_back(i);
    p.total_cpus = in.ConsumeIntegralInRange<int64_t>(0, UINT32_MAX);
    p.total_nodes = static_cast<int64_t>(p.node_indices.size());
    p.max_nodes = in.ConsumeIntegral<uint32_t>();
  }
  return s;
}

std::shared_ptr<JobSnapshot> Jobs(FuzzedDataProvider& in, size_t node_count) {
  auto s = std::make_shared<JobSnapshot>();
  const size_t n = in.ConsumeIntegralInRange<size_t>(0, 6);
  for (size_t i = 0; i < n; ++i) {
    Job& j = s->jobs.emplace_back();
    j.id = in.ConsumeIntegral<uint32_t>();
    j.name = Str(in, s->arena);
    j.state = static_cast<JobBase>(in.ConsumeIntegralInRange<int>(0, 11));
    j.flags = in.ConsumeIntegral<uint32_t>() & 0xFFFF;
    j.state_reason = Str(in, s->arena, 12);
    j.partition = Str(in, s->arena, 12);
    if (in.ConsumeBool()) j.user_id = in.ConsumeIntegral<uint32_t>();
    j.user_name = Str(in, s->arena, 8);
    j.mail_user = Str(in, s->arena, 8);
    j.std_err = Str(in, s->arena);
    j.std_out = Str(in, s->arena);
    j.nodes = Str(in, s->arena, 40);
    // A million hosts per job is the hostlist target's business; here it
    // would only slow every run down to a few per second.
    if (std::vector<std::string> hosts; ExpandHostList(j.nodes, hosts) &&
                                        hosts.size() > 1000)
      j.nodes = {};
    j.node_count = MaybeCount(in);
    if (in.ConsumeBool()) j.array_job_id = in.ConsumeIntegral<uint32_t>();
    if (in.ConsumeBool()) j.array_task_id = in.ConsumeIntegral<uint32_t>();
    j.array_task_string = Str(in, s->arena, 12);
    for (auto* t : {&j.submit_time, &j.start_time, &j.end_time})
      if (in.ConsumeBool()) *t = in.ConsumeIntegralInRange<int64_t>(0, kMaxTime);
    j.tres_alloc = Str(in, s->arena, 40);
    j.tres_req = Str(in, s->arena, 40);
    j.cpus = MaybeCount(in);
    // The user's --mem: any MB value below the MEM_PER_CPU bit.
    j.memory_per_node_mb = MaybeCount(in, INT64_MAX);
    j.account = Str(in, s->arena, 8);
    j.held = in.ConsumeBool();
    j.cpus_alloc = in.ConsumeIntegralInRange<int64_t>(0, UINT32_MAX);
    j.memory_alloc_mb = in.ConsumeIntegralInRange<int64_t>(0, UINT32_MAX);
    j.gpus_alloc = in.ConsumeIntegralInRange<int64_t>(0, UINT32_MAX);
    j.gpus_tres = in.ConsumeIntegralInRange<int64_t>(0, UINT32_MAX);
    j.min_nodes = in.ConsumeIntegral<uint32_t>();
    j.max_nodes = in.ConsumeIntegral<uint32_t>();
    j.array_pending_tasks = in.ConsumeIntegral<uint32_t>();
    j.waits_part_node_limit = in.ConsumeBool();
    j.reason_has_part_node_limit_bit = in.ConsumeBool();
    for (uint32_t k = 0; k < node_count; ++k)
      if (in.ConsumeBool()) j.node_indices.push_back(k);
    j.statistics_partition = Str(in, s->arena, 12);
    j.squeue_pending = in.ConsumeBool();
    j.squeue_reason = Str(in, s->arena, 16);
  }
  return s;
}

std::optional<double> MaybeReal(FuzzedDataProvider& in) {
  if (in.ConsumeBool()) return std::nullopt;
  switch (in.ConsumeIntegralInRange<int>(0, 3)) {
    case 0: return std::numeric_limits<double>::infinity();
    case 1: return std::numeric_limits<double>::quiet_NaN();
    default: return in.ConsumeFloatingPoint<double>();
  }
}

// Associations, QoS, licenses and reservations: names of any bytes, any
// numbers the adapter can deliver (inf and NaN among sshare's doubles).
void Accounting(FuzzedDataProvider& in, ClusterState& state) {
  auto shares = std::make_shared<ShareSnapshot>();
  for (int i = 0, n = in.ConsumeIntegralInRange<int>(0, 4); i < n; ++i) {
    Share& s = shares->shares.emplace_back();
    s.account = Str(in, shares->arena, 12);
    s.user = in.ConsumeBool() ? Str(in, shares->arena, 8) : std::string_view();
    s.use_parent = in.ConsumeBool();
    if (in.ConsumeBool()) s.raw_shares = in.ConsumeIntegral<uint32_t>();
    s.norm_shares = MaybeReal(in);
    if (in.ConsumeBool()) s.raw_usage = in.ConsumeIntegral<uint64_t>();
    s.norm_usage = MaybeReal(in);
    s.effective_usage = MaybeReal(in);
    s.fairshare = MaybeReal(in);
    s.level_fs = MaybeReal(in);
  }
  state.shares = shares;
  auto qos = std::make_shared<QosSnapshot>();
  for (int i = 0, n = in.ConsumeIntegralInRange<int>(0, 3); i < n; ++i) {
    Qos& q = qos->qos.emplace_back();
    q.name = Str(in, qos->arena, 12);
    q.priority = in.ConsumeIntegral<uint32_t>();
    q.jobs = in.ConsumeIntegral<uint32_t>();
    q.usage_raw = in.ConsumeFloatingPoint<double>();
    if (in.ConsumeBool()) q.grp_jobs_limit = in.ConsumeIntegral<uint32_t>();
    if (in.ConsumeBool()) q.max_wall_per_job_seconds = int64_t{in.ConsumeIntegral<uint32_t>()} * 60;
    for (int t = 0, nt = in.ConsumeIntegralInRange<int>(0, 3); t < nt; ++t) {
      QosTres& x = q.tres.emplace_back();
      x.name = Str(in, qos->arena, 12);
      x.used = in.ConsumeIntegral<uint64_t>();
      x.run_seconds = in.ConsumeIntegral<uint64_t>();
      if (in.ConsumeBool()) x.grp_limit = in.ConsumeIntegral<uint64_t>();
    }
  }
  state.qos = qos;
  auto lics = std::make_shared<LicenseSnapshot>();
  for (int i = 0, n = in.ConsumeIntegralInRange<int>(0, 3); i < n; ++i) {
    License& l = lics->licenses.emplace_back();
    l.name = Str(in, lics->arena, 16);
    l.total = in.ConsumeIntegral<uint32_t>();
    l.used = in.ConsumeIntegral<uint32_t>();
    l.free = in.ConsumeIntegral<uint32_t>();
    l.remote = in.ConsumeBool();
    if (l.remote) l.last_update = in.ConsumeIntegralInRange<int64_t>(0, kMaxTime);
  }
  state.licenses = lics;
  auto resv = std::make_shared<ReservationSnapshot>();
  for (int i = 0, n = in.ConsumeIntegralInRange<int>(0, 3); i < n; ++i) {
    Reservation& r = resv->reservations.emplace_back();
    r.name = Str(in, resv->arena, 16);
    r.state = Str(in, resv->arena, 8);
    r.users = Str(in, resv->arena, 12);
    r.nodes = Str(in, resv->arena, 12);
    r.partition = Str(in, resv->arena, 8);
    r.flags = Str(in, resv->arena, 12);
    if (in.ConsumeBool()) r.start_time = in.ConsumeIntegralInRange<int64_t>(0, kMaxTime);
    if (in.ConsumeBool()) r.end_time = in.ConsumeIntegralInRange<int64_t>(0, kMaxTime);
    r.node_count = in.ConsumeIntegral<uint32_t>();
    r.core_count = in.ConsumeIntegral<uint32_t>();
  }
  state.reservations = resv;
}

std::shared_ptr<DiagSnapshot> Diag(FuzzedDataProvider& in) {
  if (in.ConsumeBool()) return nullptr;
  auto d = std::make_shared<DiagSnapshot>();
  if (in.ConsumeBool()) d->server_thread_count = in.ConsumeIntegralInRange<int64_t>(0, 1 << 16);
  for (int i = 0, n = in.ConsumeIntegralInRange<int>(0, 4); i < n; ++i)
    d->rpc_types.push_back({Str(in, d->arena, 16), in.ConsumeIntegral<uint32_t>(),
                            in.ConsumeIntegral<uint32_t>()});
  for (int i = 0, n = in.ConsumeIntegralInRange<int>(0, 4); i < n; ++i)
    d->rpc_users.push_back({Str(in, d->arena, 8), in.ConsumeIntegral<uint32_t>(),
                            in.ConsumeIntegral<uint32_t>(), in.ConsumeIntegral<uint32_t>()});
  SchedulerStats& st = d->sched;
  st.time = in.ConsumeIntegralInRange<int64_t>(0, kMaxTime);
  st.req_time_start = in.ConsumeIntegralInRange<int64_t>(0, kMaxTime);
  for (uint64_t* v : {&st.jobs_submitted, &st.jobs_started, &st.jobs_pending,
                      &st.schedule_cycle_max, &st.schedule_cycle_sum,
                      &st.schedule_cycle_counter, &st.bf_cycle_counter,
                      &st.bf_cycle_sum, &st.bf_depth_sum, &st.bf_queue_len_sum,
                      &st.bf_active, &st.latency})
    *v = in.ConsumeIntegral<uint32_t>();
  for (uint64_t* v :
       {&st.schedule_exit.end_job_queue, &st.schedule_exit.default_queue_depth,
        &st.schedule_exit.max_job_start, &st.schedule_exit.licenses,
        &st.schedule_exit.max_rpc_cnt, &st.schedule_exit.max_sched_time,
        &st.bf_exit.end_job_queue, &st.bf_exit.bf_max_job_start,
        &st.bf_exit.bf_max_job_test, &st.bf_exit.state_changed,
        &st.bf_exit.bf_node_space_size, &st.bf_exit.bf_max_time})
    *v = in.ConsumeIntegral<uint32_t>();
  st.bf_when_last_cycle = in.ConsumeIntegralInRange<int64_t>(0, kMaxTime);
  return d;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  const RenderOptions opts{in.ConsumeIntegralInRange<int64_t>(0, kMaxTime),
                           in.ConsumeBool(), in.ConsumeBool()};
  ClusterState state;
  auto nodes = Nodes(in);
  // Queue waits: a first jobs collection learns, the second observes.
  QueueWaitHistory queue_wait;
  queue_wait.Observe(*Jobs(in, nodes->nodes.size()));
  state.jobs = Jobs(in, nodes->nodes.size());
  queue_wait.Observe(*state.jobs);
  state.diag = Diag(in);
  Accounting(in, state);
  // Two collections a fuzzed time apart, the second with changed states.
  NodeHistory history(0);
  history.Observe(*nodes, in.ConsumeIntegralInRange<int>(0, 1 << 20));
  for (Node& n : nodes->nodes)
    if (in.ConsumeBool()) n.state = {static_cast<NodeBase>(in.ConsumeIntegralInRange<int>(0, 7)),
                                     in.ConsumeIntegral<uint32_t>() & ((1u << 22) - 1)};
  history.Observe(*nodes, (1 << 20) + in.ConsumeIntegralInRange<int>(0, 1 << 20));
  state.nodes = nodes;
  for (int e = 0; e < kEndpointCount; ++e) {
    MetricSet set;
    AddEndpointFamilies(set, static_cast<Endpoint>(e), state, history, opts,
                        &queue_wait);
    set.Seal();
    for (Format f : {Format::kText, Format::kOpenMetrics}) {
      std::string out;
      set.Write(f, out);
      fuzz::CheckExposition(out, f == Format::kOpenMetrics);
    }
  }
  return 0;
}
