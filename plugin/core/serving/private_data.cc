// SPDX-License-Identifier: GPL-2.0-or-later
#include "serving/private_data.h"

#include <atomic>

#include "exposition/exposition.h"

namespace sm {
namespace {

using private_data::kAccounts;
using private_data::kJobs;
using private_data::kNodes;
using private_data::kPartitions;
using private_data::kReservations;
using private_data::kUsers;

// What Slurm shows a user who is not an operator decides each row:
// PrivateData=jobs hides other users' jobs (squeue), =users user names
// outside jobs (sshare, sacctmgr), =accounts accounts, =nodes node
// information (REQUEST_NODE_INFO is refused), =partitions partition
// information, =reservations reservations the user cannot use
// (reservation.c show_resv: only PRIVATE_DATA_RESERVATIONS is checked, so
// a reservation's Users= and Nodes= are shown to anyone who may see the
// reservation; scontrol show reservation as nobody under PrivateData=users
// prints Users=root).
constexpr LabelClass kLabelClasses[] = {
    {"job_id", kJobs},
    {"user_name", kUsers},
    {"user", kUsers},
    {"user_id", kUsers},
    {"username", kUsers},
    {"user_mail", kUsers},
    {"account", kAccounts},
    {"node_name", kNodes},
    {"node", kNodes},
    {"partition", kPartitions},
    {"slurm_partition", kPartitions},
    {"reservation_name", kReservations},
    {"reservation", kReservations},
    // A reservation's user and node lists: part of the reservation, as in
    // scontrol show reservation (above).
    {"users", kReservations, "slurm_reservation_info"},
    {"nodes", kReservations, "slurm_reservation_info"},
    // A job's own details: with its job_id wherever they appear today.
    {"job_name", kJobs},
    {"array_job_id", kJobs},
    {"array_task_id", kJobs},
    {"job_state", kJobs},
    {"job_state_reason", kJobs},
    {"standard_output", kJobs},
    {"standard_error", kJobs},
    {"submit_time", kJobs},
    {"start_time", kJobs},
    {"end_time", kJobs},
    {"finished_time", kJobs},
    // A node's own details: with its node_name wherever they appear.
    {"address", kNodes},
    {"comment", kNodes},
    {"instance_id", kNodes},
    // Names nothing PrivateData hides: states, reasons and counts that
    // aggregates carry too (slurm_queue_pending{reason}), QoS (Slurm does
    // not hide QoS), licenses, TRES and GRES kinds, RPC types, our own
    // collectors. Where they sit next to a job or a node, that label
    // decides.
    {"state", 0},
    {"state_base", 0},
    {"state_is_cloud", 0},
    {"state_is_completing", 0},
    {"state_is_drain", 0},
    {"state_is_fail", 0},
    {"state_is_invalid", 0},
    {"state_is_maintenance", 0},
    {"state_is_not_responding", 0},
    {"state_is_planned", 0},
    {"state_is_power_down", 0},
    {"state_is_power_drain", 0},
    {"state_is_power_up", 0},
    {"state_is_powered_down", 0},
    {"state_is_powering_down", 0},
    {"state_is_powering_up", 0},
    {"state_is_reserved", 0},
    {"is_unavailable", 0},
    {"reason", 0},
    {"flags", 0},
    {"status", 0},
    {"gres_type", 0},
    // slurm.conf's NodeSet= names and topology/block's block names: Slurm
    // shows both to any user (scontrol show topology, show partition); they
    // only ever sit beside node_name, which PrivateData=nodes hides.
    {"nodeset_name", 0},
    {"nvlink_instance_group", 0},
    {"qos", 0},
    {"tres", 0},
    {"license", 0},
    {"remote", 0},
    {"message_type", 0},
    {"collector", 0},
    {"outcome", 0},  // slurm_exporter_uncached_requests_total: rendered, refused
};

std::atomic<void (*)(const FamilyDef&)> g_observer{nullptr};

}  // namespace

std::span<const LabelClass> LabelClasses() { return kLabelClasses; }

const LabelClass* FindLabelClass(std::string_view family, std::string_view label) {
  for (const LabelClass& c : kLabelClasses) {
    if (c.label == label && (c.only_in.empty() || c.only_in == family)) return &c;
  }
  return nullptr;
}

void SetRevealsObserver(void (*observer)(const FamilyDef&)) { g_observer.store(observer); }

namespace {

// slurm.conf's spelling, in the order scontrol show config prints them.
constexpr std::pair<PrivateData, std::string_view> kNames[] = {
    {private_data::kAccounts, "accounts"},
    {private_data::kJobs, "jobs"},
    {private_data::kNodes, "nodes"},
    {private_data::kPartitions, "partitions"},
    {private_data::kReservations, "reservations"},
    {private_data::kUsage, "usage"},
    {private_data::kUsers, "users"},
};

}  // namespace

PrivateData Reveals(const FamilyDef& def) {
  if (const auto observer = g_observer.load(std::memory_order_relaxed)) observer(def);
  PrivateData p = def.reveals;
  for (std::string_view label : def.labels) {
    const LabelClass* c = FindLabelClass(def.name, label);
    p |= c ? c->reveals : private_data::kEveryPrivateData;
  }
  return p;
}

std::string PrivateDataNames(PrivateData p) {
  std::string out;
  for (const auto& [bit, name] : kNames) {
    if (!(p & bit)) continue;
    if (!out.empty()) out.push_back(',');
    out.append(name);
  }
  return out;
}

}  // namespace sm
