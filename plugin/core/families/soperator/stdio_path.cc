// SPDX-License-Identifier: GPL-2.0-or-later
#include "families/soperator/stdio_path.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

namespace sm {
namespace {

constexpr uint32_t kNoVal = 0xfffffffe;
// scontrol formats into a MAXPATHLEN buffer with snprintf.
constexpr size_t kMaxPath = 4096 - 1;

std::string Truncated(std::string s) {
  if (s.size() > kMaxPath) s.resize(kMaxPath);
  return s;
}

// How long an intermediate 22.05 expansion must be kept so that its first
// kMaxPath bytes come out as without any bound: every later pass replaces
// a two-byte token starting with '%', and so shrinks the text by at most
// 2 bytes per '%' it holds. (Inserted numbers hold no '%'; user names
// cannot.) Without a bound, a job name of 1,024 bytes and -o of %x x 2,047
// made 2 MB per path and per collection.
size_t KeepFor2205(std::string_view s) {
  return kMaxPath + 2 * static_cast<size_t>(std::count(s.begin(), s.end(), '%')) + 2;
}

void ReplaceAll(std::string& s, std::string_view what, std::string_view with) {
  // xstrsubstituteall: left to right, never rescanning inserted text.
  const size_t keep = KeepFor2205(s);
  std::string out;
  size_t from = 0;
  for (size_t pos; (pos = s.find(what, from)) != std::string::npos;
       from = pos + what.size()) {
    out.append(s, from, pos - from);
    out.append(with);
    if (out.size() > keep) {  // the rest cannot reach the visible part
      s = std::move(out);
      s.resize(keep);
      return;
    }
  }
  out.append(s, from, std::string::npos);
  if (out.size() > keep) out.resize(keep);
  s = std::move(out);
}

// 22.05: repeated strstr() replacement, %A first, no escapes, no widths.
std::string Format2205(const StdioJob& j, std::string_view pattern) {
  std::string s(pattern);
  const std::string array_or_job = std::to_string(
      j.array_task_id == kNoVal ? j.job_id : j.array_job_id);
  ReplaceAll(s, "%A", array_or_job);
  ReplaceAll(s, "%a", std::to_string(j.array_task_id));
  ReplaceAll(s, "%j", std::to_string(j.job_id));
  ReplaceAll(s, "%u", j.user);
  ReplaceAll(s, "%x", j.name);
  return s;
}

void AppendPadded(std::string& out, uint32_t v, unsigned width) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%0*u", static_cast<int>(width), v);
  out.append(buf);
}

// 23.02+: a small parser with %% and an optional width (>9 means 10).
std::string Format2302(const StdioJob& j, std::string_view t) {
  std::string out;
  size_t p = 0, q = 0;
  // Output only grows left to right: once past kMaxPath (the caller's cut)
  // the rest cannot show, whatever the pattern repeats.
  while (p < t.size() && out.size() <= kMaxPath) {
    if (t[p] != '%') {
      ++p;
      continue;
    }
    size_t offset = 1;
    unsigned wid = 0;
    if (p + 1 < t.size() && t[p + 1] == '%') {
      ++p;
      out.append(t.substr(q, p - q));
      q = ++p;
      continue;
    }
    if (p + 1 < t.size() && std::isdigit(static_cast<unsigned char>(t[p + 1]))) {
      size_t e = p + 1;
      unsigned long width = 0;
      while (e < t.size() && std::isdigit(static_cast<unsigned char>(t[e]))) {
        width = width * 10 + (t[e] - '0');
        if (width > 1000000) width = 1000000;
        ++e;
      }
      if (width > 9) {
        wid = 10;
        offset = 3;
      } else {
        wid = static_cast<unsigned>(width);
        offset = 2;
      }
      p = e;
      if (p >= t.size()) break;
    } else {
      ++p;
      if (p >= t.size()) break;  // a trailing '%' stays literal
    }
    // Each known specifier replaces "%[width]c" with its value.
    const size_t literal_end = p >= offset ? p - offset : 0;
    auto number = [&](uint32_t v) {
      out.append(t.substr(q, literal_end - q));
      AppendPadded(out, v, wid);
      q = p + 1;
    };
    auto text = [&](std::string_view v) {
      out.append(t.substr(q, literal_end - q));
      out.append(v);
      q = p + 1;
    };
    switch (t[p]) {
      case 'A': number(j.array_task_id == kNoVal ? j.job_id : j.array_job_id); break;
      case 'a': number(j.array_task_id); break;
      case 'b': number(j.array_task_id % 10); break;
      case 'j': number(j.job_id); break;
      case 'u': text(j.user); break;
      case 'x': text(j.name); break;
      default: break;  // unknown specifiers stay literal
    }
  }
  if (out.size() > kMaxPath) return out;
  if (p != q && q < t.size()) out.append(t.substr(q, p - q));
  return out;
}

std::string Format(StdioDialect d, const StdioJob& j, std::string_view pattern) {
  std::string s = d == StdioDialect::kSlurm2205 ? Format2205(j, pattern)
                                                : Format2302(j, pattern);
  if (!s.empty() && s.front() == '/') return Truncated(std::move(s));
  return Truncated(std::string(j.work_dir) + "/" + s);
}

std::string DefaultPath(const StdioJob& j) {
  if (j.array_job_id)
    return Truncated(std::string(j.work_dir) + "/slurm-" +
                     std::to_string(j.array_job_id) + "_" +
                     std::to_string(j.array_task_id) + ".out");
  return Truncated(std::string(j.work_dir) + "/slurm-" +
                   std::to_string(j.job_id) + ".out");
}

}  // namespace

std::string JobStdout(StdioDialect d, const StdioJob& j) {
  if (!j.std_out.empty()) return Format(d, j, j.std_out);
  if (!j.batch) return "";
  return DefaultPath(j);
}

std::string JobStderr(StdioDialect d, const StdioJob& j) {
  if (!j.std_err.empty()) return Format(d, j, j.std_err);
  if (!j.batch) return "";
  if (!j.std_out.empty()) return Format(d, j, j.std_out);
  return DefaultPath(j);
}

}  // namespace sm
