// SPDX-License-Identifier: GPL-2.0-or-later
// Each job's StdOut/StdErr as the client prints them, derived off-lock from
// the patterns copied under the locks (job_copy.h). Expanding them was most
// of a 26.05.3 collection's work off the locks (docs/performance.md,
// "Render cost that follows change"), so a job whose every input is what it
// was last time takes last time's paths (docs/compat.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "job_copy.h"
#include "base/fingerprint.h"

namespace sm::slurm {

// The StdOut/StdErr paths one jobs collection derived, by job id, with a
// fingerprint of what each was derived from (ControllerSource keeps the
// last one, adapter.h).
struct StdioMemo {
  struct Entry {
    uint32_t id;
    Fingerprint inputs;
  };
  std::shared_ptr<const JobSnapshot> jobs;  // owns the strings
  std::vector<Entry> entries;               // entries[k]: jobs->jobs[k]'s

  // The job `id` of that collection, if its paths came from `inputs`.
  // `at` is where it is looked for first and, when found, where it was:
  // job_list keeps its order, so with nothing added or purged before it a
  // job is at the same place, and otherwise usually at a fixed distance.
  // Only a job found elsewhere builds the index, once per memo.
  const Job* Find(size_t& at, uint32_t id, const Fingerprint& inputs) const {
    if (at >= entries.size() || entries[at].id != id) {
      std::call_once(index_once_, [this] {
        index_.reserve(entries.size());
        for (size_t k = 0; k < entries.size(); ++k)
          index_.insert_or_assign(entries[k].id, static_cast<uint32_t>(k));
      });
      const auto it = index_.find(id);
      if (it == index_.end()) return nullptr;
      at = it->second;
    }
    if (!(entries[at].inputs == inputs)) return nullptr;
    return &jobs->jobs[at];
  }

 private:
  mutable std::once_flag index_once_;
  mutable std::unordered_map<uint32_t, uint32_t> index_;  // id -> entries
};

// One collection's paths, derived job after job in job_list order.
class StdioPaths {
 public:
  // `last`: the previous collection's memo, if any; `arena`: where the
  // paths go (the new snapshot's).
  StdioPaths(const StdioMemo* last, Arena& arena) : last_(last), arena_(arena) {}

  // Sets j.std_out and j.std_err of the k-th job, whose user (as the
  // client names it) is `user`; returns what they were derived from.
  Fingerprint Derive(Job& j, const JobRaw& r, size_t k, std::string_view user);

  // How many jobs took the last collection's paths.
  size_t reused() const { return reused_; }

 private:
  const StdioMemo* last_;
  Arena& arena_;
  // Where the last job found in `last_` was, minus where it is now.
  ptrdiff_t shift_ = 0;
  size_t reused_ = 0;
};

}  // namespace sm::slurm
