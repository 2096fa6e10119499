// SPDX-License-Identifier: GPL-2.0-or-later
// Incremental render, in one place (docs/performance.md, "Render cost that
// follows change"): which families of a new body are taken from the body
// it replaces (of the same endpoint, view and format), and the taking.
//
// Two ways, both deciding by content fingerprints, never by time:
// - a group of families (family_registry.h) whose inputs, the content of
//   the parts of the state it follows (FamilyGroup::follows) and the
//   render options and filters, are what they were is not built at all
//   (its GroupKey is in every body replaced);
// - a family built whose rows as added fingerprint as those the body
//   replaced was written from is not sealed nor encoded again.
// Either way the encoder is given the earlier bytes (MetricSet::AddEncoded):
// they are the bytes a write would give, because a family's bytes follow
// from nothing but its rows, its definition and the format.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/fingerprint.h"
#include "exposition/exposition.h"
#include "serving/endpoints.h"

namespace sm {

// Where one family lies in a written body, what its bytes follow from and
// what sealing it counted: what a body keeps for the next render.
struct FamilyRecord {
  std::string_view name;  // a FamilyDef's: static storage
  Fingerprint input;
  size_t offset = 0, length = 0;
  WriteStats counts;    // series, duplicates, repairs, truncations
  bool reused = false;  // taken from the body it replaced
};

// What one group of families was built from (FamilyGroup::follows).
struct GroupKey {
  uint32_t group = 0;  // index in FamilyGroups()
  Fingerprint inputs;
  bool operator==(const GroupKey&) const = default;
};

// A body written earlier in one format, as a later render takes from it.
struct EarlierBody {
  std::string_view text;
  std::span<const FamilyRecord> families;  // sorted by name, as written
  std::span<const GroupKey> groups;
};

class GroupReuse {
 public:
  // What the keys of one render follow from besides the state.
  struct Inputs {
    Endpoint endpoint = Endpoint::kSoperator;
    const ClusterState* state = nullptr;
    RenderOptions opts;
    Fingerprint filters;  // Filters()
  };
  // What decides which families are built at all: the disabled names and
  // the hidden PrivateData (a body taken from must have had the same).
  static Fingerprint Filters(const std::vector<std::string>* disabled, PrivateData hidden);

  // `earlier`: by format (text, OpenMetrics), the body each new one
  // replaces; `formats`: those written. Nothing is taken unless every
  // format written has an earlier body; no group is taken without
  // `take_groups` (the fallback render, RenderEndpoint).
  GroupReuse(const Inputs& inputs, std::array<bool, 2> formats,
             std::array<const EarlierBody*, 2> earlier, bool take_groups = true);

  // AddEndpointFamilies' BeforeGroup for `set`: keys the group and, when
  // every earlier body has its key, takes its families into `set`.
  BeforeGroup Hook(MetricSet& set);
  // Takes one family into `set` from the earlier bodies: every one has it,
  // or none (it had no rows, and stays absent); else failed().
  void TakeFamily(MetricSet& set, const FamilyDef& def);
  // After every family is added: fingerprints the families built, and
  // gives the set the earlier bytes of those unchanged. False when a
  // family taken cannot be copied after all (a body lacks it while
  // another has it, a record outside its text, or a family built shares
  // its name): the caller renders again without taking groups.
  bool Finish(MetricSet& set);
  bool failed() const { return failed_; }

  // The records of a body written in a format (MetricSet::Write's).
  std::vector<FamilyRecord> Records(std::span<const WrittenFamily> written) const;
  const std::vector<GroupKey>& keys() const { return keys_; }
  size_t groups_taken() const { return groups_taken_; }

 private:
  bool TakeGroup(MetricSet& set, size_t index, const FamilyGroup& g,
                 std::span<const std::string_view> skipped);
  bool EveryBodyHas(const GroupKey& key) const;
  // The record of `name` in earlier body `i`; null when it has none, or
  // (setting failed_ if `strict`) one that does not fit its text.
  const FamilyRecord* Find(size_t i, std::string_view name, bool strict);
  // The earlier bodies' bytes of `name` if every one has it with `input`.
  bool Unchanged(std::string_view name, const Fingerprint& input, EncodedFamily& out);

  Inputs inputs_;
  std::array<bool, 2> formats_;
  std::array<const EarlierBody*, 2> earlier_;
  bool usable_ = false;  // every format written has an earlier body
  bool take_groups_;
  bool failed_ = false;
  std::vector<GroupKey> keys_;
  size_t groups_taken_ = 0;
  // What each family written follows from, and those taken whole.
  std::map<std::string_view, Fingerprint> inputs_by_name_;
  std::map<std::string_view, bool> taken_;  // name -> from a group (true)
};

}  // namespace sm
