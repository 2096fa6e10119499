// SPDX-License-Identifier: GPL-2.0-or-later
// Licenses, reservations, QoS and sshare lines of Slurm's dumps into the
// model (input_reader.h, AddAccountingDocument).
#include <cmath>
#include <initializer_list>

#include "input_reader.h"

namespace shim::reader {
namespace {

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

}  // namespace

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

}  // namespace shim::reader
