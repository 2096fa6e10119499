// SPDX-License-Identifier: GPL-2.0-or-later
// One description per Slurm record: a table of {JSON key, model member,
// form} rows (record_fields.h) from which both the dump reader (input*.cc)
// and the dump writer (slurm_json.cc) are driven, so a plain field is one
// model member and one row (docs/shim.md "Adding a field"). The member's
// type says how it is read; the form says how a number is printed.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "input_reader.h"
#include "json_writer.h"

namespace shim::fields {

// What a computed member may need besides its record: the dump it is in.
struct WriteContext {
  const ClusterIn& cluster;
};

// How a number is printed: plain (sizes, ids, counters; Slurm prints no
// unset form for them) or as data_parser's {"set", "infinite", "number"}.
enum class Form : uint8_t { kPlain, kStruct };

template <typename R>
struct Field {
  using Member =
      std::variant<std::monostate, std::string R::*, std::optional<std::string> R::*,
                   std::vector<std::string> R::*, Num R::*, int64_t R::*,
                   std::optional<int64_t> R::*, bool R::*, Real R::*,
                   std::vector<TresIn> R::*>;
  using Reader = void (*)(const json& parent, const At& at, R& out);
  using Writer = void (*)(Object& parent, std::string_view key, const R& in,
                          const WriteContext& c);

  // The JSON key; a nested member is "limits.max.jobs.count". "a.b|c" is
  // read from c where the record has no object a (an older dialect) and
  // written as a.b.
  const char* key;
  Member member;
  Form form = Form::kPlain;
  // Required: what the missing key should have been. Lists: what they must be.
  const char* what = nullptr;
  bool required = false;
  bool written = true;
  // A dialect quirk in place of the member type's reader or writer.
  Reader read = nullptr;
  Writer write = nullptr;

  Field Required(const char* w) const { Field f = *this; f.required = true; f.what = w; return f; }
  Field What(const char* w) const { Field f = *this; f.what = w; return f; }
  Field ReadWith(Reader r) const { Field f = *this; f.read = r; return f; }
  Field WriteWith(Writer w) const { Field f = *this; f.write = w; return f; }
  // Read but not written: the generator never fills it, and its output is
  // fixed for a seed (docs/shim.md, generate).
  Field ReadOnly() const { Field f = *this; f.written = false; return f; }
};

template <typename R, typename T>
Field<R> Row(const char* key, T R::*m, Form form = Form::kPlain) {
  return {key, m, form};
}
// Strings, lists, booleans, doubles and TRES lists have one form each.
template <typename R, typename T>
Field<R> Plain(const char* key, T R::*m) { return Row(key, m, Form::kPlain); }
template <typename R, typename T>
Field<R> Struct(const char* key, T R::*m) { return Row(key, m, Form::kStruct); }
// Written only, from the record and its dump (sshare's cluster, Free).
template <typename R>
Field<R> Computed(const char* key, typename Field<R>::Writer w) {
  return Field<R>{key, std::monostate{}}.WriteWith(w);
}

// data_parser's TRES list: "gres/gpu" is {"type": "gres", "name": "gpu"}.
std::vector<TresIn> ReadTresList(const json* v, const At& at);
void WriteTresList(std::string& out, const std::vector<TresIn>& list);
// A fractional number in any data_parser shape (sshare's factors).
Real ReadReal(const json& o, std::string_view key, const At& parent);

// The object holding the last key of `path` (o.a.b for "a.b.c"), `at`
// following it; nullptr when a key on the way is missing or no object.
const json* Parent(const json& o, std::string_view path, At& at, std::string_view& last);

template <typename R>
void ReadMember(const Field<R>& f, const json& p, std::string_view key, const At& at, R& out) {
  using reader::N;
  auto read = [&](auto m) {
    using T = std::remove_reference_t<decltype(out.*m)>;
    if constexpr (std::is_same_v<T, std::string>) {
      out.*m = reader::Str(p, key, at);
    } else if constexpr (std::is_same_v<T, std::optional<std::string>>) {
      out.*m = reader::OptStr(p, key, at);
    } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
      if (const json* v = reader::Find(p, key))
        out.*m = reader::StrArray(*v, at.Key(key), f.what ? f.what : "a list of strings");
    } else if constexpr (std::is_same_v<T, Num>) {
      out.*m = N(p, key, at);
    } else if constexpr (std::is_same_v<T, int64_t>) {
      out.*m = f.required ? reader::RequiredInt(p, key, at, f.what) : N(p, key, at).or_else(0);
    } else if constexpr (std::is_same_v<T, std::optional<int64_t>>) {
      if (const Num n = N(p, key, at); n.has()) out.*m = n.value;
    } else if constexpr (std::is_same_v<T, bool>) {
      out.*m = N(p, key, at).or_else(0) != 0;
    } else if constexpr (std::is_same_v<T, Real>) {
      out.*m = ReadReal(p, key, at);
    } else {
      out.*m = ReadTresList(reader::Find(p, key), at.Key(key));
    }
  };
  std::visit([&](auto m) {
    if constexpr (!std::is_same_v<decltype(m), std::monostate>) read(m);
  }, f.member);
}

// Fills `out` from the JSON object `o` at `at`, row by row; required keys
// are checked first.
template <typename R>
void ReadFields(const json& o, const At& at, const std::vector<Field<R>>& fields, R& out) {
  for (const Field<R>& f : fields)
    if (f.required && !reader::Find(o, f.key)) reader::Missing(at.Key(f.key), f.what);
  for (const Field<R>& f : fields) {
    if (f.read) {
      f.read(o, at, out);
      continue;
    }
    std::string_view alternatives = f.key;
    while (!alternatives.empty()) {
      const size_t bar = alternatives.find('|');
      At where = at;
      std::string_view last;
      if (const json* p = Parent(o, alternatives.substr(0, bar), where, last)) {
        ReadMember(f, *p, last, where, out);
        break;
      }
      alternatives = bar == std::string_view::npos ? "" : alternatives.substr(bar + 1);
    }
  }
}

// A record of `fields` in an object of its own, with `where` (for
// messages): what every record reader starts with.
template <typename R>
R ReadRecord(const json& o, const At& at, const char* what, const std::vector<Field<R>>& fields) {
  reader::RequireObject(o, at, what);
  R out;
  out.where = at.str();
  ReadFields(o, at, fields, out);
  return out;
}

template <typename R>
void WriteMember(const Field<R>& f, Object& o, std::string_view key, const R& in,
                 const WriteContext& c) {
  if (f.write) return f.write(o, key, in, c);
  std::visit([&](auto m) {
    if constexpr (!std::is_same_v<decltype(m), std::monostate>) {
      const auto& v = in.*m;
      using T = std::remove_cvref_t<decltype(v)>;
      if constexpr (std::is_same_v<T, std::string>) o.Str(key, v);
      else if constexpr (std::is_same_v<T, std::optional<std::string>>) { if (v) o.Str(key, *v); }
      else if constexpr (std::is_same_v<T, std::vector<std::string>>) o.Strs(key, v);
      else if constexpr (std::is_same_v<T, Num>) f.form == Form::kStruct ? o.Struct(key, v) : o.Plain(key, v);
      else if constexpr (std::is_same_v<T, int64_t>) f.form == Form::kStruct ? o.Struct(key, Num::Of(v)) : o.Int(key, v);
      else if constexpr (std::is_same_v<T, std::optional<int64_t>>) { if (v) o.Int(key, *v); }
      else if constexpr (std::is_same_v<T, bool>) o.Bool(key, v);
      else if constexpr (std::is_same_v<T, Real>) o.RealStruct(key, v);
      else WriteTresList(o.Member(key), v);
    }
  }, f.member);
}

// Writes the rows of `fields` into `o` in table order; rows sharing a
// prefix ("limits.max.") share its objects, which open at their first row.
template <typename R>
void WriteFields(Object& o, const std::vector<Field<R>>& fields, const R& in,
                 const WriteContext& c) {
  std::vector<std::pair<std::string_view, std::unique_ptr<Object>>> open;
  for (const Field<R>& f : fields) {
    if (!f.written) continue;
    std::string_view path = f.key;
    path = path.substr(0, path.find('|'));
    std::vector<std::string_view> keys;
    for (size_t dot; (dot = path.find('.')) != std::string_view::npos; path.remove_prefix(dot + 1))
      keys.push_back(path.substr(0, dot));
    size_t keep = 0;
    while (keep < open.size() && keep < keys.size() && open[keep].first == keys[keep]) ++keep;
    while (open.size() > keep) open.pop_back();
    for (size_t i = keep; i < keys.size(); ++i) {
      Object& parent = open.empty() ? o : *open.back().second;
      open.emplace_back(keys[i], std::make_unique<Object>(parent.Member(keys[i])));
    }
    WriteMember(f, open.empty() ? o : *open.back().second, path, in, c);
  }
  while (!open.empty()) open.pop_back();
}

}  // namespace shim::fields
