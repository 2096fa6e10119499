// SPDX-License-Identifier: GPL-2.0-or-later
// What slurmctld's configuration says about our output: which kinds of
// information PrivateData keeps from users who are not operators.
#include "adapter.h"
#include "adapter_util.h"

namespace sm::slurm {

PrivateData ControllerSource::HiddenFromUsers() {
  // slurm_conf changes only under the conf write lock (22.05 rereads
  // slurm.conf in place on reconfigure); read it like slurmctld's RPC
  // handlers do. Our turn first, like every lock we take (adapter_util.h).
  // Every tick asks, before it counts its sub-collectors in flight: while
  // a collection holds our turn (waiting behind a slurmctld writer) the
  // last value serves, so the tick goes on and skips what is in flight
  // instead of queuing behind it. Only the first read waits.
  uint16_t raw;
  {
    std::unique_lock turn(our_lock_turn, std::try_to_lock);
    const int32_t last = last_private_data_.load();
    if (!turn.owns_lock() && last >= 0) {
      raw = static_cast<uint16_t>(last);
    } else {
      if (!turn.owns_lock()) turn.lock();
      // Zeroed, then named: 26.05 adds a sixth level (select_node).
      slurmctld_lock_t conf_read = {};
      conf_read.conf = READ_LOCK;
      lock_slurmctld(conf_read);
      raw = slurm_conf.private_data;
      unlock_slurmctld(conf_read);
      last_private_data_.store(raw);
    }
  }
  struct Bit {
    uint16_t slurm;
    PrivateData ours;
  };
  // PRIVATE_DATA_EVENTS and _CLOUD hide nothing we export (cloud nodes are
  // listed as clients list them, see adapter_nodes.cc).
  static constexpr Bit kBits[] = {
      {PRIVATE_DATA_JOBS, private_data::kJobs},
      {PRIVATE_DATA_NODES, private_data::kNodes},
      {PRIVATE_DATA_PARTITIONS, private_data::kPartitions},
      {PRIVATE_DATA_USAGE, private_data::kUsage},
      {PRIVATE_DATA_USERS, private_data::kUsers},
      {PRIVATE_DATA_ACCOUNTS, private_data::kAccounts},
      {PRIVATE_DATA_RESERVATIONS, private_data::kReservations},
  };
  PrivateData out = 0;
  for (const Bit& b : kBits) {
    if (raw & b.slurm) out |= b.ours;
  }
  return out;
}

}  // namespace sm::slurm
