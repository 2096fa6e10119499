// SPDX-License-Identifier: GPL-2.0-or-later
// A walk over slurmctld's job_list in slices, each run under the caller's
// job read lock, that resumes where the last slice stopped.
//
// Why not a list iterator: list_next() takes job_list's own rwlock for
// writing, so each batch of ours waited for every reader of the list; on
// 25.11+ slurmctld's metrics paths hold it for reading through a whole
// walk of 50,000 jobs (list_for_each_ro), and we waited with the
// controller's read locks held (docs/compat.md, the job walk). This walk only ever reads the
// list (list_for_each_ro), so it runs alongside those walks; the list's
// writers (list_append() at submit, purges) need the job write lock, which
// our read lock keeps out while a slice runs.
//
// Between two slices the locks are released and jobs may be added
// (appended at the tail) or removed and freed (purges). No record pointer
// is dereferenced across an unlock: a slice resumes after the most recent
// of the last kMarks records passed whose job id still finds that very
// record (find_job_record(), a hash lookup). Every record passed after
// that one is gone, so nothing is visited twice. When all of them are
// gone, the walk starts again from the head and passes by the ids the
// caller has copied; the set of those ids is built off-lock
// (BetweenSlices()).
#pragma once

#include <chrono>
#include <exception>
#include <unordered_set>

#include "slurm_api.h"

namespace sm::slurm {

class JobListWalk {
 public:
  static constexpr int kBatch = 64;  // records handed over at a time
  static constexpr int kMarks = 32;  // last records passed, to resume after
  using Clock = std::chrono::steady_clock;

  // Under the job read lock. Calls visit(records, n) with up to kBatch
  // records at a time (n may be 0), in list order, each record once per
  // walk, until visit returns false (the slice is over) or the list ends.
  // Returns true when the walk is complete. An exception from visit is
  // rethrown here, after list_for_each_ro() has released the list.
  template <typename Visit>
  bool Slice(SlurmList list, Visit&& visit) {
    Pass<Visit> pass(this, &visit);
    if (!FindResumePoint(pass.seek)) {
      restart_ = true;  // BetweenSlices() builds the id set, off-lock
      return false;
    }
    pass.called = Clock::now();
    const int n = list_for_each_ro(list, &Pass<Visit>::Next, &pass);
    Waited(pass);
    if (pass.error) std::rethrow_exception(pass.error);
    if (n < 0) return false;  // visit ended the slice
    // The list ended. The rest is handed over after the list's lock is
    // released, still under the job read lock: the records are alive.
    if (pass.got > 0) pass.Deliver();
    if (pass.error) std::rethrow_exception(pass.error);
    return true;
  }

  // Off-lock, after every slice. When no mark survived, the next slice
  // starts at the head and passes by `copied`: the job ids of every record
  // visit() was handed so far (a range of uint32_t, read only then).
  template <typename Ids>
  void BetweenSlices(const Ids& copied) {
    if (!restart_) return;
    restart_ = false;
    seen_.clear();
    for (const uint32_t id : copied) seen_.insert(id);
    dedupe_ = true;
    marks_count_ = 0;  // no mark: from the head
    ++restarts_;
  }

  // Seconds spent waiting for job_list's own lock, and how often the walk
  // started again from the head because every mark was gone.
  double list_wait_seconds() const { return list_wait_seconds_; }
  int restarts() const { return restarts_; }

 private:
  struct Mark {
    const void* record;
    uint32_t job_id;
  };

  // One slice's pass over the list (list_for_each_ro()'s argument).
  template <typename Visit>
  struct Pass {
    Pass(JobListWalk* w, Visit* v) : walk(w), visit(v) {}
    JobListWalk* walk;
    Visit* visit;
    const void* seek = nullptr;  // pass by the records up to this one
    int got = 0;
    job_record_t* batch[kBatch];
    std::exception_ptr error;
    Clock::time_point called, first;
    bool first_seen = false;

    // Hands the batch over; false when the slice is over.
    bool Deliver() {
      bool more = false;
      try {
        more = (*visit)(static_cast<job_record_t* const*>(batch), got);
      } catch (...) {
        error = std::current_exception();  // never through C frames
        more = false;
      }
      got = 0;
      return more;
    }

    // ListForF: a negative return ends the walk.
    static int Next(void* x, void* arg) {
      auto* p = static_cast<Pass*>(arg);
      if (!p->first_seen) {
        p->first_seen = true;
        p->first = Clock::now();
      }
      if (p->seek) {
        if (x == p->seek) p->seek = nullptr;
        return 0;
      }
      auto* job = static_cast<job_record_t*>(x);
      JobListWalk& w = *p->walk;
      w.Remember(job);
      if (w.dedupe_ && w.seen_.count(job->job_id)) {
        // Visited before the restart. A run of these still reaches the
        // slice's deadline check every kBatch records.
        if (++w.skipped_ % kBatch == 0 && !p->Deliver()) return -1;
        return 0;
      }
      p->batch[p->got++] = job;
      if (p->got == kBatch && !p->Deliver()) return -1;
      return 0;
    }
  };

  void Remember(const job_record_t* job) {
    marks_[marks_next_] = {job, job->job_id};
    marks_next_ = (marks_next_ + 1) % kMarks;
    if (marks_count_ < kMarks) ++marks_count_;
  }

  // The most recent mark whose id still finds that record (seek past it);
  // from the head when there is no mark (the first slice, a restart);
  // false if every mark is gone.
  bool FindResumePoint(const void*& seek) {
    for (int k = 1; k <= marks_count_; ++k) {
      const Mark& m = marks_[(marks_next_ + kMarks - k) % kMarks];
      if (find_job_record(m.job_id) == m.record) {
        seek = m.record;
        return true;
      }
    }
    return marks_count_ == 0;
  }

  // The time from the call to the first record is the wait for the list's
  // lock (an empty list has no first record: the call's time then).
  template <typename P>
  void Waited(const P& pass) {
    const auto first = pass.first_seen ? pass.first : Clock::now();
    const auto d = first - pass.called;
    if (d > std::chrono::microseconds(500))
      list_wait_seconds_ += std::chrono::duration<double>(d).count();
  }

  bool restart_ = false;  // no mark survived: restart from the head
  bool dedupe_ = false;   // pass by the ids in seen_
  int restarts_ = 0;
  uint64_t skipped_ = 0;
  double list_wait_seconds_ = 0;
  Mark marks_[kMarks] = {};
  int marks_next_ = 0;
  int marks_count_ = 0;
  std::unordered_set<uint32_t> seen_;
};

}  // namespace sm::slurm
