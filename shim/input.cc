// SPDX-License-Identifier: GPL-2.0-or-later
#include "input.h"

#include <sys/stat.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

#include "utf8.h"

namespace shim {
namespace {

constexpr int kWarningsShownPerKind = 3;

std::map<std::string, int>& WarningCounts() {
  static std::map<std::string, int> counts;
  return counts;
}

// ---- Raw bytes through nlohmann's UTF-8 checks -----------------------------
//
// nlohmann rejects strings that are not UTF-8, but Slurm prints node reasons,
// comments and job names byte for byte. Every byte that is not part of a
// valid UTF-8 sequence is carried through parsing as the private-use code
// point U+10FF00+byte (always 0x80-0xFF, so U+10FF80-U+10FFFF) and turned back
// into that byte by Decode(). Genuine U+10FF80-U+10FFFF characters in a dump
// would come out as raw bytes too; they are non-characters and private use.

void AppendEscapedByte(std::string& out, unsigned char b) {
  const uint32_t cp = 0x10FF00u + b;
  out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
  out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
  out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
  out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
}

// nullptr when the text is valid UTF-8 already.
std::unique_ptr<std::string> EscapeInvalidUtf8(const std::string& text) {
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const size_t n = text.size();
  size_t i = 0;
  while (i < n) {
    if (p[i] < 0x80) {
      ++i;
      continue;
    }
    const size_t len = sm::Utf8SequenceLength(text, i);
    if (len == 0) break;
    i += len;
  }
  if (i == n) return nullptr;
  auto out = std::make_unique<std::string>(text.substr(0, i));
  out->reserve(n + 64);
  while (i < n) {
    if (p[i] < 0x80) {
      out->push_back(static_cast<char>(p[i++]));
      continue;
    }
    const size_t len = sm::Utf8SequenceLength(text, i);
    if (len == 0) {
      AppendEscapedByte(*out, p[i++]);
    } else {
      out->append(text, i, len);
      i += len;
    }
  }
  return out;
}

std::string Decode(const std::string& s) {
  if (s.find('\xF4') == std::string::npos) return s;
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == 0xF4 && i + 3 < s.size() &&
        static_cast<unsigned char>(s[i + 1]) == 0x8F &&
        (static_cast<unsigned char>(s[i + 2]) & 0xFE) == 0xBE) {
      const uint32_t cp = 0x100000u | (0x0Fu << 12) |
                          ((static_cast<unsigned char>(s[i + 2]) & 0x3Fu) << 6) |
                          (static_cast<unsigned char>(s[i + 3]) & 0x3Fu);
      out.push_back(static_cast<char>(cp - 0x10FF00u));
      i += 3;
      continue;
    }
    out.push_back(s[i]);
  }
  return out;
}

// ---- Typed getters ----------------------------------------------------------

const char* TypeName(const json& j) {
  switch (j.type()) {
    case json::value_t::null: return "null";
    case json::value_t::object: return "an object";
    case json::value_t::array: return "an array";
    case json::value_t::string: return "a string";
    case json::value_t::boolean: return "a boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned: return "an integer";
    case json::value_t::number_float: return "a fractional number";
    default: return "something else";
  }
}

[[noreturn]] void Expected(const At& at, const std::string& what, const json& got) {
  throw InputError(at.str() + ": expected " + what + ", got " + TypeName(got));
}

[[noreturn]] void Missing(const At& at, const std::string& what) {
  throw InputError(at.str() + ": missing; expected " + what);
}

void RequireObject(const json& j, const At& at, const char* what) {
  if (!j.is_object()) Expected(at, what, j);
}

const json* Find(const json& o, std::string_view key) {
  const auto it = o.find(key);
  return it == o.end() ? nullptr : &*it;
}

// A C string cannot hold NUL: cut there, as strcpy would.
std::string CString(const std::string& s, const At& at) {
  const size_t nul = s.find('\0');
  if (nul == std::string::npos) return Decode(s);
  Warn("nul-byte", at.str() + ": string holds a NUL byte; Slurm's C strings end there");
  return Decode(s.substr(0, nul));
}

// Missing or null -> "" (data_parser prints NULL strings as "" or null).
std::string Str(const json& o, std::string_view key, const At& parent) {
  const json* v = Find(o, key);
  if (!v || v->is_null()) return {};
  const At at = parent.Key(key);
  if (!v->is_string()) Expected(at, "a string", *v);
  return CString(v->get_ref<const std::string&>(), at);
}

std::optional<std::string> OptStr(const json& o, std::string_view key,
                                  const At& parent) {
  const json* v = Find(o, key);
  if (!v) return std::nullopt;
  return Str(o, key, parent);
}

// Doubles beyond int64 would make the conversion undefined.
bool InInt64Range(double d) { return std::isfinite(d) && d > -9.2e18 && d < 9.2e18; }

bool IsIntegral(const json& v) {
  if (v.is_number_integer()) return true;
  if (!v.is_number_float()) return false;
  const double d = v.get<double>();
  return InInt64Range(d) && d == static_cast<double>(static_cast<int64_t>(d));
}

// A fractional number where an integer is read (billable_tres ...): its
// integer part, if it fits.
int64_t Truncated(const json& v, const At& at) {
  const double d = v.get<double>();
  if (!InInt64Range(d))
    throw InputError(at.str() + ": " + v.dump() + " is out of range; expected an integer");
  return static_cast<int64_t>(d);
}

int64_t AsInt(const json& v, const At& at, const char* what) {
  if (v.is_number_unsigned()) {
    const uint64_t u = v.get<uint64_t>();
    if (u > static_cast<uint64_t>(INT64_MAX))
      throw InputError(at.str() + ": " + std::to_string(u) +
                       " is out of range; expected " + what);
    return static_cast<int64_t>(u);
  }
  if (v.is_number_integer()) return v.get<int64_t>();
  if (IsIntegral(v)) return static_cast<int64_t>(v.get<double>());
  Expected(at, what, v);
}

// data_parser's {"set", "infinite", "number"} (v0.0.40+): kInfinite or
// kUnset where its flags say so, else kValue with `number` its number member.
Num::Kind NoValStruct(const json& v, const At& at, const json*& number) {
  const json* set = Find(v, "set");
  const json* inf = Find(v, "infinite");
  if (set && !set->is_boolean()) Expected(at.Key("set"), "a boolean", *set);
  if (inf && !inf->is_boolean()) Expected(at.Key("infinite"), "a boolean", *inf);
  if (inf && inf->get<bool>()) return Num::kInfinite;
  if (set && !set->get<bool>()) return Num::kUnset;
  number = Find(v, "number");
  if (!number) Missing(at.Key("number"), "a number");
  return Num::kValue;
}

// A number in any data_parser shape: 22.05 prints plain integers (or null
// for "not set"), v0.0.40+ prints {"set":..,"infinite":..,"number":..}.
Num N(const json& o, std::string_view key, const At& parent) {
  const json* v = Find(o, key);
  if (!v) return {};
  const At at = parent.Key(key);
  if (v->is_null()) return {Num::kUnset, 0};
  if (v->is_boolean()) return Num::Of(v->get<bool>() ? 1 : 0);
  if (v->is_object()) {
    if (!Find(*v, "set") && !Find(*v, "infinite") && !Find(*v, "number"))
      Expected(at, "a number or {\"set\", \"infinite\", \"number\"}", *v);
    const json* num = nullptr;
    if (const Num::Kind k = NoValStruct(*v, at, num); k != Num::kValue) return {k, 0};
    // Fractions (billable_tres) are not read; take the integer part.
    if (num->is_number_float() && !IsIntegral(*num))
      return Num::Of(Truncated(*num, at.Key("number")));
    return Num::Of(AsInt(*num, at.Key("number"), "an integer"));
  }
  if (v->is_number_float() && !IsIntegral(*v)) return Num::Of(Truncated(*v, at));
  if (v->is_number()) return Num::Of(AsInt(*v, at, "an integer"));
  Expected(at, "a number", *v);
}

int64_t RequiredInt(const json& o, std::string_view key, const At& parent,
                    const char* what) {
  const Num n = N(o, key, parent);
  if (n.kind == Num::kAbsent) Missing(parent.Key(key), what);
  if (!n.has()) throw InputError(parent.Key(key).str() + ": not set; expected " + what);
  return n.value;
}

std::string Upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::vector<std::string> StrArray(const json& v, const At& at, const char* what) {
  std::vector<std::string> out;
  if (v.is_null()) return out;
  if (!v.is_array()) Expected(at, what, v);
  out.reserve(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_string()) Expected(at.Index(i), "a string", v[i]);
    out.push_back(CString(v[i].get_ref<const std::string&>(), at.Index(i)));
  }
  return out;
}

// A node's or job's state in either shape: one word (openapi v0.0.38,
// 22.05) or a list of words (later); upper case, as Slurm's state names,
// and never empty.
std::vector<std::string> StateWords(const json& o, std::string_view key, const At& at,
                                    const char* what) {
  const json* st = Find(o, key);
  if (!st) Missing(at.Key(key), what);
  std::vector<std::string> words;
  if (st->is_string()) {
    words.push_back(Upper(Str(o, key, at)));
  } else if (st->is_array()) {
    for (std::string& s : StrArray(*st, at.Key(key), "a list of state words"))
      words.push_back(Upper(std::move(s)));
  } else {
    Expected(at.Key(key), "a list of state words", *st);
  }
  if (words.empty())
    throw InputError(at.Key(key).str() + ": empty; expected at least one state word");
  return words;
}

// How every record parser starts: an object, where it is, its name.
template <typename T>
T Named(const json& o, const At& at, const char* what, std::string_view key,
        const char* name_what) {
  RequireObject(o, at, what);
  T out;
  out.where = at.str();
  if (!Find(o, key)) Missing(at.Key(key), name_what);
  out.name = Str(o, key, at);
  return out;
}

void NoteEvent(ClusterIn& state, const Num& n) {
  if (n.has() && n.value > state.latest_event) state.latest_event = n.value;
}

// ---- Nodes ------------------------------------------------------------------

NodeIn ParseNode(const json& n, const At& at, ClusterIn& state) {
  auto out = Named<NodeIn>(n, at, "a node object", "name", "the node name (a string)");

  out.state = StateWords(n, "state", at, "the node state (a list of state words)");
  // openapi v0.0.38: "state": "idle" plus "state_flags": [...].
  if (Find(n, "state")->is_string())
    if (const json* f = Find(n, "state_flags"))
      for (std::string& s : StrArray(*f, at.Key("state_flags"), "a list of strings"))
        out.state.push_back(Upper(std::move(s)));

  out.address = Str(n, "address", at);
  out.hostname = Str(n, "hostname", at);
  out.comment = Str(n, "comment", at);
  out.reason = Str(n, "reason", at);
  out.reason_time = N(n, "reason_changed_at", at).or_else(0);
  out.instance_id = Str(n, "instance_id", at);
  out.reservation = Str(n, "reservation", at);
  out.tres = Str(n, "tres", at);
  out.tres_used = Str(n, "tres_used", at);
  if (const json* p = Find(n, "partitions")) {
    if (p->is_string()) {
      std::string csv = Str(n, "partitions", at);
      std::stringstream ss(csv);
      for (std::string part; std::getline(ss, part, ',');)
        if (!part.empty()) out.partitions.push_back(part);
    } else {
      out.partitions = StrArray(*p, at.Key("partitions"), "a list of partition names");
    }
  }
  out.cpus = N(n, "cpus", at);
  out.effective_cpus = N(n, "effective_cpus", at);
  out.alloc_cpus = N(n, "alloc_cpus", at);
  out.real_memory = N(n, "real_memory", at);
  out.alloc_memory = N(n, "alloc_memory", at);
  if (Find(n, "free_mem")) {
    out.free_mem = N(n, "free_mem", at);
  } else {
    // 22.05 prints the uint64 as a signed int: NO_VAL64 is -2.
    out.free_mem = N(n, "free_memory", at);
    if (out.free_mem.has() && out.free_mem.value < 0) out.free_mem = {Num::kUnset, 0};
  }
  out.specialized_memory = N(n, "specialized_memory", at);
  out.cores = N(n, "cores", at);
  out.sockets = N(n, "sockets", at);
  out.threads = N(n, "threads", at);
  NoteEvent(state, {Num::kValue, out.reason_time});
  for (const char* k : {"last_busy", "boot_time", "slurmd_start_time"}) {
    const Num t = N(n, k, at);
    NoteEvent(state, t);
  }
  return out;
}

bool LooksLikeNode(const json& o) {
  return o.is_object() && o.contains("name") && o.contains("state") &&
         !o.contains("job_id");
}

bool LooksLikeJob(const json& o) {
  return o.is_object() && o.contains("job_id");
}

// ---- Jobs -------------------------------------------------------------------

bool TerminalWord(const std::string& s) {
  static const char* const kTerminal[] = {
      "COMPLETED", "CANCELLED", "FAILED", "TIMEOUT", "NODE_FAIL", "PREEMPTED",
      "BOOT_FAIL", "DEADLINE", "OUT_OF_MEMORY"};
  return std::find_if(std::begin(kTerminal), std::end(kTerminal),
                      [&](const char* t) { return s == t; }) != std::end(kTerminal);
}

std::optional<std::vector<AllocIn>> ParseAllocation(const json& j, const At& at) {
  if (j.is_null()) return std::nullopt;
  RequireObject(j, at, "a job_resources object");
  std::vector<AllocIn> out;
  const json* nodes = Find(j, "nodes");
  if (nodes && nodes->is_object()) {
    // v0.0.41+: nodes.allocation[] with cpus.count and memory.allocated.
    const json* alloc = Find(*nodes, "allocation");
    const At aat = at.Key("nodes").Key("allocation");
    if (!alloc || alloc->is_null()) return out;
    if (!alloc->is_array()) Expected(aat, "a list of node allocations", *alloc);
    for (size_t i = 0; i < alloc->size(); ++i) {
      const json& a = (*alloc)[i];
      const At e = aat.Index(i);
      RequireObject(a, e, "a node allocation object");
      AllocIn x;
      x.node = Str(a, "name", e);
      if (const json* c = Find(a, "cpus"); c && c->is_object())
        x.cpus = N(*c, "count", e.Key("cpus")).or_else(0);
      else
        x.cpus = N(a, "cpus", e).or_else(0);
      if (const json* m = Find(a, "memory"); m && m->is_object())
        x.memory_mb = N(*m, "allocated", e.Key("memory")).or_else(0);
      else
        x.memory_mb = N(a, "memory_allocated", e).or_else(0);
      out.push_back(std::move(x));
    }
    return out;
  }
  // v0.0.38-v0.0.40: allocated_nodes[] with a socket/core map.
  const json* an = Find(j, "allocated_nodes");
  if (!an || an->is_null()) return out;
  const At aat = at.Key("allocated_nodes");
  if (!an->is_array()) Expected(aat, "a list of allocated nodes", *an);
  for (size_t i = 0; i < an->size(); ++i) {
    const json& a = (*an)[i];
    const At e = aat.Index(i);
    RequireObject(a, e, "an allocated node object");
    AllocIn x;
    x.node = Str(a, "nodename", e);
    x.memory_mb = N(a, "memory_allocated", e).or_else(0);
    if (const json* c = Find(a, "cpus")) {
      x.cpus = c->is_number() ? AsInt(*c, e.Key("cpus"), "an integer") : 0;
    } else if (const json* s = Find(a, "sockets"); s && s->is_object()) {
      // Count allocated cores; controller.cc reconciles with the node.
      for (const auto& [sock, sv] : s->items()) {
        const json* cores = sv.is_object() ? Find(sv, "cores") : nullptr;
        if (!cores || !cores->is_object()) continue;
        for (const auto& [core, cv] : cores->items())
          if (cv.is_string() && cv.get_ref<const std::string&>().find("allocated") == 0)
            ++x.cpus;
      }
    }
    out.push_back(std::move(x));
  }
  return out;
}

JobIn ParseJob(const json& j, const At& at, ClusterIn& state, UserTable& users) {
  RequireObject(j, at, "a job object");
  JobIn out;
  out.where = at.str();
  out.job_id = RequiredInt(j, "job_id", at, "the job id (an integer)");
  if (out.job_id <= 0 || out.job_id > 0xFFFFFFFDLL)
    throw InputError(at.Key("job_id").str() + ": " + std::to_string(out.job_id) +
                     " is out of range; expected a job id from 1 to 4294967293");
  out.name = Str(j, "name", at);
  out.state = StateWords(j, "job_state", at, "the job state (a list of state words)");
  if (const json* r = Find(j, "state_reason"); r && !r->is_null())
    out.state_reason = Str(j, "state_reason", at);
  if (const json* d = Find(j, "state_description"); d && !d->is_null())
    out.state_description = Str(j, "state_description", at);
  out.partition = Str(j, "partition", at);
  out.account = Str(j, "account", at);
  out.user_id = N(j, "user_id", at).or_else(0);
  out.user_name = OptStr(j, "user_name", at);
  out.mail_user = OptStr(j, "mail_user", at);
  out.std_out = Str(j, "standard_output", at);
  out.std_err = Str(j, "standard_error", at);
  out.work_dir = Str(j, "current_working_directory", at);
  out.batch = N(j, "batch_flag", at).or_else(0) != 0;
  out.nodes = Str(j, "nodes", at);
  out.node_count = N(j, "node_count", at);
  out.cpus = N(j, "cpus", at);
  out.memory_per_node = N(j, "memory_per_node", at);
  out.memory_per_cpu = N(j, "memory_per_cpu", at);
  out.array_job_id = N(j, "array_job_id", at);
  out.array_task_id = N(j, "array_task_id", at);
  out.array_task_string = Str(j, "array_task_string", at);
  out.array_max_tasks = N(j, "array_max_tasks", at).or_else(0);
  out.submit_time = N(j, "submit_time", at);
  out.start_time = N(j, "start_time", at);
  out.end_time = N(j, "end_time", at);
  out.time_limit = N(j, "time_limit", at);
  out.priority = N(j, "priority", at);
  out.tres_alloc = Str(j, "tres_alloc_str", at);
  out.tres_req = Str(j, "tres_req_str", at);
  out.max_nodes = N(j, "max_nodes", at);
  if (const json* r = Find(j, "job_resources"))
    out.alloc = ParseAllocation(*r, at.Key("job_resources"));

  NoteEvent(state, out.submit_time);
  if (out.state[0] != "PENDING") NoteEvent(state, out.start_time);
  if (TerminalWord(out.state[0])) NoteEvent(state, out.end_time);
  NoteEvent(state, N(j, "last_sched_evaluation", at));
  if (out.user_name) {
    std::string& known = users[out.user_id];
    if (known.empty()) known = *out.user_name;
  }
  return out;
}

// ---- Partitions ---------------------------------------------------------------

PartitionIn ParsePartition(const json& p, const At& at) {
  auto out = Named<PartitionIn>(p, at, "a partition object", "name", "the partition name");
  if (const json* m = Find(p, "maximums"); m && m->is_object()) {
    out.max_time = N(*m, "time", at.Key("maximums"));
    out.max_nodes = N(*m, "nodes", at.Key("maximums"));
  } else {
    out.max_time = N(p, "max_time", at);
    out.max_nodes = N(p, "max_nodes", at);
  }
  return out;
}

// ---- Licenses, reservations, QoS, shares -------------------------------------

// A fractional number in any data_parser shape (sshare's factors).
Real R(const json& o, std::string_view key, const At& parent) {
  const json* v = Find(o, key);
  if (!v) return {};
  const At at = parent.Key(key);
  if (v->is_null()) return {Num::kUnset, 0};
  const json* num = v;
  if (v->is_object()) {
    if (const Num::Kind k = NoValStruct(*v, at, num); k != Num::kValue) return {k, 0};
  }
  if (!num->is_number()) Expected(at, "a number", *num);
  const double d = num->get<double>();
  if (!std::isfinite(d)) Expected(at, "a finite number", *num);
  return {Num::kValue, d};
}

// o.k1.k2...: nullptr where a key is missing or not an object on the way.
const json* Dig(const json& o, std::initializer_list<std::string_view> keys, At& at) {
  const json* cur = &o;
  for (std::string_view k : keys) {
    if (!cur->is_object()) return nullptr;
    cur = Find(*cur, k);
    if (!cur) return nullptr;
    at = at.Key(k);
  }
  return cur;
}

// The last key of a path, read with N() from its parent object.
Num DigN(const json& o, std::initializer_list<std::string_view> keys, const At& at) {
  std::vector<std::string_view> path(keys);
  const std::string_view last = path.back();
  const json* cur = &o;
  At where = at;
  for (size_t i = 0; i + 1 < path.size(); ++i) {
    if (!cur->is_object() || !(cur = Find(*cur, path[i]))) return {};
    where = where.Key(path[i]);
  }
  if (!cur->is_object()) return {};
  return N(*cur, last, where);
}

// data_parser's TRES list: [{"type": "gres", "name": "gpu", "count": 2}].
std::vector<TresIn> TresList(const json* v, const At& at) {
  std::vector<TresIn> out;
  if (!v || v->is_null()) return out;
  if (!v->is_array()) Expected(at, "a list of TRES objects", *v);
  for (size_t i = 0; i < v->size(); ++i) {
    const json& t = (*v)[i];
    const At e = at.Index(i);
    RequireObject(t, e, "a TRES object (type, name, count)");
    TresIn x;
    x.name = Str(t, "type", e);
    if (const std::string n = Str(t, "name", e); !n.empty()) x.name += "/" + n;
    if (x.name.empty()) Missing(e.Key("type"), "the TRES type (a string such as cpu)");
    x.count = N(t, "count", e).or_else(0);
    out.push_back(std::move(x));
  }
  return out;
}

LicenseIn ParseLicense(const json& l, const At& at) {
  auto out = Named<LicenseIn>(l, at, "a license object", "LicenseName", "the license name");
  out.total = N(l, "Total", at).or_else(0);
  out.used = N(l, "Used", at).or_else(0);
  out.reserved = N(l, "Reserved", at).or_else(0);
  out.remote = N(l, "Remote", at).or_else(0) != 0;
  out.last_consumed = N(l, "LastConsumed", at).or_else(0);
  out.last_deficit = N(l, "LastDeficit", at).or_else(0);
  out.last_update = N(l, "LastUpdate", at).or_else(0);
  return out;
}

ReservationIn ParseReservation(const json& r, const At& at) {
  auto out = Named<ReservationIn>(r, at, "a reservation object", "name",
                                  "the reservation name");
  out.users = Str(r, "users", at);
  out.node_list = Str(r, "node_list", at);
  out.partition = Str(r, "partition", at);
  if (const json* f = Find(r, "flags"))
    out.flags = StrArray(*f, at.Key("flags"), "a list of reservation flags");
  out.start_time = N(r, "start_time", at);
  out.end_time = N(r, "end_time", at);
  out.node_count = N(r, "node_count", at);
  out.core_count = N(r, "core_count", at);
  out.purge_completed = DigN(r, {"purge_completed", "time"}, at);
  return out;
}

QosIn ParseQos(const json& q, const At& at) {
  auto out = Named<QosIn>(q, at, "a QoS object", "name", "the QoS name");
  out.id = N(q, "id", at).or_else(0);
  out.priority = N(q, "priority", at);
  // Paths of data_parser's QOS parser (v0.0.40-v0.0.42).
  out.grp_jobs = DigN(q, {"limits", "max", "active_jobs", "count"}, at);
  out.grp_submit_jobs = DigN(q, {"limits", "max", "jobs", "count"}, at);
  out.max_jobs_per_user =
      DigN(q, {"limits", "max", "jobs", "active_jobs", "per", "user"}, at);
  out.max_submit_jobs_per_user = DigN(q, {"limits", "max", "jobs", "per", "user"}, at);
  out.max_wall_per_job = DigN(q, {"limits", "max", "wall_clock", "per", "job"}, at);
  At t = at;
  out.grp_tres = TresList(Dig(q, {"limits", "max", "tres", "total"}, t), t);
  t = at;
  out.max_tres_per_user = TresList(Dig(q, {"limits", "max", "tres", "per", "user"}, t), t);
  return out;
}

ShareIn ParseShare(const json& s, const At& at, ClusterIn& state) {
  auto out = Named<ShareIn>(s, at, "an sshare line object", "name",
                            "the account or user name");
  out.id = N(s, "id", at).or_else(0);
  out.parent = Str(s, "parent", at);
  out.partition = Str(s, "partition", at);
  if (const json* t = Find(s, "type"))
    for (const std::string& w : StrArray(*t, at.Key("type"), "a list of words"))
      if (w == "USER") out.user = true;
  out.shares = N(s, "shares", at);
  out.shares_normalized = R(s, "shares_normalized", at);
  out.usage_normalized = R(s, "usage_normalized", at);
  out.effective_usage = R(s, "effective_usage", at);
  out.usage = N(s, "usage", at).or_else(0);
  if (const json* f = Find(s, "fairshare"); f && f->is_object()) {
    out.fairshare_factor = R(*f, "factor", at.Key("fairshare"));
    out.fairshare_level = R(*f, "level", at.Key("fairshare"));
  }
  // assoc_mgr's TRES order, once: every line lists all of them.
  At u = at;
  if (const json* usage = Dig(s, {"tres", "usage"}, u);
      usage && usage->is_array() && state.tres_names.empty())
    for (size_t i = 0; i < usage->size(); ++i)
      if ((*usage)[i].is_object())
        state.tres_names.push_back(Str((*usage)[i], "name", u.Index(i)));
  return out;
}

template <typename T, typename Parse>
void AddRecords(std::optional<std::vector<T>>& into, const json& v, const At& at,
                const char* what, Parse parse) {
  if (!v.is_array()) Expected(at, what, v);
  if (!into) into.emplace();
  for (size_t i = 0; i < v.size(); ++i) into->push_back(parse(v[i], at.Index(i)));
}

// The accounting-side documents; true when `doc` was one.
bool AddAccountingDocument(const json& doc, const At& at, ClusterIn& state) {
  bool known = false;
  if (const json* l = Find(doc, "licenses"); l && l->is_array()) {
    AddRecords(state.licenses, *l, at.Key("licenses"), "a list of licenses", ParseLicense);
    known = true;
  }
  if (const json* r = Find(doc, "reservations"); r && r->is_array()) {
    AddRecords(state.reservations, *r, at.Key("reservations"), "a list of reservations",
               ParseReservation);
    known = true;
  }
  if (const json* q = Find(doc, "qos"); q && q->is_array()) {
    AddRecords(state.qos, *q, at.Key("qos"), "a list of QoS", ParseQos);
    known = true;
  }
  // sshare --json: {"shares": {"shares": [...], "total_shares": N}}.
  if (const json* s = Find(doc, "shares"); s && s->is_object()) {
    const json* lines = Find(*s, "shares");
    const At sat = at.Key("shares").Key("shares");
    if (!lines) Missing(sat, "sshare's list of lines");
    AddRecords(state.shares, *lines, sat, "a list of sshare lines",
               [&](const json& x, const At& a) { return ParseShare(x, a, state); });
    known = true;
  }
  return known;
}

// ---- Diag -------------------------------------------------------------------

void FlattenValues(const json& o, const std::string& prefix, const At& at,
                   std::map<std::string, int64_t>& out) {
  for (const auto& [k, v] : o.items()) {
    if (k == "rpcs_by_message_type" || k == "rpcs_by_user" ||
        k == "pending_rpcs" || k == "pending_rpcs_by_hostlist")
      continue;
    const std::string key = prefix.empty() ? k : prefix + "." + k;
    if (v.is_boolean()) {
      out[key] = v.get<bool>() ? 1 : 0;
    } else if (v.is_number()) {
      out[key] = IsIntegral(v) ? AsInt(v, at.Key(k), "an integer") : Truncated(v, at.Key(k));
    } else if (v.is_object()) {
      if (v.contains("number") || v.contains("set")) {
        const Num n = N(o, k, at);
        if (n.has()) out[key] = n.value;
      } else if (prefix.empty()) {
        FlattenValues(v, key, at.Key(k), out);
      }
    }
  }
}

}  // namespace

void Warn(const char* kind, const std::string& message) {
  if (++WarningCounts()[kind] <= kWarningsShownPerKind)
    std::cerr << "soperator-metrics-shim: warning: " << message << "\n";
}

void FlushWarnings() {
  for (const auto& [kind, count] : WarningCounts()) {
    if (count > kWarningsShownPerKind)
      std::cerr << "soperator-metrics-shim: warning: " << count - kWarningsShownPerKind
                << " more warnings of kind \"" << kind << "\" not shown\n";
  }
  WarningCounts().clear();
}

At At::Key(std::string_view k) const {
  At a = *this;
  a.path += ".";
  a.path += k;
  return a;
}

At At::Index(size_t i) const {
  At a = *this;
  a.path += "[" + std::to_string(i) + "]";
  return a;
}

std::string At::str() const {
  return file + ": " + (path.empty() ? std::string("(document)") : path);
}

std::string ReadWholeFile(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    throw InputError(path + ": is a directory; expected a file");
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw InputError(path + ": cannot read: " + std::strerror(errno));
  std::ostringstream s;
  s << in.rdbuf();
  if (in.bad()) throw InputError(path + ": read error");
  return s.str();
}

namespace {

std::string LineColumn(const std::string& src, size_t byte) {
  if (byte > src.size()) byte = src.size();
  size_t line = 1, col = 1;
  for (size_t i = 0; i < byte; ++i) {
    if (src[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(col);
}

// Slurm's dumps nest about ten levels deep. The parser itself is
// iterative, but what reads the tree afterwards recurses (dump() of an
// error response, FlattenValues()): 100 000 nested arrays overflowed the
// stack.
constexpr int kMaxJsonDepth = 64;

// `callback` may be empty.
json Parse(const std::string& text, const std::string& file,
           const json::parser_callback_t& callback) {
  std::unique_ptr<std::string> escaped = EscapeInvalidUtf8(text);
  const std::string& src = escaped ? *escaped : text;
  const json::parser_callback_t bounded = [&](int depth, json::parse_event_t event,
                                              json& parsed) {
    if ((event == json::parse_event_t::object_start ||
         event == json::parse_event_t::array_start) &&
        depth >= kMaxJsonDepth)
      throw InputError(file + ": JSON nested more than " +
                       std::to_string(kMaxJsonDepth) +
                       " levels deep; Slurm's dumps nest about ten");
    return callback ? callback(depth, event, parsed) : true;
  };
  try {
    return json::parse(src, bounded);
  } catch (const json::parse_error& e) {
    std::string what = e.what();
    if (const size_t p = what.find("syntax error"); p != std::string::npos)
      what = what.substr(p);
    throw InputError(file + ": not valid JSON (" +
                     LineColumn(src, e.byte > 0 ? e.byte - 1 : 0) + "): " + what);
  }
}

}  // namespace

json ParseJsonText(const std::string& text, const std::string& file) {
  return Parse(text, file, nullptr);
}

// Like ParseJsonText() + AddDocument(), but the elements of a top-level
// "nodes" or "jobs" array are turned into the model as soon as each is
// parsed and then dropped, so a 100 000-job dump never sits in memory as
// a JSON tree.
void ParseDocumentStreaming(const std::string& text, const std::string& file,
                            ClusterIn& state, UserTable& users) {
  using E = json::parse_event_t;
  std::string key;
  bool in_array = false;
  size_t index = 0;
  auto callback = [&](int depth, E event, json& parsed) -> bool {
    if (depth == 1) {
      if (event == E::key) {
        key = parsed.get<std::string>();
        in_array = false;
      } else if (event == E::array_start) {
        in_array = key == "nodes" || key == "jobs";
        index = 0;
      } else if (event == E::array_end) {
        in_array = false;
      }
      return true;
    }
    if (depth != 2 || !in_array) return true;
    if (event != E::object_end && event != E::value && event != E::array_end) return true;
    const At at = At{file, ""}.Key(key).Index(index++);
    if (event != E::object_end)
      Expected(at, key == "nodes" ? "a node object" : "a job object", parsed);
    if (key == "nodes") {
      if (!state.nodes) state.nodes.emplace();
      state.nodes->push_back(ParseNode(parsed, at, state));
    } else {
      if (!state.jobs) state.jobs.emplace();
      state.jobs->push_back(ParseJob(parsed, at, state, users));
    }
    return false;  // parsed: drop it from the tree
  };
  const json doc = Parse(text, file, callback);
  AddDocument(doc, At{file, ""}, state, users);
}

void AddNodes(const json& v, const At& at, ClusterIn& state) {
  if (!state.nodes) state.nodes.emplace();
  if (v.is_object()) {
    state.nodes->push_back(ParseNode(v, at, state));
    return;
  }
  if (!v.is_array()) Expected(at, "a list of node objects", v);
  state.nodes->reserve(state.nodes->size() + v.size());
  for (size_t i = 0; i < v.size(); ++i)
    state.nodes->push_back(ParseNode(v[i], at.Index(i), state));
}

void AddJobs(const json& v, const At& at, ClusterIn& state, UserTable& users) {
  if (!state.jobs) state.jobs.emplace();
  if (v.is_object()) {
    state.jobs->push_back(ParseJob(v, at, state, users));
    return;
  }
  if (!v.is_array()) Expected(at, "a list of job objects", v);
  state.jobs->reserve(state.jobs->size() + v.size());
  for (size_t i = 0; i < v.size(); ++i)
    state.jobs->push_back(ParseJob(v[i], at.Index(i), state, users));
}

void AddPartitions(const json& v, const At& at, ClusterIn& state) {
  if (!v.is_array()) Expected(at, "a list of partition objects", v);
  if (!state.partitions) state.partitions.emplace();
  for (size_t i = 0; i < v.size(); ++i)
    state.partitions->push_back(ParsePartition(v[i], at.Index(i)));
}

void SetDiag(const json& s, const At& at, ClusterIn& state, UserTable& users) {
  RequireObject(s, at, "an sdiag statistics object");
  if (state.diag)
    throw InputError(at.str() + ": a second sdiag input; " + state.diag->where +
                     " already gave the controller statistics");
  DiagIn d;
  d.where = at.str();
  d.server_thread_count = N(s, "server_thread_count", at);
  if (const json* t = Find(s, "rpcs_by_message_type")) {
    const At tat = at.Key("rpcs_by_message_type");
    if (!t->is_array() && !t->is_null()) Expected(tat, "a list of RPC statistics", *t);
    for (size_t i = 0; t->is_array() && i < t->size(); ++i) {
      const json& r = (*t)[i];
      const At e = tat.Index(i);
      RequireObject(r, e, "an RPC statistics object");
      RpcTypeIn x;
      if (!Find(r, "message_type"))
        Missing(e.Key("message_type"), "the RPC name (a string such as REQUEST_PING)");
      x.message_type = Str(r, "message_type", e);
      if (const Num id = N(r, "type_id", e); id.has()) x.type_id = id.value;
      x.count = N(r, "count", e).or_else(0);
      x.total_time_us = N(r, "total_time", e).or_else(0);
      d.rpc_types.push_back(std::move(x));
    }
  }
  if (const json* u = Find(s, "rpcs_by_user")) {
    const At uat = at.Key("rpcs_by_user");
    if (!u->is_array() && !u->is_null()) Expected(uat, "a list of RPC statistics", *u);
    for (size_t i = 0; u->is_array() && i < u->size(); ++i) {
      const json& r = (*u)[i];
      const At e = uat.Index(i);
      RequireObject(r, e, "an RPC statistics object");
      RpcUserIn x;
      x.user = Str(r, "user", e);
      x.user_id = RequiredInt(r, "user_id", e, "the uid (an integer)");
      x.count = N(r, "count", e).or_else(0);
      x.total_time_us = N(r, "total_time", e).or_else(0);
      std::string& known = users[x.user_id];
      if (known.empty()) known = x.user;
      d.rpc_users.push_back(std::move(x));
    }
  }
  FlattenValues(s, "", at, d.values);
  if (const auto it = d.values.find("req_time"); it != d.values.end() && it->second > 0)
    state.req_time = it->second;
  state.diag = std::move(d);
}

void AddDocument(const json& doc, const At& at, ClusterIn& state, UserTable& users) {
  if (doc.is_array()) {
    if (doc.empty()) return;
    if (LooksLikeJob(doc[0])) return AddJobs(doc, at, state, users);
    if (LooksLikeNode(doc[0])) return AddNodes(doc, at, state);
    Expected(at.Index(0), "a node object (with name and state) or a job object (with job_id)",
             doc[0]);
  }
  if (!doc.is_object())
    Expected(at, "a JSON object from scontrol/squeue/sinfo/sdiag --json or slurmrestd", doc);
  if (doc.contains("steps"))
    throw InputError(at.str() + ": this is a scenario; run it with the `scenario` subcommand");
  // One record (Soperator's fixtures) before the dumps: a node's own
  // "partitions" is its list of partition names, not a partitions dump.
  if (LooksLikeJob(doc)) return AddJobs(doc, at, state, users);
  if (LooksLikeNode(doc)) return AddNodes(doc, at, state);
  bool known = false;
  if (const json* meta = Find(doc, "meta"); meta && meta->is_object()) {
    const json* s = Find(*meta, "slurm");
    if (s && s->is_object())
      if (const json* c = Find(*s, "cluster"); c && c->is_string() && state.cluster_name.empty())
        state.cluster_name = c->get<std::string>();
  }
  if (const json* n = Find(doc, "nodes"); n && n->is_array()) {
    AddNodes(*n, at.Key("nodes"), state);
    known = true;
  }
  if (const json* j = Find(doc, "jobs"); j && j->is_array()) {
    AddJobs(*j, at.Key("jobs"), state, users);
    known = true;
  }
  if (const json* p = Find(doc, "partitions"); p && p->is_array()) {
    AddPartitions(*p, at.Key("partitions"), state);
    known = true;
  }
  if (const json* s = Find(doc, "statistics"); s && s->is_object()) {
    SetDiag(*s, at.Key("statistics"), state, users);
    known = true;
  }
  if (AddAccountingDocument(doc, at, state)) known = true;
  if (known) {
    // The controller stamps each response with its own clock.
    const Num lu = N(doc, "last_update", at);
    if (lu.has() && lu.value > 0)
      state.last_update = std::max(state.last_update.value_or(0), lu.value);
    return;
  }
  if (Find(doc, "sinfo"))
    throw InputError(at.str() +
                     ": `sinfo --json` of Slurm 23.02 and later groups nodes and "
                     "cannot be replayed; dump `scontrol show nodes --json` instead");
  if (doc.contains("rpcs_by_message_type") || doc.contains("server_thread_count"))
    return SetDiag(doc, at, state, users);
  if (const json* e = Find(doc, "errors"); e && e->is_array() && !e->empty())
    throw InputError(at.str() + ": a Slurm error response: " + e->dump());
  throw InputError(
      at.str() +
      ": expected a Slurm dump: an object with \"nodes\", \"jobs\", "
      "\"partitions\", \"statistics\", \"licenses\", \"reservations\", "
      "\"qos\" or \"shares\" (scontrol show nodes|jobs|partitions|licenses|"
      "reservations --json, squeue --json, sdiag --json, sacctmgr show qos "
      "--json, sshare --json, 22.05's sinfo --json, slurmrestd /nodes /jobs "
      "/diag), or one node or job object");
}

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

void ReadInputText(const std::string& text, const std::string& path,
                   ClusterIn& state, UserTable& users) {
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos)
    throw InputError(path + ": empty file; expected a Slurm JSON dump");
  if (text[first] != '{' && text[first] != '[') {
    ReadSdiagText(text, path, state, users);
    return;
  }
  ParseDocumentStreaming(text, path, state, users);
}

void ReadInputFile(const std::string& path, ClusterIn& state, UserTable& users) {
  ReadInputText(ReadWholeFile(path), path, state, users);
}

}  // namespace shim
