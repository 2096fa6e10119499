// SPDX-License-Identifier: GPL-2.0-or-later
// slurmctld's license list and get_all_license_info(), the only way the
// plugin reads it (license_mutex is static in licenses.c): packed as
// licenses.c's _pack_license() packs each record for the release, under
// the shim's own stand-in for license_mutex.
#include <mutex>

#include "builders.h"

namespace shim {
namespace {

struct License {
  std::string name;
  uint32_t total = 0, used = 0, reserved = 0;
  uint8_t remote = 0;
  uint32_t last_consumed = 0, last_deficit = 0;
  time_t last_update = 0;
};

std::mutex g_license_mutex;
std::vector<License> g_licenses;

buf_t* PackAll(uint16_t protocol_version) {
  std::lock_guard lock(g_license_mutex);
  buf_t* buffer = init_buf(BUF_SIZE);
  pack32(static_cast<uint32_t>(g_licenses.size()), buffer);
  pack_time(time(nullptr), buffer);
  for (const License& l : g_licenses) {
    if (protocol_version < SLURM_MIN_PROTOCOL_VERSION) break;
    packstr(const_cast<char*>(l.name.c_str()), buffer);
    pack32(l.total, buffer);
    pack32(l.used, buffer);
    pack32(l.reserved, buffer);
    pack8(l.remote, buffer);
#if SM_SLURM_AT_LEAST(23, 2)
    pack32(l.last_consumed, buffer);
    pack32(l.last_deficit, buffer);
    pack_time(l.last_update, buffer);
#endif
#if SM_SLURM_AT_LEAST(25, 5)
    // The hierarchical-resource mode and node list (licenses.c's
    // _pack_license() from 25.05 on): a cluster-wide license has neither.
    pack8(0, buffer);
    packnull(buffer);
#endif
  }
  return buffer;
}

}  // namespace

void BuildLicenses(const std::vector<LicenseIn>& licenses) {
  std::vector<License> built;
  for (const LicenseIn& in : licenses) {
    License& l = built.emplace_back();
    l.name = in.name;
    l.total = Fit<uint32_t>(in.where, "total", in.total);
    l.used = Fit<uint32_t>(in.where, "used", in.used);
    l.reserved = Fit<uint32_t>(in.where, "reserved", in.reserved);
    l.remote = in.remote;
    l.last_consumed = Fit<uint32_t>(in.where, "last_consumed", in.last_consumed);
    l.last_deficit = Fit<uint32_t>(in.where, "last_deficit", in.last_deficit);
    l.last_update = static_cast<time_t>(in.last_update);
  }
  std::lock_guard lock(g_license_mutex);
  g_licenses = std::move(built);
}

void FreeLicenses() {
  std::lock_guard lock(g_license_mutex);
  g_licenses.clear();
}

}  // namespace shim

// slurmctld's own signature for the release (licenses.h): the buffer is
// returned from 24.05 on (docs/compat.md, per-release table).
#if SM_SLURM_AT_LEAST(24, 5)
extern "C" buf_t* get_all_license_info(uint16_t protocol_version) {
  return shim::PackAll(protocol_version);
}
#else
extern "C" void get_all_license_info(char** buffer_ptr, int* buffer_size,
                                     uid_t, uint16_t protocol_version) {
  buf_t* buffer = shim::PackAll(protocol_version);
  *buffer_size = static_cast<int>(get_buf_offset(buffer));
  *buffer_ptr = static_cast<char*>(xfer_buf_data(buffer));
}
#endif
