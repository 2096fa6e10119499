// SPDX-License-Identifier: GPL-2.0-or-later
// sdiag's JSON statistics into the model (input.h, SetDiag).
#include <map>

#include "input_reader.h"
#include "record_fields.h"

namespace shim {

using namespace reader;

namespace {

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

void SetDiag(const json& s, const At& at, ClusterIn& state, UserTable& users) {
  RequireObject(s, at, "an sdiag statistics object");
  if (state.diag)
    throw InputError(at.str() + ": a second sdiag input; " + state.diag->where +
                     " already gave the controller statistics");
  DiagIn d;
  d.where = at.str();
  d.server_thread_count = N(s, "server_thread_count", at);
  ForEachIfAny(Find(s, "rpcs_by_message_type"), at.Key("rpcs_by_message_type"),
               "a list of RPC statistics", [&](const json& r, const At& e) {
                 RequireObject(r, e, "an RPC statistics object");
                 fields::ReadFields(r, e, fields::RpcTypeFields(), d.rpc_types.emplace_back());
               });
  ForEachIfAny(Find(s, "rpcs_by_user"), at.Key("rpcs_by_user"), "a list of RPC statistics",
               [&](const json& r, const At& e) {
                 RequireObject(r, e, "an RPC statistics object");
                 RpcUserIn& x = d.rpc_users.emplace_back();
                 fields::ReadFields(r, e, fields::RpcUserFields(), x);
                 std::string& known = users[x.user_id];
                 if (known.empty()) known = x.user;
               });
  FlattenValues(s, "", at, d.values);
  if (const auto it = d.values.find("req_time"); it != d.values.end() && it->second > 0)
    state.req_time = it->second;
  state.diag = std::move(d);
}

}  // namespace shim
