// SPDX-License-Identifier: GPL-2.0-or-later
// What the shim reads from Slurm's JSON, before it becomes controller
// records: one release-independent model for every input dialect. No Slurm
// headers here; controller.cc turns this into node_record_t, job_record_t,
// part_record_t, ... of the release the shim is built for.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace shim {

// A number as data_parser prints it: plain, null, or {set, infinite, number}.
struct Num {
  enum Kind : uint8_t { kAbsent, kUnset, kInfinite, kValue };
  Kind kind = kAbsent;
  int64_t value = 0;

  bool has() const { return kind == kValue; }
  int64_t or_else(int64_t d) const { return kind == kValue ? value : d; }
  static Num Of(int64_t v) { return {kValue, v}; }
};

struct NodeIn {
  std::string where;  // "FILE: .nodes[3]", for messages
  std::string name;
  // Upper-case state words: at most one base (IDLE, MIXED, ...) and flags
  // (DRAIN, NOT_RESPONDING, ...), or the single word INVALID.
  std::vector<std::string> state;
  std::string address;
  std::string hostname;
  std::string comment;
  std::string reason;
  int64_t reason_time = 0;
  std::string instance_id;
  std::string reservation;
  std::string tres;       // configured TRES
  std::string tres_used;  // allocated TRES
  std::vector<std::string> partitions;
  Num cpus, effective_cpus, alloc_cpus, real_memory, alloc_memory, free_mem,
      specialized_memory, cores, sockets, threads;
  // The last energy reading, `energy` of scontrol show node --json (23.11+;
  // 22.05's JSON has none). current_watts unset is NO_VAL (no sensor).
  Num energy_current_watts;
  int64_t energy_average_watts = 0;
  int64_t energy_consumed = 0;        // joules
  int64_t energy_last_collected = 0;  // poll_time; 0: never read
};

// One node of a job's allocation (job_resources).
struct AllocIn {
  std::string node;
  int64_t cpus = 0;
  int64_t memory_mb = 0;
};

struct JobIn {
  std::string where;
  int64_t job_id = 0;
  std::string name;
  // Base state word first (PENDING, RUNNING, ...), then flag words.
  std::vector<std::string> state;
  std::string state_reason = "None";
  std::string state_description;  // job_ptr->state_desc ("" when unset)
  std::string partition;
  std::string account;
  int64_t user_id = 0;
  std::optional<std::string> user_name;
  std::optional<std::string> mail_user;
  std::string std_out, std_err, work_dir;
  bool batch = false;
  std::string nodes;
  Num node_count, cpus, memory_per_node, memory_per_cpu;
  Num array_job_id, array_task_id;
  std::string array_task_string;
  int64_t array_max_tasks = 0;
  Num submit_time, start_time, end_time, time_limit, priority;
  std::string tres_alloc, tres_req;
  // squeue --json's gres_detail: the job's allocated GRES, one string per
  // node as `scontrol show job -d` prints them ("gpu:a100:1(IDX:0)").
  std::vector<std::string> gres_detail;
  Num max_nodes;
  std::optional<std::vector<AllocIn>> alloc;  // job_resources, when given
};

struct PartitionIn {
  std::string where;
  std::string name;
  Num max_time;   // minutes
  Num max_nodes;
};

struct RpcTypeIn {
  std::string message_type;
  std::optional<int64_t> type_id;
  int64_t count = 0;
  int64_t total_time_us = 0;
};

struct RpcUserIn {
  std::string user;
  int64_t user_id = 0;
  int64_t count = 0;
  int64_t total_time_us = 0;
};

struct DiagIn {
  std::string where;
  Num server_thread_count;
  std::vector<RpcTypeIn> rpc_types;
  std::vector<RpcUserIn> rpc_users;
  // Everything else sdiag prints, by data_parser key (req_time,
  // jobs_submitted, bf_cycle_sum, ...; schedule_exit/bf_exit members as
  // "schedule_exit.end_job_queue").
  std::map<std::string, int64_t> values;
};

// One license as `scontrol show licenses --json` prints it (23.02+: the
// last_* fields of remote licenses).
struct LicenseIn {
  std::string where;
  std::string name;  // remote: name@server
  int64_t total = 0, used = 0, reserved = 0;
  bool remote = false;
  int64_t last_consumed = 0, last_deficit = 0, last_update = 0;
};

// One reservation as `scontrol show reservations --json` prints it
// (23.02+). Empty strings are Slurm's NULL ones.
struct ReservationIn {
  std::string where;
  std::string name, users, node_list, partition;
  std::vector<std::string> flags;  // scontrol's words (SPEC_NODES, MAINT, ...)
  Num start_time, end_time, node_count, core_count, purge_completed;
};

// A TRES limit or count in data_parser's form: "gres/gpu" for
// {"type": "gres", "name": "gpu"}.
struct TresIn {
  std::string name;
  int64_t count = 0;
};

// One QoS as `sacctmgr show qos --json` prints it: its limits. Usage lives
// only in slurmctld (scontrol show assoc_mgr), so a replay has none.
struct QosIn {
  std::string where;
  std::string name;
  int64_t id = 0;
  Num priority, grp_jobs, grp_submit_jobs, max_jobs_per_user,
      max_submit_jobs_per_user, max_wall_per_job;  // minutes
  std::vector<TresIn> grp_tres, max_tres_per_user;
};

// A double as data_parser prints it: unset, infinite or a value.
struct Real {
  Num::Kind kind = Num::kAbsent;
  double value = 0;
  bool has() const { return kind == Num::kValue; }
};

// One line of `sshare --json` (23.02+): an account (type ASSOCIATION; name
// is the account, parent its parent account) or a user (type USER; name is
// the user, parent the account).
struct ShareIn {
  std::string where;
  int64_t id = 0;
  std::string name, parent, partition;
  bool user = false;
  Num shares;  // RawShares; 2147483647 is "parent"
  Real shares_normalized, usage_normalized, effective_usage, fairshare_factor,
      fairshare_level;
  int64_t usage = 0;  // RawUsage
};

// One NodeSet= line of slurm.conf: its Nodes= host list and/or Feature=.
struct NodeSetIn {
  std::string name, nodes, feature;
};

// One block of topology/block, as `scontrol show topology` prints it
// (BlockName=, or AggregatedBlock= for a block of blocks) or topology.conf
// declares it (BlockName=).
struct BlockIn {
  std::string name, nodes;
  bool aggregated = false;
};

// One cluster state: what a set of dumps taken together describe. A part
// that no input provided stays unset.
struct ClusterIn {
  std::optional<std::vector<NodeIn>> nodes;
  std::optional<std::vector<JobIn>> jobs;
  std::optional<std::vector<PartitionIn>> partitions;
  std::optional<DiagIn> diag;
  std::optional<std::vector<LicenseIn>> licenses;
  std::optional<std::vector<ReservationIn>> reservations;
  std::optional<std::vector<QosIn>> qos;
  std::optional<std::vector<ShareIn>> shares;
  // slurm.conf's NodeSet= lines and the block topology, from the text of
  // slurm.conf / `scontrol show topology` (input_conf_text.cc).
  std::vector<NodeSetIn> nodesets;
  std::vector<BlockIn> blocks;
  // The TRES names in assoc_mgr's order, as sshare --json lists them.
  std::vector<std::string> tres_names;
  std::string cluster_name;
  // When the dumps were taken, if they say: sdiag's req_time (or "sdiag
  // output at"), the responses' last_update stamps.
  std::optional<int64_t> req_time;
  std::optional<int64_t> last_update;
  // Latest event time seen in the data (submit, start, end of finished
  // jobs, node reason and boot times): the last resort.
  int64_t latest_event = 0;

  // The best guess for "now" at the dump: req_time, else last_update,
  // else latest_event.
  std::optional<int64_t> DumpTime() const {
    if (req_time) return req_time;
    if (last_update) return last_update;
    if (latest_event > 0) return latest_event;
    return std::nullopt;
  }
};

// uid -> user name as the dumps resolved it ("" = did not resolve).
using UserTable = std::map<int64_t, std::string>;

}  // namespace shim
