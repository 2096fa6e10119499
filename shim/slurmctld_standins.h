// SPDX-License-Identifier: GPL-2.0-or-later
// The shim's side of slurmctld's locks (the globals and lock functions
// themselves are defined in slurmctld_standins.cc, for the plugin).
#pragma once

#include "slurm_api.h"

namespace shim {

// All of slurmctld's locks for writing, for the lifetime of the object:
// how the shim swaps the controller state while the plugin may read it.
// On a thread that holds the collections (HoldCollections) it takes
// nothing: that thread already holds what the records need.
class WriteLockAll {
 public:
  WriteLockAll();
  ~WriteLockAll();
  WriteLockAll(const WriteLockAll&) = delete;
  WriteLockAll& operator=(const WriteLockAll&) = delete;

 private:
  slurmctld_lock_t locks_;
  bool taken_ = false;
};

// The job, node, partition and federation locks held for writing until
// Release(): collections started meanwhile wait inside their first
// sub-collector, counted in flight, as behind a long slurmctld writer.
// The configuration lock stays free: every tick first reads PrivateData
// under it, before its sub-collectors count as in flight. The state may be
// swapped (LoadClusterState) on the holding thread while it holds.
class HoldCollections {
 public:
  HoldCollections();
  ~HoldCollections();
  HoldCollections(const HoldCollections&) = delete;
  HoldCollections& operator=(const HoldCollections&) = delete;
  void Release();

 private:
  slurmctld_lock_t locks_;
  bool held_ = false;
};

// How many of the plugin's calls wait right now for a lock of slurmctld's
// other than the configuration lock (a collection held by HoldCollections).
int DataLockWaiters();

// Until called again: the plugin's nodes and/or jobs collector finds
// slurmctld shutting down when it takes the locks (the checks it makes
// first), and fails, as when shutdown begins during a collection. They are
// told apart by their locks: both read jobs, nodes and partitions, only
// the jobs collector also the federation.
void FailCollectors(bool nodes, bool jobs);

// With SM_LOCKED_ALLOCS_OUT set (tests/shim/locked_allocs.py): a "step"
// line in that file, so the holds counted after it are told apart by the
// scenario step whose collection made them.
void MarkLockedAllocsStep();

}  // namespace shim
