// SPDX-License-Identifier: GPL-2.0-or-later
// StdOut/StdErr of each job (job_stdio.h): expanded as the client of the
// release we build for expands them, or taken from the last collection.
#include "job_stdio.h"

#include <algorithm>
#include <climits>
#include <string>

namespace sm::slurm {
namespace {

#ifdef SM_STDIO_EXPAND
// scontrol prints StdOut/StdErr with snprintf() into a PATH_MAX buffer
// (src/scontrol/info_job.c, 25.11 and 26.05): at most 4,095 bytes.
constexpr size_t kMaxStdioPath = PATH_MAX - 1;

// How much of `pattern` expand_stdio_fields() (src/common/print_fields.c,
// the same in 25.11 and 26.05) must read for the first kMaxStdioPath bytes
// of its result. It reads left to right and only appends, so a prefix that
// ends between two of its steps expands to a prefix of the whole result:
// we stop after the step past which the result is surely that long.
// Without this, a 1,024-byte job name and -o of %x x 2,047 made 2 MB per
// path, 6-27 ms per call, every collection. What a step appends at least:
// a byte or "%%" 1, %x %u %N their value, a number its width (one digit at
// least), %S nothing (we do not count the SLUID), any other "%c" 1 (Slurm
// prints it back). A pattern with a backslash anywhere is copied without
// expansion (Slurm's escape rule, decided on the whole pattern): never
// longer than itself, so it is not cut.
size_t StdioPatternNeeded(std::string_view pattern, size_t work_dir,
                          size_t name, size_t user, size_t host) {
  if (pattern.find('\\') != std::string_view::npos) return pattern.size();
  const size_t n = pattern.size();
  size_t out = pattern.front() == '/' ? 0 : work_dir, i = 0;
  while (i < n && out < kMaxStdioPath) {
    if (pattern[i] != '%') {
      ++out;
      ++i;
      continue;
    }
    size_t k = i + 1, width = 0;
    if (k < n && pattern[k] == '%') {
      ++out;
      i = k + 1;
      continue;
    }
    // strtoul(), then "if (padding > 9) padding = 10".
    for (; k < n && pattern[k] >= '0' && pattern[k] <= '9'; ++k)
      width = std::min<size_t>(width * 10 + (pattern[k] - '0'), 10);
    if (k >= n) return n;  // a trailing "%" or "%<digits>": the end
    switch (pattern[k]) {
      case 'x': out += name; break;
      case 'u': out += user; break;
      case 'N': out += host; break;
      case 'S': break;
      case 'A':
      case 'a':
      case 'b':
      case 'J':
      case 'j':
      case 'n':
      case 'r':
      case 's':
      case 't': out += std::max<size_t>(width, 1); break;
      default: ++out; break;
    }
    i = k + 1;
  }
  return i;
}

// slurm_get_job_stdout()/stderr() of 25.11+: "" when the path is unset,
// else expand_stdio_fields() filled as slurm_expand_job_stdio_fields()
// fills it from the packed job, cut as scontrol cuts it. Pure function of
// its arguments (xmalloc only), safe on our thread with no lock held.
std::string ExpandStdio(bool set, std::string_view pattern, const Job& j,
                        const JobRaw& r, std::string_view user) {
  if (!set || pattern.empty()) return {};
  // Two NULs: on a pattern ending in "%<digits>" expand_stdio_fields()
  // copies the terminator and steps past it (25.11.7 and 26.05.3 read on
  // until the next zero byte; next to an unmapped page that is SIGSEGV).
  // The second NUL ends it there; what it printed up to the first is
  // what scontrol shows.
  std::string path(pattern.substr(
      0, StdioPatternNeeded(pattern, r.work_dir.size(), j.name.size(),
                            user.size(), r.batch_host.size())));
  path.push_back('\0');
  std::string name(j.name), host(r.batch_host), who(user),
      work_dir(r.work_dir);
  job_std_pattern_t p = {};
  p.array_job_id = static_cast<uint32_t>(j.array_job_id.value_or(0));
  p.array_task_id = r.array_task_id;
  p.first_step_node = r.batch_host.empty() ? nullptr : host.data();
  p.jobname = name.data();
  p.restart_cnt = r.restart_cnt;
  p.step_id = r.step_id;
  p.step_id.step_id = SLURM_BATCH_SCRIPT;
  p.user = who.data();
  p.work_dir = r.work_dir.empty() ? nullptr : work_dir.data();
  char* out = expand_stdio_fields(path.data(), &p);
  std::string result = out ? out : "";
  xfree(out);
  if (result.size() > kMaxStdioPath) result.resize(kMaxStdioPath);
  return result;
}
#endif


// Everything ExpandStdio() or JobStdout()/JobStderr() read for one job.
Fingerprint StdioInputs(const Job& j, const JobRaw& r, std::string_view user) {
  FingerprintHasher h;
  h.Word(j.id);
  h.Word(j.array_job_id.value_or(0));
  h.Word(r.array_task_id);
  h.Word(r.batch);
  h.String(j.name);
  h.String(user);
  h.String(r.work_dir);
  h.String(r.std_out);
  h.String(r.std_err);
#ifdef SM_STDIO_EXPAND
  h.Word(r.has_std_out | r.has_std_err << 1);
  h.Word(r.restart_cnt);
  h.Word(r.step_id.sluid);
  h.Word(r.step_id.job_id);
  h.Word(r.step_id.step_het_comp);
  h.Word(r.step_id.step_id);
  h.String(r.batch_host);
#endif
  return h.Finish();
}

// StdOut/StdErr as the client prints them, expanded from the patterns.
void ExpandPaths(Job& j, const JobRaw& r, Arena& arena, std::string_view stdio_user) {
#ifdef SM_STDIO_EXPAND
  j.std_out =
      arena.Store(ExpandStdio(r.has_std_out, r.std_out, j, r, stdio_user));
  j.std_err =
      arena.Store(ExpandStdio(r.has_std_err, r.std_err, j, r, stdio_user));
#else
  StdioJob io;
  io.job_id = j.id;
  io.array_job_id = static_cast<uint32_t>(j.array_job_id.value_or(0));
  io.array_task_id = r.array_task_id;
  io.name = j.name;
  io.work_dir = r.work_dir;
  io.user = stdio_user;
  io.batch = r.batch;
  io.std_out = r.std_out;
  io.std_err = r.std_err;
  j.std_out = arena.Store(JobStdout(kStdio, io));
  j.std_err = arena.Store(JobStderr(kStdio, io));
#endif
}

}  // namespace

Fingerprint StdioPaths::Derive(Job& j, const JobRaw& r, size_t k,
                               std::string_view user) {
  const Fingerprint inputs = StdioInputs(j, r, user);
  // Where this job was last time: the place the last one found was at,
  // shifted alike.
  size_t at = static_cast<size_t>(static_cast<ptrdiff_t>(k) + shift_);
  const Job* same = last_ ? last_->Find(at, j.id, inputs) : nullptr;
  if (same) shift_ = static_cast<ptrdiff_t>(at) - static_cast<ptrdiff_t>(k);
  if (same) {
    j.std_out = arena_.Store(same->std_out);
    j.std_err = arena_.Store(same->std_err);
    ++reused_;
  } else {
    ExpandPaths(j, r, arena_, user);
  }
  return inputs;
}

}  // namespace sm::slurm
