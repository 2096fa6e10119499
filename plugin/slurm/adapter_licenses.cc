// SPDX-License-Identifier: GPL-2.0-or-later
// Licenses as `scontrol show licenses` prints them. slurmctld keeps them
// under license_mutex, which is static in licenses.c: the only safe way in
// is get_all_license_info(), the packer REQUEST_LICENSE_INFO uses, which
// takes that mutex itself. We unpack its buffer as the client library does,
// so Free is computed exactly as scontrol shows it for the release.
#include "adapter_accounting.h"

namespace sm::slurm {
namespace {

// The packed license list, read from its start.
// 24.05 made it return the buffer; up to 23.11 it fills a pointer and a
// size and takes the requesting uid (docs/compat.md, per-release table).
buf_t* PackedLicenses() {
#if SM_SLURM_AT_LEAST(24, 5)
  buf_t* buffer = get_all_license_info(SLURM_PROTOCOL_VERSION);
  if (buffer) set_buf_offset(buffer, 0);
  return buffer;
#else
  char* data = nullptr;
  int size = 0;
  get_all_license_info(&data, &size, 0, SLURM_PROTOCOL_VERSION);
  return data ? create_buf(data, static_cast<uint32_t>(size)) : nullptr;
#endif
}

}  // namespace

std::shared_ptr<LicenseSnapshot> ControllerSource::CollectLicenses(
    LockTiming& timing, std::string& error) {
  const LockGateScope gate(locks_closed_);  // adapter_util.h
  buf_t* buffer = nullptr;
  {
    // get_all_license_info() walks resv_list (set_reserved_license_count),
    // which the node lock protects; REQUEST_LICENSE_INFO calls it with no
    // lock at all. slurmctld takes license_mutex inside its own locks, so
    // this order is its own.
    slurmctld_lock_t locks = {};
    locks.node = READ_LOCK;
    TimedLock lock(locks, timing);
    buffer = PackedLicenses();
  }
  if (!buffer) {
    error = "get_all_license_info() returned nothing";
    return nullptr;
  }
  slurm_msg_t msg;
  slurm_msg_t_init(&msg);
  msg.protocol_version = SLURM_PROTOCOL_VERSION;
  msg.msg_type = RESPONSE_LICENSE_INFO;
  const int rc = unpack_msg(&msg, buffer);
  free_buf(buffer);
  auto* info = static_cast<license_info_msg_t*>(msg.data);
  if (rc != SLURM_SUCCESS || !info) {
    error = "cannot unpack slurmctld's license list";
    if (info) slurm_free_license_info_msg(info);
    return nullptr;
  }
  auto snap = std::make_shared<LicenseSnapshot>();
  for (uint32_t i = 0; i < info->num_lic; ++i) {
    const slurm_license_info_t& l = info->lic_array[i];
    License& out = snap->licenses.emplace_back();
    out.name = snap->arena.StoreCString(l.name);
    out.total = l.total;
    out.used = l.in_use;
    out.free = l.available;
    out.reserved = l.reserved;
    out.remote = l.remote;
#if SM_SLURM_AT_LEAST(23, 2)
    // scontrol prints these for remote licenses only.
    if (l.remote) {
      out.last_consumed = l.last_consumed;
      out.last_deficit = l.last_deficit;
      out.last_update = static_cast<int64_t>(l.last_update);
    }
#endif
  }
  slurm_free_license_info_msg(info);
  return snap;
}

}  // namespace sm::slurm
