// SPDX-License-Identifier: GPL-2.0-or-later
// sdiag's text output into the model (input.h, ReadSdiagText).
#include <charconv>
#include <sstream>

#include "input.h"
#include "record_fields.h"

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
  using enum fields::SdiagSection;
  // The RPC tables and pending RPCs are no values' sections.
  enum { kValues, kRpcType, kRpcUser, kPending } part = kValues;
  fields::SdiagSection sec = kGeneral;
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
    if (line.find("Main schedule statistics") == 0) { part = kValues; sec = kMain; continue; }
    if (line.find("Backfilling stats") == 0) { part = kValues; sec = kBackfill; continue; }
    if (line.find("Remote Procedure Call statistics by message type") == 0) { part = kRpcType; continue; }
    if (line.find("Remote Procedure Call statistics by user") == 0) { part = kRpcUser; continue; }
    if (line.find("Pending RPC statistics") == 0) { part = kPending; continue; }
    if (part == kRpcType || part == kRpcUser) {
      if (line.find_first_not_of(" \t") == std::string::npos) continue;
      RpcLine rpc;
      if (!ParseRpcLine(line, where, rpc))
        throw InputError(where + ": expected \"NAME (ID) count:N ave_time:N total_time:N\"");
      if (part == kRpcType) {
        d.rpc_types.push_back({rpc.name, rpc.id, rpc.count, rpc.total_time});
        continue;
      }
      d.rpc_users.push_back({rpc.name, rpc.id, rpc.count, rpc.total_time});
      if (std::string& known = users[rpc.id]; known.empty()) known = rpc.name;
      continue;
    }
    std::string key;
    int64_t v = 0;
    if (part == kPending || !ParseKeyValue(line, where, key, v)) continue;
    for (const fields::DiagValue& value : fields::DiagValues()) {
      if (value.section != sec || !value.label || key != value.label) continue;
      d.values[value.key] = v;
      if (value.key == std::string_view("server_thread_count")) d.server_thread_count = Num::Of(v);
      any = true;
    }
  }
  if (!any)
    throw InputError(file + ": not JSON and not `sdiag` output (expected a line "
                     "\"sdiag output at ...\" or \"Server thread count: N\")");
  state.diag = std::move(d);
}

}  // namespace shim
