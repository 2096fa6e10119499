// SPDX-License-Identifier: GPL-2.0-or-later
// What a group of families (family_registry.h) reads, one accessor per
// part, each noting that it was read. A group that the registry marks
// reusable (FamilyGroup::follows) may be taken from the body it replaces
// while the parts it follows are unchanged, so a read beyond them (the
// clock, a history, an undeclared part) would serve stale data:
// family_registry_test.cc ("GroupsReadWhatTheyDeclare") runs every group
// and holds what it read to its row.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "serving/endpoints.h"

namespace sm {

// The parts of ClusterState, the histories and the clock a group reads.
using StateParts = uint16_t;
namespace state_part {
inline constexpr StateParts kNodes = 1 << 0;
inline constexpr StateParts kJobs = 1 << 1;
inline constexpr StateParts kDiag = 1 << 2;
inline constexpr StateParts kShares = 1 << 3;
inline constexpr StateParts kQos = 1 << 4;
inline constexpr StateParts kLicenses = 1 << 5;
inline constexpr StateParts kReservations = 1 << 6;
inline constexpr StateParts kQueueWait = 1 << 7;
// JobSource=accounting's finished jobs.
inline constexpr StateParts kFinishedJobs = 1 << 8;
// Only in FamilyGroup::follows, with kJobs: the jobs' start and end times
// too. A group without it follows the rest of each job only: a pending
// job whose estimated start has passed shows the collection's time as its
// start, as squeue does, so those two move every collection
// (JobSnapshot::ContentBesidesTimes). No accessor tells the fields of a
// job apart, so this one stays the row's word.
inline constexpr StateParts kJobTimes = 1 << 9;
// Never in FamilyGroup::follows: the node history (it follows every
// collection seen, not one snapshot) and the render's clock.
inline constexpr StateParts kHistory = 1 << 10;
inline constexpr StateParts kClock = 1 << 11;
// The nodes' topology labels alone (NodeSnapshot::Groups), for a group that
// labels jobs' hosts with them; absent nodes give none.
inline constexpr StateParts kNodeGroups = 1 << 12;
}  // namespace state_part

// Everything a render has for its groups (AddEndpointFamilies).
struct FamilyInputs {
  const ClusterState& state;
  const NodeHistory& history;
  const RenderOptions& opts;
  const QueueWaitHistory* queue_wait;  // null: no queue-wait family
  // Names of this group that another group serves on this endpoint (see
  // FamilyGroup::yields): not built.
  std::span<const std::string_view> skip;
};

// One group's view of FamilyInputs. The render options a group key holds
// (native_values, pending_user_label) and the skipped names (the key holds
// the endpoint) are free to read; every other read is noted in read().
// A required part (FamilyGroup::needs) is there when the group is added.
class GroupInputs {
 public:
  explicit GroupInputs(const FamilyInputs& in) : in_(in) {}

  const NodeSnapshot& nodes() const { return *Note(state_part::kNodes, in_.state.nodes); }
  const JobSnapshot& jobs() const { return *Note(state_part::kJobs, in_.state.jobs); }
  // The jobs for a group that does without them (null when absent).
  const JobSnapshot* jobs_if_any() const {
    return Note(state_part::kJobs, in_.state.jobs).get();
  }
  const DiagSnapshot& diag() const { return *Note(state_part::kDiag, in_.state.diag); }
  const ShareSnapshot& shares() const {
    return *Note(state_part::kShares, in_.state.shares);
  }
  const QosSnapshot& qos() const { return *Note(state_part::kQos, in_.state.qos); }
  const LicenseSnapshot& licenses() const {
    return *Note(state_part::kLicenses, in_.state.licenses);
  }
  const ReservationSnapshot& reservations() const {
    return *Note(state_part::kReservations, in_.state.reservations);
  }
  // Null with JobSource=controller.
  const FinishedJobsView* finished_jobs() const {
    return Note(state_part::kFinishedJobs, in_.state.finished_jobs).get();
  }
  const QueueWaitHistory& queue_wait() const {
    return *Note(state_part::kQueueWait, in_.queue_wait);
  }
  const NodeHistory& history() const { return Note(state_part::kHistory, in_.history); }
  // Unix seconds of the render.
  int64_t now() const { return Note(state_part::kClock, in_.opts.now); }

  bool native_values() const { return in_.opts.native_values; }
  bool pending_user_label() const { return in_.opts.pending_user_label; }
  bool node_info_nodeset() const { return in_.opts.node_info_nodeset; }
  // The options a group key holds, with the clock left out (now() reads it).
  RenderOptions keyed_options() const {
    RenderOptions keyed = in_.opts;
    keyed.now = 0;
    return keyed;
  }
  // The nodes' topology labels by node name; null without nodes.
  const NodeGroupIndex* node_groups() const {
    const auto& nodes = Note(state_part::kNodeGroups, in_.state.nodes);
    return nodes ? &nodes->Groups() : nullptr;
  }
  std::span<const std::string_view> skip() const { return in_.skip; }

  // Every part read so far.
  StateParts read() const { return read_; }

 private:
  template <typename T>
  const T& Note(StateParts part, const T& value) const {
    read_ |= part;
    return value;
  }

  const FamilyInputs in_;  // a few references: copied, so no temporary dangles
  mutable StateParts read_ = 0;
};

}  // namespace sm
