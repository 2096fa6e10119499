// SPDX-License-Identifier: GPL-2.0-or-later
#include "render/group_reuse.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "serving/family_registry.h"

namespace sm {
namespace {

// Everything a group's families follow from on endpoint `e` (its skipped
// names are the endpoint's), when the registry says what that is
// (FamilyGroup::follows) and each such part has a content fingerprint.
// None with JobSource=accounting for a group that serves finished jobs:
// their window follows the clock.
std::optional<Fingerprint> KeyOf(const FamilyGroup& g, size_t index,
                                 const GroupReuse::Inputs& in) {
  using namespace state_part;
  const ClusterState& state = *in.state;
  if (g.follows == 0 ||
      (g.follows & ~(kNodes | kJobs | kJobTimes | kFinishedJobs | kNodeGroups)) != 0)
    return std::nullopt;
  if ((g.follows & kFinishedJobs) && state.finished_jobs) return std::nullopt;
  FingerprintHasher h;
  h.Word(index);
  h.Word(static_cast<uint64_t>(in.endpoint));
  const auto part = [&h](const auto& snapshot, auto content) {
    // An absent part (native_partitions without jobs) is a content too.
    h.Word(snapshot != nullptr);
    if (!snapshot) return;
    const Fingerprint c = ((*snapshot).*content)();
    h.Word(c.a);
    h.Word(c.b);
  };
  if (g.follows & kNodes) part(state.nodes, &NodeSnapshot::Content);
  if (g.follows & kNodeGroups) part(state.nodes, &NodeSnapshot::GroupsContent);
  if (g.follows & kJobs)
    part(state.jobs, g.follows & kJobTimes ? &JobSnapshot::Content
                                           : &JobSnapshot::ContentBesidesTimes);
  h.Word(in.filters.a);
  h.Word(in.filters.b);
  h.Word(in.opts.native_values | in.opts.pending_user_label << 1 |
         in.opts.node_info_nodeset << 2);
  return h.Finish();
}

}  // namespace

Fingerprint GroupReuse::Filters(const std::vector<std::string>* disabled,
                                PrivateData hidden) {
  FingerprintHasher h;
  h.Word(hidden);
  h.Word(disabled ? disabled->size() : 0);
  if (disabled)
    for (const std::string& name : *disabled) h.String(name);
  return h.Finish();
}

GroupReuse::GroupReuse(const Inputs& inputs, std::array<bool, 2> formats,
                       std::array<const EarlierBody*, 2> earlier, bool take_groups)
    : inputs_(inputs), formats_(formats), earlier_(earlier), take_groups_(take_groups) {
  for (size_t i = 0; i < 2; ++i) {
    if (!formats_[i]) continue;
    usable_ = earlier_[i] != nullptr;
    if (!usable_) break;
  }
}

BeforeGroup GroupReuse::Hook(MetricSet& set) {
  return [this, &set](size_t index, const FamilyGroup& g,
                      std::span<const std::string_view> skipped) {
    return TakeGroup(set, index, g, skipped);
  };
}

bool GroupReuse::TakeGroup(MetricSet& set, size_t index, const FamilyGroup& g,
                           std::span<const std::string_view> skipped) {
  const std::optional<Fingerprint> inputs = KeyOf(g, index, inputs_);
  if (!inputs) return false;
  const GroupKey key{static_cast<uint32_t>(index), *inputs};
  keys_.push_back(key);
  if (!take_groups_ || !EveryBodyHas(key)) return false;
  for (const FamilyDef* f : g.families())
    if (std::find(skipped.begin(), skipped.end(), f->name) == skipped.end())
      TakeFamily(set, *f);
  ++groups_taken_;
  return true;
}

bool GroupReuse::EveryBodyHas(const GroupKey& key) const {
  if (!usable_) return false;
  for (size_t i = 0; i < 2; ++i) {
    if (!formats_[i]) continue;
    const auto keys = earlier_[i]->groups;
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) return false;
  }
  return true;
}

const FamilyRecord* GroupReuse::Find(size_t i, std::string_view name, bool strict) {
  const EarlierBody& e = *earlier_[i];
  const auto it = std::lower_bound(
      e.families.begin(), e.families.end(), name,
      [](const FamilyRecord& r, std::string_view n) { return r.name < n; });
  if (it == e.families.end() || it->name != name) return nullptr;
  // A record that does not fit the text would be a caller's bug: not
  // copied, and a family that was to be taken is not mistaken for one the
  // earlier body left out because it had no rows.
  if (it->offset > e.text.size() || it->length > e.text.size() - it->offset) {
    if (strict) failed_ = true;
    return nullptr;
  }
  return &*it;
}

// Taken without being built: the earlier bodies hold it exactly when a
// build would have served it, since they were made under the same filters
// (GroupKey), so it is not filtered here; a group may build another
// definition of the name than the one it lists (slurm_queue_pending
// without its user label).
void GroupReuse::TakeFamily(MetricSet& set, const FamilyDef& def) {
  if (!usable_) {
    failed_ = true;
    return;
  }
  EncodedFamily encoded;
  const FamilyRecord* first = nullptr;
  size_t have = 0, bodies = 0;
  for (size_t i = 0; i < 2; ++i) {
    if (!formats_[i]) continue;
    ++bodies;
    const FamilyRecord* r = Find(i, def.name, /*strict=*/true);
    if (!r) continue;
    if (first && r->input != first->input) failed_ = true;
    if (!first) first = r;
    encoded.bytes[i] = earlier_[i]->text.substr(r->offset, r->length);
    ++have;
  }
  if (failed_ || have == 0) return;  // none: it had no rows, and stays absent
  if (have != bodies) {
    failed_ = true;
    return;
  }
  encoded.counts = first->counts;
  set.AddEncoded(def, encoded);
  taken_[def.name] = true;
  inputs_by_name_[def.name] = first->input;
}

bool GroupReuse::Unchanged(std::string_view name, const Fingerprint& input,
                           EncodedFamily& out) {
  if (!usable_) return false;
  const FamilyRecord* first = nullptr;
  for (size_t i = 0; i < 2; ++i) {
    if (!formats_[i]) continue;
    const FamilyRecord* r = Find(i, name, /*strict=*/false);
    if (!r || r->input != input) return false;
    out.bytes[i] = earlier_[i]->text.substr(r->offset, r->length);
    if (!first) first = r;
  }
  out.counts = first->counts;
  return true;
}

bool GroupReuse::Finish(MetricSet& set) {
  struct Rows {
    FingerprintHasher hasher;
    const FamilyDef* def = nullptr;  // the first of its name
    bool any = false;                // a family of the name has rows
  };
  // The families of a name in the order added, as they are written.
  std::map<std::string_view, Rows> by_name;
  for (const Family& f : set.families()) {
    if (f.encoded()) continue;
    Rows& rows = by_name[f.def().name];
    if (!rows.def) rows.def = &f.def();
    rows.any |= !f.empty();
    f.HashRows(rows.hasher);
  }
  for (auto& [name, rows] : by_name) {
    const auto taken = taken_.find(name);
    if (taken != taken_.end()) {
      // A family taken shares its name with one built: the earlier bytes
      // hold the old rows of both.
      if (rows.any) failed_ = true;
      continue;
    }
    const Fingerprint input = rows.hasher.Finish();
    inputs_by_name_[name] = input;
    EncodedFamily encoded;
    if (!failed_ && Unchanged(name, input, encoded)) {
      set.AddEncoded(*rows.def, encoded);
      taken_[name] = false;
    }
  }
  return !failed_;
}

std::vector<FamilyRecord> GroupReuse::Records(std::span<const WrittenFamily> written) const {
  std::vector<FamilyRecord> records;
  records.reserve(written.size());
  for (const WrittenFamily& w : written) {
    FamilyRecord r{w.name, {}, w.offset, w.length, w.counts, taken_.count(w.name) != 0};
    if (const auto it = inputs_by_name_.find(w.name); it != inputs_by_name_.end())
      r.input = it->second;
    records.push_back(r);
  }
  return records;
}

}  // namespace sm
