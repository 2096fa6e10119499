// SPDX-License-Identifier: GPL-2.0-or-later
// The contract between the Slurm adapter (plugin/slurm) and the core: plain
// copies of slurmctld's node, job, partition and sdiag state, with every
// Slurm predicate the families need already decided by the adapter (what a
// client of this release prints, which base class Slurm's statistics count
// a node in, held, waiting on a partition node limit). The core formats
// these and never needs Slurm's headers, numbers or strings. Each field
// says what it is in Slurm's terms. Strings are views into the snapshot's
// arena; std::nullopt means "absent" where Soperator tells absent from zero.
#pragma once

#include <array>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/arena.h"
#include "base/fingerprint.h"
#include "model/diag_snapshot.h"

namespace sm {

// ---- Nodes -----------------------------------------------------------------

enum class NodeBase : uint8_t {
  kNone,  // no base state (synthetic input); state_base=""
  kUnknown,
  kDown,
  kIdle,
  kAllocated,
  kError,
  kMixed,
  kFuture,
};

// Node state flags (our own bit numbering; the adapter maps Slurm's).
namespace node_flag {
inline constexpr uint32_t kDrain = 1u << 0;
inline constexpr uint32_t kMaintenance = 1u << 1;
inline constexpr uint32_t kReserved = 1u << 2;
inline constexpr uint32_t kCompleting = 1u << 3;
inline constexpr uint32_t kFail = 1u << 4;
inline constexpr uint32_t kPlanned = 1u << 5;
inline constexpr uint32_t kNotResponding = 1u << 6;
// Slurm prints "INVALID" only when the whole state word is NO_VAL.
inline constexpr uint32_t kInvalid = 1u << 7;
inline constexpr uint32_t kCloud = 1u << 8;
inline constexpr uint32_t kPowerDown = 1u << 9;
inline constexpr uint32_t kPowerDrain = 1u << 10;
inline constexpr uint32_t kPoweredDown = 1u << 11;
inline constexpr uint32_t kPoweringDown = 1u << 12;
inline constexpr uint32_t kPoweringUp = 1u << 13;
inline constexpr uint32_t kPowerUp = 1u << 14;
// Only Slurm's native families look at these.
inline constexpr uint32_t kRebootRequested = 1u << 15;
inline constexpr uint32_t kRebootIssued = 1u << 16;
inline constexpr uint32_t kInvalidReg = 1u << 17;
inline constexpr uint32_t kDynamicFuture = 1u << 18;
inline constexpr uint32_t kDynamicNorm = 1u << 19;
inline constexpr uint32_t kBlocked = 1u << 20;
inline constexpr uint32_t kExternal = 1u << 21;
}  // namespace node_flag

// Made once, on first use, by whichever thread asks first. A moved-to
// snapshot makes its own.
template <class T>
class Lazy {
 public:
  Lazy() = default;
  Lazy(Lazy&&) noexcept {}
  Lazy& operator=(Lazy&&) = delete;
  template <class Make>
  const T& Get(Make&& make) const {
    std::call_once(once_, [&] { value_ = make(); });
    return value_;
  }

 private:
  mutable std::once_flag once_;
  mutable T value_{};
};

struct NodeState {
  NodeBase base = NodeBase::kNone;
  uint32_t flags = 0;

  bool has(uint32_t flag) const { return (flags & flag) != 0; }
  bool operator==(const NodeState&) const = default;
};

// IS_NODE_DRAINING(): DRAIN on a node whose base is ALLOCATED or MIXED.
inline bool IsDraining(NodeBase base, uint32_t flags) {
  return (flags & node_flag::kDrain) != 0 &&
         (base == NodeBase::kAllocated || base == NodeBase::kMixed);
}

// A count of one GRES type on a node: "gpu" untyped, "gpu:h100" typed.
struct GresCount {
  std::string_view type;
  uint64_t count = 0;
};

struct Node {
  std::string_view name;         // node_ptr->name
  std::string_view instance_id;  // node_ptr->instance_id (23.11+), else ""
  std::string_view address;      // node_ptr->comm_name (NodeAddr)
  std::string_view comment;      // node_ptr->comment
  std::string_view reason;       // node_ptr->reason; "" when the node has none
  // The active reservation on the node, "" when none: node_ptr->resv_name
  // (23.02+); on 22.05 the last active resv_list entry holding the node.
  std::string_view reservation;
  std::string_view tres;  // node_ptr->tres_fmt_str, e.g. cpu=16,mem=191356M
  // Soperator's two topology labels, from Slurm's configuration rather
  // than Kubernetes (docs/metrics.md, "Where nodeset_name and
  // nvlink_instance_group come from"): the first NodeSet= line of
  // slurm.conf holding the node, and the topology/block base block holding
  // it; "" when none.
  std::string_view nodeset;
  std::string_view nvlink_instance_group;

  // The state as `scontrol show nodes`/slurmrestd of this release print it
  // (slurm_load_node() with SHOW_MIXED): slurmctld's base, rewritten to
  // MIXED by the client rule of the release the adapter is built for, and
  // slurmctld's flags. NO_VAL is {kNone, kInvalid}.
  NodeState state;
  // node_ptr->node_state & NODE_STATE_BASE: slurmctld's own record, which
  // is never MIXED.
  NodeBase stored_base = NodeBase::kNone;
  // The one base class statistics_get_nodes() of Slurm's metrics/openmetrics
  // (26.05) counts the node in: FUTURE, DOWN, then MIXED when its allocation
  // makes it so (the controller-side copy of the client rule, not applied
  // to FUTURE and DOWN), then ALLOCATED, IDLE, UNKNOWN; kNone for ERROR.
  NodeBase statistics_base = NodeBase::kNone;
  // Names of the partitions holding the node, in part_list order.
  std::vector<std::string_view> partitions;

  // As scontrol/slurmrestd print them: CPUTot and RealMemory of the node's
  // config record, CPUEfctv (cpus_efctv), CPUAlloc and AllocMem (the
  // running jobs' allocations, capped at CPUEfctv), FreeMem (unset while
  // slurmd has not reported it), MemSpecLimit.
  std::optional<int64_t> cpus;
  std::optional<int64_t> alloc_cpus;
  std::optional<int64_t> alloc_idle_cpus;  // cpus - alloc_cpus, as slurmrestd
  std::optional<int64_t> effective_cpus;
  std::optional<int64_t> real_memory_mb;
  std::optional<int64_t> alloc_memory_mb;
  std::optional<int64_t> free_memory_mb;
  std::optional<int64_t> specialized_memory_mb;

  // The node's GRES as `sinfo -N` prints them (SckyzO's
  // slurm_node_gres_*): Gres, the configured string (node_ptr->gres, else
  // its config record's) counted per type, and GresUsed, what
  // _node_gres_used() counts allocated per type; with sinfo's StateLong
  // (node_state_string() of the client's state, lower case: "mixed",
  // "idle*", "drained"). All empty for a node without GRES.
  std::vector<GresCount> gres_configured;
  std::vector<GresCount> gres_used;
  std::string_view state_long;

  // GPUs of the node's gres/gpu entry (gres_list): gres_cnt_avail and
  // gres_cnt_alloc.
  int64_t gpus_total = 0;
  int64_t gpus_alloc = 0;
  // node_ptr->tres_cnt[gpu_pos], gpu_pos = assoc_mgr_find_tres_pos() of
  // {type "gres", name "gpu"}; 0 when gres/gpu is not in
  // AccountingStorageTRES (gpu_pos -1) or tres_cnt is NULL. This is the
  // number metrics/openmetrics prints as slurm_node_gpus.
  int64_t gpus_tres = 0;

  // The node's last energy reading, node_ptr->energy (acct_gather_energy_t,
  // the same fields in every release from 22.05 to 26.05), as slurmd sent
  // it on registration or on slurmctld's AcctGatherNodeFreq poll. All
  // absent when there is no reading: energy NULL, poll_time 0 (no
  // AcctGatherEnergyType plugin, or not polled yet), or current_watts
  // NO_VAL (the plugin cannot read its sensor; scontrol prints
  // CurrentWatts=n/s on 22.05, n/a later). docs/metrics.md "Node power and
  // energy".
  std::optional<int64_t> power_watts;          // current_watts: CurrentWatts
  std::optional<int64_t> power_average_watts;  // ave_watts: AveWatts
  // consumed_energy: joules since slurmd started (restarts from 0 with
  // slurmd); also absent when NO_VAL64.
  std::optional<int64_t> energy_joules;
  std::optional<int64_t> energy_poll_time;  // poll_time: Unix seconds
};

// Every field of a record, once, in declaration order: Fields(record, f)
// calls f with all of them, for code that must see each one (what two
// snapshots are compared by, snapshot_content.cc). The structured binding
// stops the build when a field is added to the struct and not named here
// (and so not compared: a render would keep that field's families stale,
// docs/performance.md "Render cost that follows change").
template <class F>
decltype(auto) Fields(const GresCount& g, F&& f) {
  const auto& [type, count] = g;
  return f(type, count);
}

template <class F>
decltype(auto) Fields(const NodeState& s, F&& f) {
  const auto& [base, flags] = s;
  return f(base, flags);
}

template <class F>
decltype(auto) Fields(const Node& n, F&& f) {
  const auto& [name, instance_id, address, comment, reason, reservation, tres, nodeset,
               nvlink_instance_group, state, stored_base, statistics_base, partitions, cpus, alloc_cpus, alloc_idle_cpus,
               effective_cpus, real_memory_mb, alloc_memory_mb, free_memory_mb,
               specialized_memory_mb, gres_configured, gres_used, state_long, gpus_total,
               gpus_alloc, gpus_tres, power_watts, power_average_watts, energy_joules,
               energy_poll_time] = n;
  return f(name, instance_id, address, comment, reason, reservation, tres, nodeset,
           nvlink_instance_group, state, stored_base, statistics_base, partitions, cpus, alloc_cpus, alloc_idle_cpus, effective_cpus,
           real_memory_mb, alloc_memory_mb, free_memory_mb, specialized_memory_mb,
           gres_configured, gres_used, state_long, gpus_total, gpus_alloc, gpus_tres,
           power_watts, power_average_watts, energy_joules, energy_poll_time);
}

struct Partition {
  std::string_view name;               // part_ptr->name
  std::vector<uint32_t> node_indices;  // into NodeSnapshot::nodes
  // part_ptr->total_cpus and total_nodes: what the partition's node bitmap
  // held when slurmctld last built it.
  int64_t total_cpus = 0;
  int64_t total_nodes = 0;
  uint32_t max_nodes = 0;  // partition MaxNodes (NO_VAL/INFINITE = UINT32_MAX)

  // The partition's nodes among NodeSnapshot::unlisted_nodes (bit_test of
  // part_ptr->node_bitmap for their slots).
  std::vector<uint32_t> unlisted_node_indices;
};

template <class F>
decltype(auto) Fields(const Partition& p, F&& f) {
  const auto& [name, node_indices, total_cpus, total_nodes, max_nodes, unlisted_node_indices] =
      p;
  return f(name, node_indices, total_cpus, total_nodes, max_nodes, unlisted_node_indices);
}

// A listed node's two topology labels (Node::nodeset,
// Node::nvlink_instance_group), by node name: what slurm_node_job labels
// each host of a job with.
struct NodeGroupLabels {
  std::string_view nodeset;
  std::string_view nvlink_instance_group;
};
using NodeGroupIndex = std::unordered_map<std::string_view, NodeGroupLabels>;

struct NodeSnapshot {
  // Every field of every node, partition and unlisted node, as
  // JobSnapshot::Content for the jobs (snapshot_content.cc).
  Fingerprint Content() const;
  // The listed nodes that have a label of NodeGroupLabels, by name (made
  // once, on first use), and what it holds: a group that labels jobs'
  // hosts follows this instead of every node field (state_part::
  // kNodeGroups), which moves far less often.
  const NodeGroupIndex& Groups() const;
  Fingerprint GroupsContent() const;

  Arena arena;
  Rows<Node> nodes;
  std::vector<Partition> partitions;

  // Node records that clients do not list (FUTURE nodes, nameless slots;
  // see Hidden() in the adapter) but metrics/openmetrics does: every
  // non-NULL entry of next_node() that is not in `nodes`. Only Slurm's
  // native families read them.
  std::vector<Node> unlisted_nodes;

 private:
  Lazy<Fingerprint> content_;
  Lazy<NodeGroupIndex> groups_;
  Lazy<Fingerprint> groups_content_;
};

// ---- Jobs ------------------------------------------------------------------

enum class JobBase : uint8_t {
  kPending,
  kRunning,
  kSuspended,
  kCompleted,
  kCancelled,
  kFailed,
  kTimeout,
  kNodeFail,
  kPreempted,
  kBootFail,
  kDeadline,
  kOutOfMemory,
};

namespace job_flag {
inline constexpr uint32_t kLaunchFailed = 1u << 0;
inline constexpr uint32_t kRequeue = 1u << 1;
inline constexpr uint32_t kRequeueHold = 1u << 2;
inline constexpr uint32_t kSpecialExit = 1u << 3;
inline constexpr uint32_t kResizing = 1u << 4;
inline constexpr uint32_t kConfiguring = 1u << 5;
inline constexpr uint32_t kCompleting = 1u << 6;
inline constexpr uint32_t kStopped = 1u << 7;
inline constexpr uint32_t kReconfigFail = 1u << 8;
inline constexpr uint32_t kPowerUpNode = 1u << 9;
inline constexpr uint32_t kRevoked = 1u << 10;
inline constexpr uint32_t kRequeueFed = 1u << 11;
inline constexpr uint32_t kResvDelHold = 1u << 12;
inline constexpr uint32_t kSignaling = 1u << 13;
inline constexpr uint32_t kStageOut = 1u << 14;
inline constexpr uint32_t kExpediting = 1u << 15;
}  // namespace job_flag

// The base state tests of slurm.h, by meaning: IS_JOB_STARTED (past
// PENDING) and IS_JOB_FINISHED (past SUSPENDED: every terminal state,
// COMPLETING ones included).
inline bool IsStarted(JobBase b) { return b != JobBase::kPending; }
inline bool IsFinished(JobBase b) {
  return b != JobBase::kPending && b != JobBase::kRunning &&
         b != JobBase::kSuspended;
}

struct Job {
  uint32_t id = 0;         // job_ptr->job_id
  std::string_view name;   // job_ptr->name
  JobBase state = JobBase::kPending;  // job_state & JOB_STATE_BASE
  uint32_t flags = 0;                 // job_state's flag bits (job_flag)
  // job_state_reason_string(job_ptr->state_reason): None, Resources, ...
  std::string_view state_reason;
  // As clients print it: the requested (comma) list while the job is
  // pending, part_ptr->name once it runs.
  std::string_view partition;
  std::optional<uint32_t> user_id;
  std::string_view user_name;  // "" when the uid does not resolve
  std::string_view mail_user;  // as Slurm reports it (defaults to the user)
  std::string_view std_err;    // expanded, as scontrol/slurmrestd show it
  std::string_view std_out;
  // The allocated nodes as a ranged host list, e.g. node[1-4]; a
  // COMPLETING job's nodes it still completes on.
  std::string_view nodes;
  // NumNodes and NumCPUs as pack_job() reports them (estimates while
  // pending).
  std::optional<int64_t> node_count;
  std::optional<int64_t> array_job_id;
  std::optional<int64_t> array_task_id;  // unset on an array's meta record
  std::string_view array_task_string;    // a meta record's pending tasks, 1-3
  // As pack_job() reports them: a pending job's start is
  // max(estimate, now).
  std::optional<int64_t> submit_time;
  std::optional<int64_t> start_time;
  std::optional<int64_t> end_time;
  std::string_view tres_alloc;  // tres_fmt_alloc_str
  std::string_view tres_req;    // tres_fmt_req_str
  std::optional<int64_t> cpus;
  // details->pn_min_memory when it is per node; absent when per CPU.
  std::optional<int64_t> memory_per_node_mb;

  // For Slurm's native families (statistics_get_jobs() of metrics/
  // openmetrics, 26.05).
  std::string_view account;  // job_ptr->account
  // The partition statistics_get_jobs() counts the job under:
  // part_ptr->name, else job_ptr->partition (the raw request); "" when
  // neither is set.
  std::string_view statistics_partition;
  // As `squeue` prints the job: its %T is PENDING (job_state_string()
  // prints a flag word such as REQUEUE_HOLD or CONFIGURING instead when one
  // is set), and then %r, the reason: state_desc when set (e.g.
  // "ReqNodeNotAvail, UnavailableNodes:ghost[1-2]"), else state_reason's
  // name. squeue_reason is "" unless squeue_pending.
  bool squeue_pending = false;
  std::string_view squeue_reason;
  // Pending with state_reason WAIT_HELD or WAIT_HELD_USER: Slurm's
  // statistics count that as held (a priority of 0 alone is not).
  bool held = false;
  // state_reason is WAIT_PART_NODE_LIMIT (PartitionNodeLimit).
  bool waits_part_node_limit = false;
  // state_reason & WAIT_PART_NODE_LIMIT is non-zero: the test
  // metrics/openmetrics makes (any reason with that bit, any state).
  bool reason_has_part_node_limit_bit = false;
  int64_t cpus_alloc = 0;       // job_ptr->total_cpus
  int64_t memory_alloc_mb = 0;  // tres_alloc_cnt[TRES_ARRAY_MEM]
  // GPUs the job was allocated, read from its allocated GRES
  // (gres_list_alloc): Σ total_gres of its gres/gpu entries, typed and
  // untyped, whatever the request (--gpus, --gpus-per-node, --gres=gpu:...).
  // Kept by a finished record until it is purged, as its TRES are; 0 before
  // the job is allocated and after a requeue. What `scontrol show job -d`
  // prints as JOB_GRES (docs/metrics.md "GPUs per job").
  int64_t gpus_alloc = 0;
  // tres_alloc_cnt[gpu_pos]: the same number when gres/gpu is in
  // AccountingStorageTRES, else 0 (gpu_pos -1). What metrics/openmetrics
  // sums; only NativeValues=yes prints it (docs/metrics-native.md).
  int64_t gpus_tres = 0;
  uint32_t min_nodes = 0;       // details->min_nodes
  uint32_t max_nodes = 0;       // details->max_nodes (0: no maximum)
  // array_recs->task_cnt: >0 on an array's pending meta record, the tasks
  // it still stands for.
  uint32_t array_pending_tasks = 0;
  // Node slots of job_ptr->node_bitmap while RUNNING or SUSPENDED.
  std::vector<uint32_t> node_indices;
};

// A field that moves with the clock alone: a pending job whose estimated
// start has passed shows the collection's time as its start, as squeue
// does (JobSnapshot::ContentBesidesTimes leaves these out).
template <class T>
struct Clocked {
  const T& value;
};
template <class T>
Clocked(const T&) -> Clocked<T>;

template <class F>
decltype(auto) Fields(const Job& j, F&& f) {
  const auto& [id, name, state, flags, state_reason, partition, user_id, user_name, mail_user,
               std_err, std_out, nodes, node_count, array_job_id, array_task_id,
               array_task_string, submit_time, start_time, end_time, tres_alloc, tres_req,
               cpus, memory_per_node_mb, account, statistics_partition, squeue_pending,
               squeue_reason, held, waits_part_node_limit, reason_has_part_node_limit_bit,
               cpus_alloc, memory_alloc_mb, gpus_alloc, gpus_tres, min_nodes, max_nodes,
               array_pending_tasks, node_indices] = j;
  return f(id, name, state, flags, state_reason, partition, user_id, user_name, mail_user,
           std_err, std_out, nodes, node_count, array_job_id, array_task_id, array_task_string,
           submit_time, Clocked{start_time}, Clocked{end_time}, tres_alloc, tres_req, cpus,
           memory_per_node_mb, account, statistics_partition, squeue_pending, squeue_reason,
           held, waits_part_node_limit, reason_has_part_node_limit_bit, cpus_alloc,
           memory_alloc_mb, gpus_alloc, gpus_tres, min_nodes, max_nodes, array_pending_tasks,
           node_indices);
}

struct JobSnapshot {
  // Every field of every job, in order, and the flag below: two snapshots
  // with the same content give every family that reads only the jobs the
  // same rows (snapshot_content.cc; docs/performance.md, "Render cost that
  // follows change"). Not to be called before the snapshot is complete.
  Fingerprint Content() const;
  // The same but for each job's start_time and end_time, which move with
  // the clock for a pending job whose estimated start has passed: for the
  // families that do not read them (state_part::kJobTimes).
  Fingerprint ContentBesidesTimes() const;

  Arena arena;
  Rows<Job> jobs;
  // How this release's own metrics/openmetrics counts the nodes allocated
  // to jobs (slurm_jobs_nodes_alloc, slurm_{user,account}_jobs_nodes_alloc):
  // 25.11.0 to 26.05.1 add up each running or suspended record's nodes,
  // counting a shared node once per job; 26.05.2 and later count distinct
  // nodes (docs/native-semantics.md, section 4). Set by the adapter; only
  // NativeValues=yes prints the per-record sum.
  bool native_nodes_alloc_per_record = false;

 private:
  // Content(), ContentBesidesTimes(): made in one pass over the jobs.
  const std::array<Fingerprint, 2>& Contents() const;
  Lazy<std::array<Fingerprint, 2>> contents_;
};

}  // namespace sm
