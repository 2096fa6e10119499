// SPDX-License-Identifier: GPL-2.0-or-later
#include "render/endpoint_render.h"

#include <algorithm>
#include <atomic>
#include <optional>
#include <string>
#include <vector>

#include "base/log.h"

namespace sm {
namespace {

// The families and their bytes: with `reuse`, what did not change is
// taken from the earlier bodies. False when a group taken could not be.
bool Build(MetricSet& set, const RenderRequest& req, const CollectedState& state,
           const RenderOptions& opts, GroupReuse* reuse) {
  AddEndpointFamilies(set, req.endpoint, state.cluster, state.history, opts,
                      &state.queue_wait, reuse ? reuse->Hook(set) : BeforeGroup());
  if (reuse && !reuse->Finish(set)) return false;
  set.Seal();
  return true;
}

void AddStats(const MetricSet& set, WriteStats& stats) {
  stats.series += set.stats().series;
  stats.duplicates_dropped += set.stats().duplicates_dropped;
  stats.utf8_repaired += set.stats().utf8_repaired;
  stats.labels_truncated += set.stats().labels_truncated;
}

// One attempt: nothing when a group taken could not be copied.
std::optional<RenderedBodies> TryRender(const RenderRequest& req,
                                        const CollectedState& state,
                                        const CollectorOptions& options,
                                        bool take_groups, RenderTally& tally) {
  MetricSet set(&options.disabled_families, req.hidden);
  RenderOptions opts = options.render;
  opts.now = options.unix_now();
  std::array<EarlierBody, 2> from{};
  std::array<const EarlierBody*, 2> earlier{};
  for (size_t i = 0; i < 2; ++i) {
    if (!req.formats[i] || !req.earlier[i]) continue;
    from[i] = req.earlier[i]->AsEarlier();
    earlier[i] = &from[i];
  }
  std::optional<GroupReuse> reuse;
  if (options.incremental_render)
    reuse.emplace(GroupReuse::Inputs{req.endpoint, &state.cluster, opts,
                                     GroupReuse::Filters(&options.disabled_families,
                                                         req.hidden)},
                  req.formats, earlier, take_groups);
  if (!Build(set, req, state, opts, reuse ? &*reuse : nullptr)) return std::nullopt;
  RenderedBodies out;
  std::vector<WrittenFamily> written;
  for (size_t i = 0; i < 2; ++i) {
    if (!req.formats[i]) continue;
    std::string text;
    text.reserve(req.reserve[i]);
    set.Write(i == 1 ? Format::kOpenMetrics : Format::kText, text, reuse ? &written : nullptr);
    std::vector<FamilyRecord> records;
    if (reuse) records = reuse->Records(written);
    const auto copied = static_cast<uint64_t>(std::count_if(
        records.begin(), records.end(), [](const FamilyRecord& r) { return r.reused; }));
    tally.stats.families_reused += copied;
    tally.stats.families_written += records.size() - copied;
    out[i] = std::make_shared<const Body>(std::move(text), set.stats().series,
                                          std::move(records),
                                          reuse ? reuse->keys() : std::vector<GroupKey>{});
  }
  if (reuse) tally.groups_taken += reuse->groups_taken();
  AddStats(set, tally.stats);
  return out;
}

}  // namespace

RenderedBodies RenderEndpoint(const RenderRequest& request, const CollectedState& state,
                              const CollectorOptions& options, RenderTally& tally) {
  if (auto bodies = TryRender(request, state, options, /*take_groups=*/true, tally))
    return std::move(*bodies);
  // Not expected (the keys say the earlier bodies hold every family taken),
  // but a body is never served short of families: build them all. Without
  // groups taken nothing can fail to be copied, so this is the last step.
  ++tally.rebuilt;
  static std::atomic<bool> logged{false};
  if (!logged.exchange(true))
    LogError("render: a group of families could not be taken from the body "
             "it replaces; built again");
  return TryRender(request, state, options, /*take_groups=*/false, tally).value();
}

}  // namespace sm
