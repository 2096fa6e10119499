// SPDX-License-Identifier: GPL-2.0-or-later
// Plain copies of slurmctld's node, job, partition and sdiag state: exactly
// what the metric families need, nothing Slurm-specific. Strings are views
// into the snapshot's arena; std::nullopt means "absent" where Soperator
// tells absent from zero.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "arena.h"

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

struct NodeState {
  NodeBase base = NodeBase::kNone;
  uint32_t flags = 0;

  bool has(uint32_t flag) const { return (flags & flag) != 0; }
  bool operator==(const NodeState&) const = default;
};

struct Node {
  std::string_view name;
  std::string_view instance_id;
  std::string_view address;
  std::string_view comment;
  std::string_view reason;       // "" when the node has no reason
  int64_t reason_time = 0;       // unix seconds, 0 when unset
  std::string_view reservation;  // active reservation, "" when none
  std::string_view tres;         // configured TRES, e.g. cpu=16,mem=191356M
  NodeState state;
  std::vector<std::string_view> partitions;

  std::optional<int64_t> cpus;
  std::optional<int64_t> alloc_cpus;
  std::optional<int64_t> alloc_idle_cpus;  // cpus - alloc_cpus, as slurmrestd
  std::optional<int64_t> effective_cpus;
  std::optional<int64_t> real_memory_mb;
  std::optional<int64_t> alloc_memory_mb;
  std::optional<int64_t> free_memory_mb;
  std::optional<int64_t> specialized_memory_mb;

  // For Slurm's native families.
  int64_t gpus_total = 0;
  int64_t gpus_alloc = 0;
  bool alloc_tres_set = false;  // node has an allocated-TRES string

  // node_ptr->node_state & NODE_STATE_BASE as slurmctld holds it. state.base
  // carries the client-side MIXED rewrite; slurmctld's own record is never
  // MIXED, and metrics/openmetrics classifies from this raw base. Unset:
  // state.base stands in.
  std::optional<NodeBase> slurm_base;
  // node_ptr->tres_cnt[gpu_pos], gpu_pos = assoc_mgr_find_tres_pos() of
  // {type "gres", name "gpu"}; 0 when gres/gpu is not in
  // AccountingStorageTRES (gpu_pos -1) or tres_cnt is NULL. This is the
  // number metrics/openmetrics prints as slurm_node_gpus.
  int64_t gpus_tres = 0;
};

struct Partition {
  std::string_view name;
  std::vector<uint32_t> node_indices;  // into NodeSnapshot::nodes
  int64_t total_cpus = 0;
  int64_t total_nodes = 0;
  int64_t total_gpus = 0;
  uint32_t max_nodes = 0;  // partition MaxNodes (NO_VAL/INFINITE = UINT32_MAX)

  // The partition's nodes among NodeSnapshot::unlisted_nodes (bit_test of
  // part_ptr->node_bitmap for their slots).
  std::vector<uint32_t> unlisted_node_indices;
};

struct NodeSnapshot {
  Arena arena;
  Rows<Node> nodes;
  std::vector<Partition> partitions;

  // Node records that clients do not list (FUTURE nodes, nameless slots;
  // see Hidden() in the adapter) but metrics/openmetrics does: every
  // non-NULL entry of next_node() that is not in `nodes`. Only Slurm's
  // native families read them.
  std::vector<Node> unlisted_nodes;
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

struct Job {
  uint32_t id = 0;
  std::string_view name;
  JobBase state = JobBase::kPending;
  uint32_t flags = 0;
  std::string_view state_reason;  // e.g. None, Resources, Priority
  std::string_view partition;
  std::optional<uint32_t> user_id;
  std::string_view user_name;  // "" when the uid does not resolve
  std::string_view mail_user;  // as Slurm reports it (defaults to the user)
  std::string_view std_err;    // expanded, as scontrol/slurmrestd show it
  std::string_view std_out;
  std::string_view nodes;  // ranged host list, e.g. node[1-4]
  std::optional<int64_t> node_count;
  std::optional<int64_t> array_job_id;
  std::optional<int64_t> array_task_id;
  std::string_view array_task_string;
  std::optional<int64_t> submit_time;
  std::optional<int64_t> start_time;
  std::optional<int64_t> end_time;
  std::string_view tres_alloc;
  std::string_view tres_req;
  std::optional<int64_t> cpus;
  std::optional<int64_t> memory_per_node_mb;

  // For Slurm's native families.
  std::string_view account;
  bool held = false;  // priority 0 (user or admin hold)
  int64_t cpus_alloc = 0;
  int64_t memory_alloc_mb = 0;
  int64_t gpus_alloc = 0;
  uint32_t min_nodes = 0;
  uint32_t max_nodes = 0;
  uint32_t array_pending_tasks = 0;  // >0 on an array's pending meta record
  bool wait_part_node_limit = false;
  std::vector<uint32_t> node_indices;  // allocated nodes (running/suspended)
  std::vector<std::string_view> partitions;  // all requested partitions

  // job_ptr->part_ptr->name: the one partition slurmctld holds the job
  // against right now ("" when part_ptr is NULL). `partition` above is the
  // requested comma list while the job is pending; metrics/openmetrics
  // counts a job under part_ptr's name, falling back to job_ptr->partition.
  std::string_view part_ptr_name;
  // job_ptr->state_reason, the raw enum job_state_reason value (WAIT_*,
  // FAIL_*); state_reason above is its string. metrics/openmetrics tests
  // bits of it (state_reason & WAIT_PART_NODE_LIMIT).
  uint32_t state_reason_id = 0;
};

struct JobSnapshot {
  Arena arena;
  Rows<Job> jobs;
};

// ---- Controller statistics (sdiag) ---------------------------------------

struct RpcTypeStat {
  std::string_view message_type;  // e.g. REQUEST_NODE_INFO
  uint32_t type_id = 0;
  uint64_t count = 0;
  uint64_t total_time_us = 0;
};

struct RpcUserStat {
  std::string_view user;  // "" when the uid does not resolve
  uint32_t user_id = 0;
  uint64_t count = 0;
  uint64_t total_time_us = 0;
};

// slurmctld's diag_stats_t and the values sdiag prints beside it.
struct SchedulerStats {
  int64_t time = 0;                 // when the statistics were taken
  int64_t req_time_start = 0;       // last statistics reset
  uint64_t agent_queue_size = 0;
  uint64_t agent_count = 0;
  uint64_t agent_thread_count = 0;
  uint64_t dbd_agent_queue_size = 0;
  uint64_t jobs_submitted = 0;
  uint64_t jobs_started = 0;
  uint64_t jobs_completed = 0;
  uint64_t jobs_canceled = 0;
  uint64_t jobs_failed = 0;
  uint64_t jobs_pending = 0;
  uint64_t jobs_running = 0;
  int64_t job_states_ts = 0;
  uint64_t schedule_cycle_max = 0;
  uint64_t schedule_cycle_last = 0;
  uint64_t schedule_cycle_sum = 0;
  uint64_t schedule_cycle_counter = 0;
  uint64_t schedule_cycle_depth = 0;
  uint64_t schedule_queue_len = 0;
  std::vector<uint64_t> schedule_exit;  // by SCHEDULE_EXIT_* (may be empty)
  uint64_t bf_backfilled_jobs = 0;
  uint64_t bf_last_backfilled_jobs = 0;
  uint64_t bf_backfilled_het_jobs = 0;
  uint64_t bf_cycle_counter = 0;
  uint64_t bf_cycle_sum = 0;
  uint64_t bf_cycle_last = 0;
  uint64_t bf_cycle_max = 0;
  uint64_t bf_last_depth = 0;
  uint64_t bf_last_depth_try = 0;
  uint64_t bf_depth_sum = 0;
  uint64_t bf_depth_try_sum = 0;
  uint64_t bf_queue_len = 0;
  uint64_t bf_queue_len_sum = 0;
  uint64_t bf_table_size = 0;
  uint64_t bf_table_size_sum = 0;
  int64_t bf_when_last_cycle = 0;
  uint64_t bf_active = 0;
  std::vector<uint64_t> bf_exit;  // by BF_EXIT_* (may be empty)
  uint64_t latency = 0;
};

struct DiagSnapshot {
  Arena arena;
  std::optional<int64_t> server_thread_count;
  std::vector<RpcTypeStat> rpc_types;
  std::vector<RpcUserStat> rpc_users;
  SchedulerStats sched;
};

}  // namespace sm
