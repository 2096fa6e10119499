// SPDX-License-Identifier: GPL-2.0-or-later
#include "job_churn.h"

#include <fstream>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "slurmctld_standins.h"

namespace shim {
namespace {

std::mutex g_mu;
std::ofstream* g_log = nullptr;  // set once, before the plugin runs
int g_step = 0;
uint32_t g_next_id = 2000000000;
constexpr size_t kKeptAtHead = 16;

std::vector<job_record_t*> Records() {
  std::vector<job_record_t*> out;
  sm::slurm::SlurmListIterator it = list_iterator_create(job_list);
  while (auto* job = static_cast<job_record_t*>(list_next(it))) out.push_back(job);
  list_iterator_destroy(it);
  return out;
}

// Unlinks `job` from job_list and frees it (a purge).
void Purge(job_record_t* job) {
  *g_log << "- " << job->job_id << "\n";
  list_delete_ptr(job_list, job);
}

// Unlinks `job` and appends the same memory under a new id: a submit that
// got the address of a freed record.
void Resubmit(job_record_t* job) {
  list_remove_first(
      job_list, [](void* x, void* key) -> int { return x == key; }, job);
  *g_log << "- " << job->job_id << "\n";
  job->job_id = g_next_id++;
  *g_log << "+ " << job->job_id << "\n";
  list_append(job_list, job);
}

}  // namespace

void EnableJobChurn(const std::string& log_path) {
  g_log = new std::ofstream(log_path);
  if (!*g_log) throw std::runtime_error("cannot write " + log_path);
}

void ChurnJobsAfterUnlock() {
  if (!g_log) return;
  std::lock_guard guard(g_mu);
  WriteLockAll locks;
  if (!job_list) return;
  const std::vector<job_record_t*> jobs = Records();
  ++g_step;
  *g_log << "step " << g_step << "\n";
  if (g_step == 1) {
    // The first slice passed at least one batch (64 jobs) and at most a
    // few thousand: purging jobs 16 up to three quarters of the list
    // removes every job it could resume after, and keeps the first 16,
    // which it copied and the restart from the head must pass by.
    for (size_t k = kKeptAtHead; k < jobs.size() * 3 / 4; ++k) Purge(jobs[k]);
  } else {
    // Elsewhere: every 37th job purged, every 41st resubmitted.
    for (size_t k = 0; k < jobs.size(); ++k) {
      if (k % 37 == 5) Purge(jobs[k]);
      else if (k % 41 == 7) Resubmit(jobs[k]);
    }
  }
  g_log->flush();
}

}  // namespace shim
