// SPDX-License-Identifier: GPL-2.0-or-later
// Licenses, reservations, QoS and sshare lines (record_fields.h), as
// 24.11.5's clients print them (data_parser v0.0.42).
#include <algorithm>

#include "record_fields.h"

namespace shim::fields {

using namespace reader;

namespace {

// Free as the client library computes it (slurm_protocol_pack.c: Total -
// Used - LastDeficit, 0 below that).
void LicenseFree(Object& o, std::string_view key, const LicenseIn& l, const WriteContext&) {
  o.Int(key, std::max<int64_t>(0, l.total - l.used - l.last_deficit));
}

void ShareCluster(Object& o, std::string_view key, const ShareIn&, const WriteContext& c) {
  o.Str(key, c.cluster.cluster_name);
}

// Every line lists assoc_mgr's TRES in its usage; the model holds no
// per-TRES usage (the plugin reads RawUsage), so those values are 0.
void ShareTresUsage(Object& o, std::string_view key, const ShareIn&, const WriteContext& c) {
  std::string& usage = o.Member(key);
  usage += '[';
  for (size_t i = 0; i < c.cluster.tres_names.size(); ++i) {
    if (i) usage += ',';
    Object t(usage);
    t.Str("name", c.cluster.tres_names[i]);
    t.Member("value") += "0.0";
  }
  usage += ']';
}

// "type": ["USER"] or ["ASSOCIATION"].
void ShareType(const json& s, const At& at, ShareIn& out) {
  if (const json* t = Find(s, "type"))
    for (const std::string& w : StrArray(*t, at.Key("type"), "a list of words"))
      if (w == "USER") out.user = true;
}

void WriteShareType(Object& o, std::string_view key, const ShareIn& s, const WriteContext&) {
  o.Strs(key, {s.user ? "USER" : "ASSOCIATION"});
}

}  // namespace

const std::vector<Field<LicenseIn>>& LicenseFields() {
  static const std::vector<Field<LicenseIn>> f = {
      Row("LicenseName", &LicenseIn::name).Required("the license name"),
      Plain("Total", &LicenseIn::total),
      Plain("Used", &LicenseIn::used),
      Computed<LicenseIn>("Free", LicenseFree),
      Row("Remote", &LicenseIn::remote),
      Plain("Reserved", &LicenseIn::reserved),
      Plain("LastConsumed", &LicenseIn::last_consumed),
      Plain("LastDeficit", &LicenseIn::last_deficit),
      Plain("LastUpdate", &LicenseIn::last_update),
  };
  return f;
}

const std::vector<Field<ReservationIn>>& ReservationFields() {
  static const std::vector<Field<ReservationIn>> f = {
      Plain("core_count", &ReservationIn::core_count),
      Struct("end_time", &ReservationIn::end_time),
      Row("flags", &ReservationIn::flags).What("a list of reservation flags"),
      Row("name", &ReservationIn::name).Required("the reservation name"),
      Plain("node_count", &ReservationIn::node_count),
      Row("node_list", &ReservationIn::node_list),
      Row("partition", &ReservationIn::partition),
      Struct("purge_completed.time", &ReservationIn::purge_completed),
      Struct("start_time", &ReservationIn::start_time),
      Row("users", &ReservationIn::users),
  };
  return f;
}

// The limits at data_parser's QOS paths (v0.0.40-v0.0.42).
const std::vector<Field<QosIn>>& QosFields() {
  static const std::vector<Field<QosIn>> f = {
      Plain("id", &QosIn::id),
      Struct("limits.max.active_jobs.count", &QosIn::grp_jobs),
      Struct("limits.max.jobs.count", &QosIn::grp_submit_jobs),
      Struct("limits.max.jobs.active_jobs.per.user", &QosIn::max_jobs_per_user),
      Struct("limits.max.jobs.per.user", &QosIn::max_submit_jobs_per_user),
      Row("limits.max.tres.total", &QosIn::grp_tres),
      Row("limits.max.tres.per.user", &QosIn::max_tres_per_user),
      Struct("limits.max.wall_clock.per.job", &QosIn::max_wall_per_job),
      Row("name", &QosIn::name).Required("the QoS name"),
      Struct("priority", &QosIn::priority),
  };
  return f;
}

const std::vector<Field<ShareIn>>& ShareFields() {
  static const std::vector<Field<ShareIn>> f = {
      Plain("id", &ShareIn::id),
      Computed<ShareIn>("cluster", ShareCluster),
      Row("name", &ShareIn::name).Required("the account or user name"),
      Row("parent", &ShareIn::parent),
      Row("partition", &ShareIn::partition),
      Row("shares_normalized", &ShareIn::shares_normalized),
      Struct("shares", &ShareIn::shares),
      Computed<ShareIn>("tres.usage", ShareTresUsage),
      Row("effective_usage", &ShareIn::effective_usage),
      Row("usage_normalized", &ShareIn::usage_normalized),
      Plain("usage", &ShareIn::usage),
      Row("fairshare.factor", &ShareIn::fairshare_factor),
      Row("fairshare.level", &ShareIn::fairshare_level),
      Row("type", &ShareIn::user).ReadWith(ShareType).WriteWith(WriteShareType),
  };
  return f;
}

}  // namespace shim::fields
