// SPDX-License-Identifier: GPL-2.0-or-later
// What slurmctld knows about how current its association data is, read
// without any lock: whether its slurmdbd connection is open, whether it
// runs on its saved association state, and when its decay thread last
// recomputed usage and fairshare.
#include <fcntl.h>
#include <unistd.h>

#include <cstring>
#include <string>

#include "adapter.h"
#include "adapter_util.h"

namespace sm::slurm {
namespace {

bool Contains(const char* haystack, const char* needle) {
  return haystack && strstr(haystack, needle);
}

// priority/multifactor's _write_last_decay_ran(): pack_time(last_ran) then
// pack_time(last_reset), each 64 bits big-endian, rewritten (into a new
// file, then renamed) after every decay pass. Read as a plain file: its
// writer's lock_state_files() guards the rename, which is atomic anyway.
std::optional<int64_t> LastDecay() {
  if (!slurm_conf.state_save_location) return std::nullopt;
  const std::string path =
      std::string(slurm_conf.state_save_location) + "/priority_last_decay_ran";
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return std::nullopt;
  unsigned char b[8];
  const ssize_t n = read(fd, b, sizeof(b));
  close(fd);
  if (n != static_cast<ssize_t>(sizeof(b))) return std::nullopt;
  uint64_t v = 0;
  for (unsigned char c : b) v = (v << 8) | c;
  if (v == 0) return std::nullopt;  // no decay pass yet
  return static_cast<int64_t>(v);
}

}  // namespace

std::shared_ptr<AccountingStatus> ControllerSource::CollectAccountingStatus(
    LockTiming&, std::string&) {
  auto status = std::make_shared<AccountingStatus>();
  status->slurmdbd =
      Contains(slurm_conf.accounting_storage_type, "accounting_storage/slurmdbd");
  if (status->slurmdbd) {
    // What fed_mgr asks: slurmdbd_conn_active(), a test of the connection's
    // fd. acct_db_conn is only the handle the plugin interface wants.
    int active = 0;
    if (acct_storage_g_get_data(acct_db_conn, ACCT_STORAGE_INFO_CONN_ACTIVE,
                                &active) == SLURM_SUCCESS)
      status->connected = active != 0;
    status->from_state_file = running_cache == RUNNING_CACHE_STATE_RUNNING;
  }
  if (Contains(slurm_conf.priority_type, "priority/multifactor"))
    status->last_decay = LastDecay();
  return status;
}

}  // namespace sm::slurm
