// SPDX-License-Identifier: GPL-2.0-or-later
// What slurmctld's configuration says about our output: which kinds of
// information PrivateData keeps from users who are not operators.
#include "adapter.h"
#include "adapter_util.h"

namespace sm::slurm {

PrivateData ControllerSource::HiddenFromUsers() {
  // slurm_conf changes only under the conf write lock (22.05 rereads
  // slurm.conf in place on reconfigure); read it like slurmctld's RPC
  // handlers do. Not after our turn (adapter_util.h), unlike our copies:
  // every tick asks before it counts its sub-collectors in flight, and a
  // collection waiting behind a slurmctld writer holds the turn, so the
  // tick would queue behind it instead of skipping what is in flight. The
  // turn keeps our long holds from overlapping; a read of one field under
  // the conf read lock cannot keep a writer waiting.
  uint16_t raw;
  // Stopping (adapter_util.h): what it was last time.
  if (locks_closed_.load()) return last_hidden_.load();
  {
    // Zeroed, then named: 26.05 adds a sixth level (select_node).
    slurmctld_lock_t conf_read = {};
    conf_read.conf = READ_LOCK;
    lock_slurmctld(conf_read);
    raw = slurm_conf.private_data;
    unlock_slurmctld(conf_read);
  }
  // PRIVATE_DATA_EVENTS and _CLOUD hide nothing we export (cloud nodes are
  // listed as clients list them, see adapter_nodes.cc).
  static constexpr BitMap<PrivateData> kBits[] = {
      {PRIVATE_DATA_JOBS, private_data::kJobs},
      {PRIVATE_DATA_NODES, private_data::kNodes},
      {PRIVATE_DATA_PARTITIONS, private_data::kPartitions},
      {PRIVATE_DATA_USAGE, private_data::kUsage},
      {PRIVATE_DATA_USERS, private_data::kUsers},
      {PRIVATE_DATA_ACCOUNTS, private_data::kAccounts},
      {PRIVATE_DATA_RESERVATIONS, private_data::kReservations},
  };
  const PrivateData hidden = MapBits(raw, kBits);
  last_hidden_.store(hidden);
  return hidden;
}

void ControllerSource::StopTakingLocks() { locks_closed_.store(true); }

}  // namespace sm::slurm
