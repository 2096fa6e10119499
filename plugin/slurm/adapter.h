// SPDX-License-Identifier: GPL-2.0-or-later
// The Slurm adapter: copies slurmctld's node, job, sdiag and accounting
// state into core snapshots (snapshot.h, accounting_snapshot.h) and decides
// every Slurm predicate the core needs.
// Under slurmctld's read locks it only copies raw fields into an arena: the
// node copy in one hold, the job walk in slices of about 2 ms each (the
// locks are released between slices, see CollectJobs), and the sdiag
// statistics through the same RPC sdiag sends, with no lock of ours held;
// associations and QoS under assoc_mgr's read locks alone.
// The slow parts (name lookups, string formatting, derived states) run
// after the locks are released.
#pragma once

#include <atomic>
#include <ctime>
#include <functional>
#include <memory>
#include <mutex>

#include "source.h"
#include "user_names.h"

namespace sm::slurm {

// The StdOut/StdErr paths one jobs collection derived, by job id, with a
// fingerprint of what each was derived from (job_stdio.h).
struct StdioMemo;

// What the last node and job copies held: the next copy allocates that
// much (plus a margin) before it takes slurmctld's locks.
struct NodeCopySizes {
  size_t slots = 0;  // node_record_count
  size_t members = 0;  // (partition, node) pairs
  size_t bytes = 0;  // arena
  size_t unlisted = 0;
  size_t partitions = 0;
  size_t gres = 0;  // GresUsed entries of all nodes
  size_t nodesets = 0;  // NodeSet= lines of slurm.conf
};
struct JobCopySizes {
  size_t jobs = 0;
  size_t bytes = 0;  // arena
  size_t node_slots = 0;  // allocated node slots of all running jobs
  size_t cg_names = 0;  // node names of all completing jobs
};

template <typename T>
class LastSizes {
 public:
  T Load() const {
    std::lock_guard lock(mu_);
    return value_;
  }
  void Store(const T& v) {
    std::lock_guard lock(mu_);
    value_ = v;
  }

 private:
  mutable std::mutex mu_;
  T value_{};
};

class ControllerSource : public Source {
 public:
  // Unix seconds for what Slurm computes from time(NULL) while packing
  // (estimated starts, active reservations); the shim's virtual clock
  // replaces it, like the collector's.
  void SetClock(std::function<int64_t()> unix_now) { unix_now_ = std::move(unix_now); }

  std::shared_ptr<NodeSnapshot> CollectNodes(LockTiming& timing,
                                             std::string& error) override;
  std::shared_ptr<JobSnapshot> CollectJobs(LockTiming& timing,
                                           std::string& error) override;
  std::shared_ptr<DiagSnapshot> CollectDiag(LockTiming& timing,
                                            std::string& error) override;
  // Associations as sshare prints them and QoS, under assoc_mgr's read
  // locks only (adapter_assoc.cc); licenses through get_all_license_info()
  // and reservations under the node read lock (adapter_licenses.cc,
  // adapter_reservations.cc); slurmctld's link to slurmdbd, lock-free
  // (adapter_accounting_status.cc).
  std::shared_ptr<ShareSnapshot> CollectShares(LockTiming& timing,
                                               std::string& error) override;
  std::shared_ptr<QosSnapshot> CollectQos(LockTiming& timing,
                                          std::string& error) override;
  std::shared_ptr<LicenseSnapshot> CollectLicenses(LockTiming& timing,
                                                   std::string& error) override;
  std::shared_ptr<ReservationSnapshot> CollectReservations(
      LockTiming& timing, std::string& error) override;
  std::shared_ptr<AccountingStatus> CollectAccountingStatus(
      LockTiming& timing, std::string& error) override;
  // False before the node table is loaded and while this slurmctld is a
  // standby backup (25.11+); see InStandby() in slurm_api.h.
  bool Active() override;
  // slurm_conf.private_data in our terms (adapter_config.cc).
  PrivateData HiddenFromUsers() override;
  // Closes this source's lock gate (adapter_util.h) for its collections.
  void StopTakingLocks() override;

 private:
  int64_t Now() const { return unix_now_ ? unix_now_() : time(nullptr); }
  void ForgetStdioMemo();

  UserNames users_;
  // The last jobs collection's paths: a job whose inputs did not change
  // copies its paths from there instead of expanding its patterns again.
  // The memo holds that collection's snapshot, where those paths live.
  std::mutex stdio_mu_;
  std::shared_ptr<const StdioMemo> stdio_memo_;
  // Sizes of the last copies, to allocate the next ones before locking.
  LastSizes<NodeCopySizes> node_sizes_;
  LastSizes<JobCopySizes> job_sizes_;
  std::function<int64_t()> unix_now_;
  std::atomic<PrivateData> last_hidden_{0};
  // This generation's gate (adapter_util.h, LockGateScope).
  std::atomic<bool> locks_closed_{false};
};

}  // namespace sm::slurm
