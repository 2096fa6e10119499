// SPDX-License-Identifier: GPL-2.0-or-later
#include "families/soperator/soperator_controller.h"

#include "families/family_rows.h"

namespace sm {
namespace {

enum Def { kServerThreads, kRpcCalls, kRpcDuration, kRpcUserCalls, kRpcUserDuration };
const FamilyDef kDefs[] = {
    {"slurm_controller_server_thread_count", "Number of server threads",
     MetricType::kGauge, {}},
    {"slurm_controller_rpc_calls_total",
     "Total count of RPC calls by message type", MetricType::kCounter,
     {"message_type"}},
    {"slurm_controller_rpc_duration_seconds_total",
     "Total time spent processing RPCs by message type", MetricType::kCounter,
     {"message_type"}},
    {"slurm_controller_rpc_user_calls_total", "Total count of RPC calls by user",
     MetricType::kCounter, {"user", "user_id"}},
    {"slurm_controller_rpc_user_duration_seconds_total",
     "Total time spent on user RPCs", MetricType::kCounter,
     {"user", "user_id"}},
};
static_assert(std::size(kDefs) == kRpcUserDuration + 1);

// sdiag reports microseconds; the families are in seconds.
constexpr double kMicro = 1e6;

}  // namespace

std::span<const FamilyDef* const> SoperatorControllerFamilies() {
  return FamilyList<kDefs>();
}

void AddSoperatorControllerFamilies(MetricSet& set, const DiagSnapshot& diag) {
  const auto families = AddAll(set, kDefs);
  Family& threads = *families[kServerThreads];
  Family& calls = *families[kRpcCalls];
  Family& duration = *families[kRpcDuration];
  Family& user_calls = *families[kRpcUserCalls];
  Family& user_duration = *families[kRpcUserDuration];
  Arena& arena = set.arena();

  if (diag.server_thread_count)
    threads.Add(std::span<const std::string_view>(),
                static_cast<double>(*diag.server_thread_count));
  for (const RpcTypeStat& r : diag.rpc_types) {
    const std::string_view label[] = {r.message_type};
    if (r.count > 0) calls.Add(label, static_cast<double>(r.count));
    if (r.total_time_us > 0)
      duration.Add(label, static_cast<double>(r.total_time_us) / kMicro);
  }
  for (const RpcUserStat& u : diag.rpc_users) {
    const std::string_view labels[] = {u.user, arena.StoreInt(u.user_id)};
    if (u.count > 0) user_calls.Add(labels, static_cast<double>(u.count));
    if (u.total_time_us > 0)
      user_duration.Add(labels, static_cast<double>(u.total_time_us) / kMicro);
  }
}

}  // namespace sm
