// SPDX-License-Identifier: GPL-2.0-or-later
// The shim's side of slurmctld's locks (the globals and lock functions
// themselves are defined in slurmctld_standins.cc, for the plugin).
#pragma once

#include "slurm_api.h"

namespace shim {

// All of slurmctld's locks for writing, for the lifetime of the object:
// how the shim swaps the controller state while the plugin may read it.
class WriteLockAll {
 public:
  WriteLockAll();
  ~WriteLockAll();
  WriteLockAll(const WriteLockAll&) = delete;
  WriteLockAll& operator=(const WriteLockAll&) = delete;

 private:
  slurmctld_lock_t locks_;
};

}  // namespace shim
