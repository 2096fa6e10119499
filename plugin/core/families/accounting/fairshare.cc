// SPDX-License-Identifier: GPL-2.0-or-later
#include "families/accounting/fairshare.h"

#include <array>
#include <set>
#include <string_view>
#include <utility>
#include <vector>

#include "base/immortal.h"
#include "serving/private_data.h"

namespace sm {
namespace {

// sshare's lines are what PrivateData=usage hides from users who are not
// operators (assoc_mgr_get_shares() skips other users' associations and
// accounts they do not coordinate), shares included, so every family here
// reveals usage.
constexpr PrivateData kHidden = private_data::kUsage;

// One value of a line, and the account- and user-level families that carry
// it. The first five are SckyzO's (names and HELP texts verbatim).
struct Field {
  FamilyDef account;
  FamilyDef user;
};

const std::array<Field, 7> kFields = {{
    {{"slurm_account_fairshare",
      "FairShare factor for account (0=lowest priority, 1=highest)",
      MetricType::kGauge, {"account"}, {}, kHidden},
     {"slurm_user_fairshare", "FairShare factor for user", MetricType::kGauge,
      {"account", "user"}, {}, kHidden}},
    {{"slurm_account_fairshare_raw_shares", "Raw shares allocated to account",
      MetricType::kGauge, {"account"}, {}, kHidden},
     {"slurm_user_fairshare_raw_shares", "Raw shares for user",
      MetricType::kGauge, {"account", "user"}, {}, kHidden}},
    {{"slurm_account_fairshare_norm_shares",
      "Normalized shares for account (fraction of total shares)",
      MetricType::kGauge, {"account"}, {}, kHidden},
     {"slurm_user_fairshare_norm_shares", "Normalized shares for user",
      MetricType::kGauge, {"account", "user"}, {}, kHidden}},
    {{"slurm_account_fairshare_raw_usage_cpu_seconds",
      "Raw CPU-seconds usage for account (decay-weighted)", MetricType::kGauge,
      {"account"}, {}, kHidden},
     {"slurm_user_fairshare_raw_usage_cpu_seconds",
      "Raw CPU-seconds usage for user (decay-weighted)", MetricType::kGauge,
      {"account", "user"}, {}, kHidden}},
    {{"slurm_account_fairshare_norm_usage",
      "Normalized usage for account (fraction of total usage)",
      MetricType::kGauge, {"account"}, {}, kHidden},
     {"slurm_user_fairshare_norm_usage", "Normalized usage for user",
      MetricType::kGauge, {"account", "user"}, {}, kHidden}},
    {{"slurm_account_fairshare_effective_usage",
      "Effective usage for account (sshare EffectvUsage)", MetricType::kGauge,
      {"account"}, {}, kHidden},
     {"slurm_user_fairshare_effective_usage",
      "Effective usage for user (sshare EffectvUsage)", MetricType::kGauge,
      {"account", "user"}, {}, kHidden}},
    {{"slurm_account_fairshare_level_fs",
      "Fair Tree level fairshare for account (sshare LevelFS)",
      MetricType::kGauge, {"account"}, {}, kHidden},
     {"slurm_user_fairshare_level_fs",
      "Fair Tree level fairshare for user (sshare LevelFS)",
      MetricType::kGauge, {"account", "user"}, {}, kHidden}},
}};

// The line's values in kFields order; nullopt where sshare prints nothing.
std::array<std::optional<double>, kFields.size()> Values(const Share& s) {
  auto num = [](const auto& v) -> std::optional<double> {
    if (!v) return std::nullopt;
    return static_cast<double>(*v);
  };
  return {num(s.fairshare),  num(s.raw_shares),      num(s.norm_shares),
          num(s.raw_usage),  num(s.norm_usage),      num(s.effective_usage),
          num(s.level_fs)};
}

}  // namespace

// The account-level families, then the user-level ones.
std::span<const FamilyDef* const> FairshareFamilies() {
  static const auto& kAll = Immortal([] {
    std::vector<const FamilyDef*> out;
    for (const Field& f : kFields) out.push_back(&f.account);
    for (const Field& f : kFields) out.push_back(&f.user);
    return out;
  }());
  return kAll;
}

std::span<const FamilyDef* const> FairshareUserFamilies() {
  return FairshareFamilies().subspan(kFields.size());
}

void AddFairshareFamilies(MetricSet& set, const ShareSnapshot& shares,
                          const FairshareOptions& options) {
  std::array<Family*, kFields.size()> accounts{}, users{};
  for (size_t i = 0; i < kFields.size(); ++i) {
    accounts[i] = &set.Add(kFields[i].account);
    if (options.user_metrics) users[i] = &set.Add(kFields[i].user);
  }
  // Like SckyzO: lines whose RawShares is "parent" carry no share of their
  // own, lines without an account are skipped, and an account (or account
  // and user) that repeats, which only partition-specific associations do,
  // keeps its first line. Those repeats are expected, so they are dropped
  // here rather than counted as duplicate series.
  std::set<std::string_view> seen_accounts;
  std::set<std::pair<std::string_view, std::string_view>> seen_users;
  for (const Share& s : shares.shares) {
    if (s.use_parent || s.account.empty()) continue;
    const auto values = Values(s);
    if (s.user.empty()) {
      if (!seen_accounts.insert(s.account).second) continue;
      const std::string_view labels[] = {s.account};
      for (size_t i = 0; i < kFields.size(); ++i)
        if (values[i]) accounts[i]->Add(labels, *values[i]);
    } else if (options.user_metrics) {
      if (!seen_users.emplace(s.account, s.user).second) continue;
      const std::string_view labels[] = {s.account, s.user};
      for (size_t i = 0; i < kFields.size(); ++i)
        if (values[i]) users[i]->Add(labels, *values[i]);
    }
  }
}

}  // namespace sm
