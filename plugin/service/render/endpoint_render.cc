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

// One attempt: nothing when a group taken could not be copied.
std::optional<RenderedBodies> TryRender(const RenderRequest& req,
                                        const CollectedState& state,
                                        const CollectorOptions& options,
                                        bool take_groups, RenderTally& tally) {
  MetricSet set(&options.disabled_families, req.hidden);
  // What the new bodies may copy from: the bodies they replace. A family
  // that one format cannot copy is sealed when that format is written.
  std::array<EarlierBody, 2> from{};
  std::vector<const EarlierBody*> copy_from;
  GroupReuse reuse;
  bool every_format_has_one = true;
  for (size_t i = 0; i < 2; ++i) {
    if (!req.formats[i]) continue;
    if (!req.earlier[i]) {
      every_format_has_one = false;
      continue;
    }
    from[i] = req.earlier[i]->AsEarlier();
    copy_from.push_back(&from[i]);
    reuse.earlier.push_back(req.earlier[i]->group_keys());
  }
  // Groups are taken from the earlier bodies only when each format written
  // has one (a group taken has no rows to write a format from).
  if (!take_groups || !every_format_has_one) reuse.earlier.clear();
  AddEndpointFamilies(set, req.endpoint, state.cluster, state.history,
                      {options.unix_now(), options.native_values,
                       options.pending_user_label},
                      &state.queue_wait, options.incremental_render ? &reuse : nullptr);
  if (!options.incremental_render) set.Seal();
  else set.SealReusing(copy_from);
  std::array<std::string, 2> texts;
  std::array<std::vector<WrittenFamily>, 2> written;
  for (Format f : {Format::kText, Format::kOpenMetrics}) {
    const size_t i = f == Format::kOpenMetrics ? 1 : 0;
    if (!req.formats[i] || set.copy_failed()) continue;
    texts[i].reserve(req.reserve[i]);
    set.Write(f, texts[i], req.earlier[i] ? &from[i] : nullptr, &written[i]);
  }
  if (set.copy_failed()) return std::nullopt;
  tally.groups_taken += reuse.taken;
  RenderedBodies out;
  WriteStats& stats = tally.stats;
  for (size_t i = 0; i < 2; ++i) {
    if (!req.formats[i]) continue;
    const auto copied = static_cast<uint64_t>(std::count_if(
        written[i].begin(), written[i].end(),
        [](const WrittenFamily& w) { return w.reused; }));
    stats.families_reused += copied;
    stats.families_written += written[i].size() - copied;
    out[i] = std::make_shared<const Body>(std::move(texts[i]), set.stats().series,
                                          std::move(written[i]), reuse.keys);
  }
  stats.series += set.stats().series;
  stats.duplicates_dropped += set.stats().duplicates_dropped;
  stats.utf8_repaired += set.stats().utf8_repaired;
  stats.labels_truncated += set.stats().labels_truncated;
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
  static std::atomic<bool> logged{false};
  if (!logged.exchange(true))
    LogError("render: a group of families could not be taken from the body "
             "it replaces; built again");
  return TryRender(request, state, options, /*take_groups=*/false, tally).value();
}

}  // namespace sm
