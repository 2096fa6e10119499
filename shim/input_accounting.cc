// SPDX-License-Identifier: GPL-2.0-or-later
// Licenses, reservations, QoS and sshare lines of Slurm's dumps into the
// model (input_reader.h); their fields as
// record_fields.h describes them.
#include "input_reader.h"
#include "record_fields.h"

namespace shim::reader {
namespace {

// The records of a list into `into`, each read with `fields`.
template <typename T>
void AddRecords(std::optional<std::vector<T>>& into, const json& v, const At& at,
                const char* what, const char* record_what,
                const std::vector<fields::Field<T>>& fields) {
  if (!v.is_array()) Expected(at, what, v);
  if (!into) into.emplace();
  ForEach(v, at, what, [&](const json& r, const At& e) {
    into->push_back(fields::ReadRecord(r, e, record_what, fields));
  });
}

// assoc_mgr's TRES order, once: every sshare line lists all of them.
void LearnTresNames(const json& line, const At& at, ClusterIn& state) {
  const json* tres = line.is_object() ? Find(line, "tres") : nullptr;
  const json* usage = tres && tres->is_object() ? Find(*tres, "usage") : nullptr;
  if (!usage || !usage->is_array() || !state.tres_names.empty()) return;
  const At u = at.Key("tres").Key("usage");
  for (size_t i = 0; i < usage->size(); ++i)
    if ((*usage)[i].is_object()) state.tres_names.push_back(Str((*usage)[i], "name", u.Index(i)));
}

}  // namespace

void AddLicenses(const json& v, const At& at, ClusterIn& state) {
  AddRecords(state.licenses, v, at, "a list of licenses", "a license object",
             fields::LicenseFields());
}

void AddReservations(const json& v, const At& at, ClusterIn& state) {
  AddRecords(state.reservations, v, at, "a list of reservations", "a reservation object",
             fields::ReservationFields());
}

void AddQos(const json& v, const At& at, ClusterIn& state) {
  AddRecords(state.qos, v, at, "a list of QoS", "a QoS object", fields::QosFields());
}

// sshare --json: {"shares": {"shares": [...], "total_shares": N}}.
void AddShares(const json& v, const At& at, ClusterIn& state) {
  const json* lines = Find(v, "shares");
  const At sat = at.Key("shares");
  if (!lines) Missing(sat, "sshare's list of lines");
  AddRecords(state.shares, *lines, sat, "a list of sshare lines", "an sshare line object",
             fields::ShareFields());
  ForEach(*lines, sat, "a list of sshare lines",
          [&](const json& line, const At& e) { LearnTresNames(line, e, state); });
}

}  // namespace shim::reader
