// SPDX-License-Identifier: GPL-2.0-or-later
#include "families/accounting/pending_jobs.h"

#include <array>
#include <charconv>
#include <map>
#include <tuple>

#include "families/family_rows.h"

namespace sm {
namespace {

// SckyzO's names and HELP texts verbatim; its label sets with and without
// the user label.
enum Def { kJobs, kCores };
const FamilyDef kWithUser[] = {
    {"slurm_queue_pending", "Pending jobs in queue", MetricType::kGauge,
     {"user", "partition", "reason"}},
    {"slurm_cores_pending", "Pending cores in queue", MetricType::kGauge,
     {"user", "partition", "reason"}},
};
const FamilyDef kWithoutUser[] = {
    {"slurm_queue_pending", "Pending jobs in queue", MetricType::kGauge,
     {"partition", "reason"}},
    {"slurm_cores_pending", "Pending cores in queue", MetricType::kGauge,
     {"partition", "reason"}},
};
static_assert(std::size(kWithUser) == kCores + 1 &&
              std::size(kWithoutUser) == kCores + 1);

struct Count {
  double jobs = 0;
  double cores = 0;
};

// squeue's %u: the user's name, else the uid as a number
// (uid_to_string_cached()).
std::string_view User(const Job& j, Arena& arena) {
  if (!j.user_name.empty() || !j.user_id) return j.user_name;
  char buf[16];
  const auto r = std::to_chars(buf, buf + sizeof(buf), *j.user_id);
  return arena.Store(std::string_view(buf, r.ptr - buf));
}

}  // namespace

std::span<const FamilyDef* const> PendingJobFamilies() {
  return FamilyList<kWithUser>();
}

void AddPendingJobFamilies(MetricSet& set, const JobSnapshot& snap,
                           const PendingOptions& options) {
  const auto families =
      AddAll(set, options.user_label ? kWithUser : kWithoutUser);
  Family& jobs = *families[kJobs];
  Family& cores = *families[kCores];
  if (!jobs.enabled() && !cores.enabled()) return;
  // (user, partition, reason); user "" when the label is off.
  std::map<std::tuple<std::string_view, std::string_view, std::string_view>,
           Count>
      counts;
  for (const Job& j : snap.jobs) {
    if (!j.squeue_pending) continue;
    const std::string_view user =
        options.user_label ? User(j, set.arena()) : std::string_view();
    // A job queued in several partitions waits in each: SckyzO counts it
    // once per partition of squeue's comma list.
    std::string_view parts = j.partition;
    while (true) {
      const size_t comma = parts.find(',');
      Count& c = counts[{user, parts.substr(0, comma), j.squeue_reason}];
      c.jobs += 1;
      c.cores += static_cast<double>(j.cpus.value_or(0));
      if (comma == std::string_view::npos) break;
      parts.remove_prefix(comma + 1);
    }
  }
  for (const auto& [key, c] : counts) {
    const auto& [user, partition, reason] = key;
    if (options.user_label) {
      jobs.Add({user, partition, reason}, c.jobs);
      cores.Add({user, partition, reason}, c.cores);
    } else {
      jobs.Add({partition, reason}, c.jobs);
      cores.Add({partition, reason}, c.cores);
    }
  }
}

}  // namespace sm
