// SPDX-License-Identifier: GPL-2.0-or-later
// Plain copies of slurmctld's accounting-side state: associations as sshare
// prints them, QoS usage and limits, licenses as scontrol prints them and
// reservations (each node's GRES by type is part of the node copy,
// snapshot.h). The adapter decides what
// Slurm means (which fields a client prints empty, which limits are unset,
// what a state string is); std::nullopt means "the client prints nothing
// here", and the core emits no series for it. Strings are views into the
// snapshot's arena (or, in tests, into literals).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "base/arena.h"

namespace sm {

// ---- Associations (sshare -l) ----------------------------------------------

// One line of `sshare -a -l -P`: an account (user empty) or a user within an
// account, in slurmctld's association order.
struct Share {
  std::string_view account;  // the account, without sshare's tree indentation
  std::string_view user;     // "" on account lines
  std::string_view partition;
  bool use_parent = false;  // RawShares prints "parent"
  std::optional<uint64_t> raw_shares;
  std::optional<double> norm_shares;
  std::optional<uint64_t> raw_usage;  // sshare's RawUsage (truncated)
  std::optional<double> norm_usage;
  std::optional<double> effective_usage;
  std::optional<double> fairshare;  // the FairShare column
  std::optional<double> level_fs;   // may be +infinity (sshare prints inf)
};

struct ShareSnapshot {
  Arena arena;
  Rows<Share> shares;
};

// ---- QoS ---------------------------------------------------------------------

struct QosTres {
  std::string_view name;  // Slurm's TRES name: cpu, mem, gres/gpu, license/x
  uint64_t used = 0;          // grp_used_tres
  uint64_t run_seconds = 0;   // grp_used_tres_run_secs
  std::optional<uint64_t> grp_limit;           // GrpTRES, when set
  std::optional<uint64_t> max_per_user_limit;  // MaxTRESPerUser, when set
};

struct Qos {
  std::string_view name;
  uint32_t priority = 0;
  uint32_t jobs = 0;            // running (grp_used_jobs)
  uint32_t jobs_submitted = 0;  // pending + running (grp_used_submit_jobs)
  uint32_t jobs_accruing = 0;   // accrue_cnt
  double usage_raw = 0;
  std::optional<uint32_t> grp_jobs_limit;
  std::optional<uint32_t> grp_submit_jobs_limit;
  std::optional<uint32_t> max_jobs_per_user_limit;
  std::optional<uint32_t> max_submit_jobs_per_user_limit;
  std::optional<int64_t> max_wall_per_job_seconds;
  std::vector<QosTres> tres;
};

struct QosSnapshot {
  Arena arena;
  std::vector<Qos> qos;
};

// ---- Licenses (scontrol show licenses) ---------------------------------------

struct License {
  std::string_view name;  // remote licenses: name@server
  uint64_t total = 0;
  uint64_t used = 0;
  uint64_t free = 0;  // as the client computes it for the release
  uint64_t reserved = 0;
  bool remote = false;
  // 23.02+, remote licenses only (what scontrol prints).
  std::optional<uint64_t> last_consumed;
  std::optional<uint64_t> last_deficit;
  std::optional<int64_t> last_update;  // unix seconds
};

struct LicenseSnapshot {
  Arena arena;
  std::vector<License> licenses;
};

// ---- Reservations (scontrol show reservation) --------------------------------

struct Reservation {
  std::string_view name;
  std::string_view state;      // ACTIVE or INACTIVE, at collection time
  std::string_view users;      // as scontrol prints them ("(null)" if unset)
  std::string_view nodes;      // likewise
  std::string_view partition;  // "" if unset
  std::string_view flags;      // e.g. MAINT,SPEC_NODES
  std::optional<int64_t> start_time;  // unix seconds
  std::optional<int64_t> end_time;
  uint64_t node_count = 0;
  uint64_t core_count = 0;
};

struct ReservationSnapshot {
  Arena arena;
  std::vector<Reservation> reservations;
};

}  // namespace sm

namespace sm {

// ---- slurmctld's link to slurmdbd (self-monitoring) --------------------------

// What slurmctld itself knows about how current its association data is:
// the fairshare, QoS usage and association families are whatever it holds,
// which goes stale while slurmdbd is away. Read without any lock (plain
// words slurmctld writes; a file its decay thread rewrites).
struct AccountingStatus {
  // AccountingStorageType=accounting_storage/slurmdbd; nothing below is
  // meaningful without it.
  bool slurmdbd = false;
  // Its persistent connection to slurmdbd is open (slurmdbd_conn_active(),
  // asked through acct_storage_g_get_data(ACCT_STORAGE_INFO_CONN_ACTIVE)).
  bool connected = false;
  // slurmctld runs on the association state it saved (running_cache): it
  // could not reach slurmdbd when it started and has not reloaded since.
  bool from_state_file = false;
  // When priority/multifactor's decay thread last recomputed usage and
  // fairshare (StateSaveLocation/priority_last_decay_ran), unix seconds.
  std::optional<int64_t> last_decay;
};

}  // namespace sm
