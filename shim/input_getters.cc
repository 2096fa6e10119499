// SPDX-License-Identifier: GPL-2.0-or-later
// Typed getters over the parsed dump: each names the file and JSON path
// of what it rejects (input_reader.h).
#include "input_reader.h"

#include <cctype>
#include <cmath>

namespace shim::reader {

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
namespace {
bool InInt64Range(double d) { return std::isfinite(d) && d > -9.2e18 && d < 9.2e18; }
}  // namespace

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
  ForEachIfAny(&v, at, what, [&](const json& s, const At& e) {
    if (!s.is_string()) Expected(e, "a string", s);
    out.push_back(CString(s.get_ref<const std::string&>(), e));
  });
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

void NoteEvent(ClusterIn& state, const Num& n) {
  if (n.has() && n.value > state.latest_event) state.latest_event = n.value;
}

}  // namespace shim::reader
