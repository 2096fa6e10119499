// SPDX-License-Identifier: GPL-2.0-or-later
// sdiag's JSON statistics into the model (input.h, SetDiag).
#include <map>

#include "input_reader.h"

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

}  // namespace shim
