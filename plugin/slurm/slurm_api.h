// SPDX-License-Identifier: GPL-2.0-or-later
// The one place that includes Slurm's internal headers (from a configured
// source tree of the exact release we build for). Release differences that
// are only names are bridged here; the rest stay in the adapter behind
// SM_SLURM_AT_LEAST checks.
#pragma once

// 24.11 names a struct member "operator"; renaming it for the duration of
// the includes changes no layout. System headers come first so the macro
// cannot reach them.
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>
#define operator slurm_operator

extern "C" {
#include "config.h"
#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"
#include "src/common/bitstring.h"
#include "src/common/assoc_mgr.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/node_conf.h"
#include "src/common/pack.h"
#include "src/common/read_config.h"
#include "src/common/slurm_protocol_defs.h"
#include "src/common/slurm_protocol_pack.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/licenses.h"
#include "src/slurmctld/locks.h"
#include "src/slurmctld/slurmctld.h"
}

#define SM_SLURM_AT_LEAST(ma, mi) \
  (SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM((ma), (mi), 0))

extern "C" {
#if SM_SLURM_AT_LEAST(23, 2)
#include "src/interfaces/accounting_storage.h"
#include "src/interfaces/gres.h"
#else
#include "src/common/gres.h"
#include "src/common/slurm_accounting_storage.h"
#endif
#if SM_SLURM_AT_LEAST(24, 5)
#include "src/common/job_record.h"
#include "src/common/job_state_reason.h"
#include "src/common/msg_type.h"
#endif
#if SM_SLURM_AT_LEAST(25, 11)
// expand_stdio_fields() and job_std_pattern_t: how 25.11+ clients expand
// StdOut/StdErr.
#include "src/common/print_fields.h"
#endif
}

#undef operator

namespace sm::slurm {

inline const char* ReasonString(uint32_t reason) {
#if SM_SLURM_AT_LEAST(24, 5)
  return job_state_reason_string(static_cast<job_state_reason>(reason));
#else
  return job_reason_string(static_cast<job_state_reason>(reason));
#endif
}

// Position of gres/gpu in TRES arrays (node tres_cnt, job tres_alloc_cnt);
// -1 when AccountingStorageTRES does not track it. Takes the assoc_mgr TRES
// lock itself: call it before lock_slurmctld(), never under it.
inline int GpuTresPosition() {
  slurmdb_tres_rec_t rec = {};
  rec.type = const_cast<char*>("gres");
  rec.name = const_cast<char*>("gpu");
  return assoc_mgr_find_tres_pos(&rec, false);
}

// The plugin_id of gres/gpu entries in node and job GRES lists
// (gres_build_id(), a hash of the name: no allocation, no lock).
inline uint32_t GpuPluginId() {
  static const uint32_t id = gres_build_id(const_cast<char*>("gpu"));
  return id;
}

// Whether this slurmctld is in standby, i.e. a backup controller that does
// not hold control (listeners.standby_mode, set around run_backup()). Our
// collection must neither run nor serve then: the node and job tables of a
// backup that handed control back are stale. Called with no lock held (it
// takes slurmctld's listeners mutex).
// - 26.05: slurmctld_listeners_in_standby() (also in 25.11.7; is_primary()
//   is gone).
// - 25.11: is_primary() = !standby_mode (all micro releases).
// - up to 25.05 there is no such flag (backup_has_control is a local of
//   main(), 24.11's listeners.standby_mode is static), but controller.c's
//   control_time is exported: main() zeroes it before each run_backup() and
//   sets it once this controller runs as the one in charge ("Running as
//   primary controller"). A backup (backup_inx > 0) is in standby while it
//   is 0: before its first takeover, and again after it handed control
//   back, when its node and job tables are stale (the HA test, tests/integration/test_ha.py, saw a
//   22.05.8 backup serve them). The primary never waits in standby, and
//   24.11 zeroes control_time on a SIGHUP reconfigure whose re-exec failed
//   without setting it again, so the primary does not look at it (a
//   backup in charge in that case reads as standby: it stops serving,
//   which is the safe side).
#if !SM_SLURM_AT_LEAST(25, 11)
extern "C" time_t control_time;
#endif
inline bool InStandby() {
#if SM_SLURM_AT_LEAST(26, 5)
  return slurmctld_listeners_in_standby();
#elif SM_SLURM_AT_LEAST(25, 11)
  return !is_primary();
#else
  return backup_inx > 0 && control_time == 0;
#endif
}

// Slurm 23.02 turned the List typedef into list_t.
#if SM_SLURM_AT_LEAST(23, 2)
using SlurmList = list_t*;
using SlurmListIterator = list_itr_t*;
#else
using SlurmList = List;
using SlurmListIterator = ListIterator;
#endif

}  // namespace sm::slurm
