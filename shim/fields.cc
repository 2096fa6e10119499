// SPDX-License-Identifier: GPL-2.0-or-later
// The members of fields.h that are no template.
#include "fields.h"

#include <cmath>

namespace shim::fields {

using namespace reader;

std::vector<TresIn> ReadTresList(const json* v, const At& at) {
  std::vector<TresIn> out;
  ForEachIfAny(v, at, "a list of TRES objects", [&](const json& t, const At& e) {
    RequireObject(t, e, "a TRES object (type, name, count)");
    TresIn x;
    x.name = Str(t, "type", e);
    if (const std::string n = Str(t, "name", e); !n.empty()) x.name += "/" + n;
    if (x.name.empty()) Missing(e.Key("type"), "the TRES type (a string such as cpu)");
    x.count = N(t, "count", e).or_else(0);
    out.push_back(std::move(x));
  });
  return out;
}

void WriteTresList(std::string& out, const std::vector<TresIn>& list) {
  out += '[';
  for (size_t i = 0; i < list.size(); ++i) {
    if (i) out += ',';
    const size_t slash = list[i].name.find('/');
    Object t(out);
    t.Str("type", list[i].name.substr(0, slash));
    t.Str("name", slash == std::string::npos ? "" : list[i].name.substr(slash + 1));
    t.Int("count", list[i].count);
  }
  out += ']';
}

Real ReadReal(const json& o, std::string_view key, const At& parent) {
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

const json* Parent(const json& o, std::string_view path, At& at, std::string_view& last) {
  const json* cur = &o;
  for (size_t dot; (dot = path.find('.')) != std::string_view::npos; path.remove_prefix(dot + 1)) {
    cur = Find(*cur, path.substr(0, dot));
    if (!cur || !cur->is_object()) return nullptr;
    at = at.Key(path.substr(0, dot));
  }
  last = path;
  return cur;
}

}  // namespace shim::fields
