// SPDX-License-Identifier: GPL-2.0-or-later
#include "model/finished_jobs.h"

#include <cstring>
#include <string_view>

namespace sm {
namespace {

// Every string a Job carries: the copy owns them all.
constexpr std::string_view Job::* kStrings[] = {
    &Job::name,      &Job::state_reason, &Job::partition,
    &Job::user_name, &Job::mail_user,    &Job::std_err,
    &Job::std_out,   &Job::nodes,        &Job::array_task_string,
    &Job::tres_alloc, &Job::tres_req,    &Job::account,
    &Job::statistics_partition, &Job::squeue_reason};

// Per remembered job beyond its strings: the copy (600 bytes on x86-64
// with the next), the control block of its shared_ptr, the map's and the
// eviction set's nodes.
constexpr size_t kOverhead = sizeof(KeptJob) + 128;

std::shared_ptr<const KeptJob> Copy(const Job& j) {
  auto k = std::make_shared<KeptJob>();
  size_t n = 0;
  for (auto m : kStrings) n += (j.*m).size();
  k->job = j;
  k->job.node_indices.clear();  // only Slurm's native families read them
  k->job.node_indices.shrink_to_fit();
  k->text = std::make_unique<char[]>(n ? n : 1);
  char* p = k->text.get();
  for (auto m : kStrings) {
    const std::string_view s = j.*m;
    if (!s.empty()) std::memcpy(p, s.data(), s.size());
    k->job.*m = std::string_view(p, s.size());
    p += s.size();
  }
  k->bytes = n + kOverhead;
  return k;
}

// What can still change on a finished job while slurmctld holds it (its
// nodes while it completes, its reason, a requeue's new times).
bool Changed(const Job& kept, const Job& now) {
  return kept.state != now.state || kept.flags != now.flags ||
         kept.start_time != now.start_time || kept.end_time != now.end_time ||
         kept.state_reason != now.state_reason || kept.nodes != now.nodes ||
         kept.tres_alloc != now.tres_alloc;
}

}  // namespace

void FinishedJobs::Forget(uint32_t id) {
  const auto it = kept_.find(id);
  if (it == kept_.end()) return;
  const KeptJob& k = *it->second.kept;
  by_end_.erase({k.job.end_time.value_or(0), id});
  bytes_ -= k.bytes;
  kept_.erase(it);
}

void FinishedJobs::Remember(const Job& j) {
  const auto it = kept_.find(j.id);
  if (it != kept_.end()) {
    it->second.seen = generation_;
    if (!Changed(it->second.kept->job, j)) return;
    Forget(j.id);
  }
  Entry e{Copy(j), generation_};
  const size_t bytes = e.kept->bytes;
  kept_.emplace(j.id, std::move(e));
  by_end_.insert({j.end_time.value_or(0), j.id});
  bytes_ += bytes;
}

std::shared_ptr<const FinishedJobsView> FinishedJobs::Observe(
    const JobSnapshot& current, int64_t now) {
  ++generation_;
  auto view = std::make_shared<FinishedJobsView>();
  view->oldest_end = now - limits_.lookback_seconds;

  for (const Job& j : current.jobs) {
    // Only jobs with an end time: it is what they expire by.
    if (IsFinished(j.state) && j.end_time && *j.end_time > 0 &&
        !FinishedJobsView::Expired(j, view->oldest_end)) {
      Remember(j);
    } else {
      // Running again (a requeue keeps the job id), or out of the window:
      // the controller's record is what is served, if anything.
      Forget(j.id);
    }
  }
  // Oldest end first: out of the window, then over a bound.
  // The order entry goes first, so each turn shrinks by_end_ even if an
  // allocation failure once left it without a job (no endless loop).
  while (!by_end_.empty() &&
         (by_end_.begin()->first < view->oldest_end ||
          kept_.size() > limits_.max_jobs || bytes_ > limits_.max_bytes)) {
    const uint32_t id = by_end_.begin()->second;
    by_end_.erase(by_end_.begin());
    Forget(id);
  }
  view->purged.reserve(kept_.size());
  for (const auto& [id, e] : kept_)
    if (e.seen != generation_) view->purged.push_back(e.kept);
  return view;
}

}  // namespace sm
