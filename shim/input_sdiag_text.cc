// SPDX-License-Identifier: GPL-2.0-or-later
// sdiag's text output into the model (input.h, ReadSdiagText).
#include <charconv>
#include <map>
#include <sstream>

#include "input.h"

namespace shim {

// ---- sdiag's text lines ------------------------------------------------------
//
// Matched by hand, not with std::regex: libstdc++'s regex recurses once per
// character, and a 300 KB sdiag line overflowed the stack (exit 139).

namespace {

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

class LineCursor {
 public:
  explicit LineCursor(std::string_view s) : s_(s) {}

  // \s* (or \s+ when `required`).
  bool Spaces(bool required) {
    size_t n = 0;
    while (n < s_.size() && IsSpace(s_[n])) ++n;
    s_.remove_prefix(n);
    return n > 0 || !required;
  }
  bool Literal(std::string_view lit) {
    if (!s_.starts_with(lit)) return false;
    s_.remove_prefix(lit.size());
    return true;
  }
  // -?\d+ (the minus only when `sign`), as text: converted by Int() once
  // the whole line has matched.
  bool Number(std::string_view& digits, bool sign = false) {
    size_t n = sign && s_.starts_with('-') ? 1 : 0;
    const size_t first_digit = n;
    while (n < s_.size() && s_[n] >= '0' && s_[n] <= '9') ++n;
    if (n == first_digit) return false;
    digits = s_.substr(0, n);
    s_.remove_prefix(n);
    return true;
  }
  bool AtEnd() const { return s_.empty(); }
  std::string_view rest() const { return s_; }

 private:
  std::string_view s_;
};

// A number beyond int64 is an InputError (stoll threw out_of_range).
int64_t Int(std::string_view digits, const std::string& where) {
  int64_t v = 0;
  const auto r = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (r.ec != std::errc() || r.ptr != digits.data() + digits.size())
    throw InputError(where + ": " + std::string(digits.substr(0, 40)) +
                     (digits.size() > 40 ? "..." : "") + " is out of range");
  return v;
}

// "... (1704067200)" at the end of "sdiag output at" and "Data since"
// lines: \((\d+)\)\s*$.
bool TrailingStamp(std::string_view line, const std::string& where, int64_t& out) {
  while (!line.empty() && IsSpace(line.back())) line.remove_suffix(1);
  if (!line.ends_with(')')) return false;
  line.remove_suffix(1);
  size_t open = line.size();
  while (open > 0 && line[open - 1] >= '0' && line[open - 1] <= '9') --open;
  if (open == line.size() || open == 0 || line[open - 1] != '(') return false;
  out = Int(line.substr(open), where);
  return true;
}

struct RpcLine {
  std::string name;
  int64_t id = 0, count = 0, total_time = 0;
};

// "\tREQUEST_PING ( 1008) count:2 ave_time:100 total_time:200" and the
// per-user "root (0) count:..." lines: \s*(\S*)\s*\(\s*(\d+)\)\s+count:(\d+)
// \s+ave_time:(\d+)\s+total_time:(\d+)\s*$.
bool ParseRpcLine(std::string_view line, const std::string& where, RpcLine& out) {
  size_t b = 0;
  while (b < line.size() && IsSpace(line[b])) ++b;
  size_t e = b;
  while (e < line.size() && !IsSpace(line[e])) ++e;
  const std::string_view token = line.substr(b, e - b);
  auto tail = [&](std::string_view name, std::string_view from_paren) {
    LineCursor c(from_paren);
    std::string_view id, count, ave, total;
    if (!c.Literal("(") || !(c.Spaces(false), c.Number(id)) || !c.Literal(")") ||
        !c.Spaces(true) || !c.Literal("count:") || !c.Number(count) ||
        !c.Spaces(true) || !c.Literal("ave_time:") || !c.Number(ave) ||
        !c.Spaces(true) || !c.Literal("total_time:") || !c.Number(total))
      return false;
    c.Spaces(false);
    if (!c.AtEnd()) return false;
    out.name = std::string(name);
    out.id = Int(id, where);
    out.count = Int(count, where);
    Int(ave, where);
    out.total_time = Int(total, where);
    return true;
  };
  // The longest name first, as the regex's greedy \S* would: the name is
  // the whole token and "(ID)" follows after spaces, or the token ends in
  // "(ID)" itself.
  size_t after = e;
  while (after < line.size() && IsSpace(line[after])) ++after;
  if (tail(token, line.substr(after))) return true;
  const size_t paren = token.rfind('(');
  return paren != std::string_view::npos &&
         tail(token.substr(0, paren), line.substr(b + paren));
}

// "Jobs submitted: 5" and the like: \s*([^:]+?):\s+(-?\d+)(?:\s.*)?$.
bool ParseKeyValue(std::string_view line, const std::string& where, std::string& key,
                   int64_t& value) {
  size_t b = 0;
  while (b < line.size() && IsSpace(line[b])) ++b;
  const size_t colon = line.find(':', b);
  if (colon == std::string_view::npos || colon == b) return false;
  LineCursor c(line.substr(colon + 1));
  std::string_view digits;
  if (!c.Spaces(true) || !c.Number(digits, true)) return false;
  // (?:\s.*)?$ where ECMAScript's '.' matches no line terminator: a stray
  // '\r' after the value fails the line.
  if (!c.AtEnd() && (!IsSpace(c.rest().front()) ||
                     c.rest().find_first_of("\r\n", 1) != std::string_view::npos))
    return false;
  key = std::string(line.substr(b, colon - b));
  value = Int(digits, where);
  return true;
}

}  // namespace

void ReadSdiagText(const std::string& text, const std::string& file,
                   ClusterIn& state, UserTable& users) {
  if (state.diag)
    throw InputError(file + ": a second sdiag input; " + state.diag->where +
                     " already gave the controller statistics");
  DiagIn d;
  d.where = file + ": (sdiag text)";
  enum Section { kGeneral, kMain, kBackfill, kRpcType, kRpcUser, kPending } sec = kGeneral;
  std::istringstream in(text);
  int line_no = 0;
  bool any = false;
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const std::string where = file + ": line " + std::to_string(line_no);
    int64_t stamp = 0;
    if (line.find("sdiag output at") == 0) {
      if (TrailingStamp(line, where, stamp)) {
        d.values["req_time"] = stamp;
        state.req_time = stamp;
      }
      any = true;
      continue;
    }
    if (line.find("Data since") == 0) {
      if (TrailingStamp(line, where, stamp)) d.values["req_time_start"] = stamp;
      continue;
    }
    if (line.find("Main schedule statistics") == 0) { sec = kMain; continue; }
    if (line.find("Backfilling stats") == 0) { sec = kBackfill; continue; }
    if (line.find("Remote Procedure Call statistics by message type") == 0) { sec = kRpcType; continue; }
    if (line.find("Remote Procedure Call statistics by user") == 0) { sec = kRpcUser; continue; }
    if (line.find("Pending RPC statistics") == 0) { sec = kPending; continue; }
    if (sec == kRpcType || sec == kRpcUser) {
      if (line.find_first_not_of(" \t") == std::string::npos) continue;
      RpcLine rpc;
      if (!ParseRpcLine(line, where, rpc))
        throw InputError(where + ": expected \"NAME (ID) count:N ave_time:N total_time:N\"");
      if (sec == kRpcType) {
        RpcTypeIn r;
        r.message_type = rpc.name;
        r.type_id = rpc.id;
        r.count = rpc.count;
        r.total_time_us = rpc.total_time;
        d.rpc_types.push_back(r);
      } else {
        RpcUserIn r;
        r.user = rpc.name;
        r.user_id = rpc.id;
        r.count = rpc.count;
        r.total_time_us = rpc.total_time;
        std::string& known = users[r.user_id];
        if (known.empty()) known = r.user;
        d.rpc_users.push_back(r);
      }
      continue;
    }
    std::string key;
    int64_t v = 0;
    if (sec == kPending || !ParseKeyValue(line, where, key, v)) continue;
    static const std::map<std::string, std::string> kGeneralKeys = {
        {"Server thread count", "server_thread_count"},
        {"Agent queue size", "agent_queue_size"},
        {"Agent count", "agent_count"},
        {"Agent thread count", "agent_thread_count"},
        {"DBD Agent queue size", "dbd_agent_queue_size"},
        {"Jobs submitted", "jobs_submitted"},
        {"Jobs started", "jobs_started"},
        {"Jobs completed", "jobs_completed"},
        {"Jobs canceled", "jobs_canceled"},
        {"Jobs failed", "jobs_failed"},
        {"Jobs pending", "jobs_pending"},
        {"Jobs running", "jobs_running"}};
    static const std::map<std::string, std::string> kMainKeys = {
        {"Last cycle", "schedule_cycle_last"},
        {"Max cycle", "schedule_cycle_max"},
        {"Total cycles", "schedule_cycle_total"},
        {"Last queue length", "schedule_queue_length"}};
    static const std::map<std::string, std::string> kBfKeys = {
        {"Total backfilled jobs (since last slurm start)", "bf_backfilled_jobs"},
        {"Total backfilled jobs (since last stats cycle start)", "bf_last_backfilled_jobs"},
        {"Total backfilled heterogeneous job components", "bf_backfilled_het_jobs"},
        {"Total cycles", "bf_cycle_counter"},
        {"Last cycle", "bf_cycle_last"},
        {"Max cycle", "bf_cycle_max"},
        {"Last depth cycle", "bf_last_depth"},
        {"Last depth cycle (try sched)", "bf_last_depth_try"},
        {"Last queue length", "bf_queue_len"},
        {"Last table size", "bf_table_size"}};
    const auto& table = sec == kGeneral ? kGeneralKeys : sec == kMain ? kMainKeys : kBfKeys;
    if (const auto it = table.find(key); it != table.end()) {
      d.values[it->second] = v;
      if (it->second == "server_thread_count") d.server_thread_count = Num::Of(v);
      any = true;
    }
  }
  if (!any)
    throw InputError(file + ": not JSON and not `sdiag` output (expected a line "
                     "\"sdiag output at ...\" or \"Server thread count: N\")");
  state.diag = std::move(d);
}

}  // namespace shim
