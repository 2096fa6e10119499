// SPDX-License-Identifier: GPL-2.0-or-later
// Families defined as rows of one table, so a family is named once: the
// group's family list (family_registry.h) is derived from the table, and
// AddRows adds the families in table order. docs/testing.md, "Adding a
// family", says which shape to use.
#pragma once

#include <array>
#include <span>
#include <vector>

#include "base/immortal.h"
#include "exposition/exposition.h"

namespace sm {

// A family with one sample (or none, or a few) per item of type `Of`: the
// row's function adds the item's samples to it.
template <typename Of>
struct FamilyRow {
  FamilyDef def;
  void (*add)(Family& family, const Of& item);
};

inline const FamilyDef& DefOf(const FamilyDef& def) { return def; }
template <typename Of>
const FamilyDef& DefOf(const FamilyRow<Of>& row) {
  return row.def;
}

// Every family of `tables` (arrays of FamilyRow or of FamilyDef), in
// order, made once: a group's list.
template <const auto&... tables>
std::span<const FamilyDef* const> FamilyList() {
  static const auto& kList = Immortal([] {
    std::vector<const FamilyDef*> out;
    const auto append = [&out](const auto& table) {
      for (const auto& row : table) out.push_back(&DefOf(row));
    };
    (append(tables), ...);
    return out;
  }());
  return kList;
}

// Adds every row's family in table order, then each item's samples.
template <typename Of, typename Items>
void AddRows(MetricSet& set, std::span<const FamilyRow<Of>> rows,
             const Items& items) {
  std::vector<Family*> families;
  families.reserve(rows.size());
  for (const FamilyRow<Of>& row : rows) families.push_back(&set.Add(row.def));
  for (const Of& item : items)
    for (size_t i = 0; i < rows.size(); ++i) rows[i].add(*families[i], item);
}

// Adds every family of `defs` in table order, for a builder whose
// families are not one per row: it fills each by its index (an enum in the
// table's order) while its list is still FamilyList<defs>().
template <size_t N>
std::array<Family*, N> AddAll(MetricSet& set, const FamilyDef (&defs)[N]) {
  std::array<Family*, N> out;
  for (size_t i = 0; i < N; ++i) out[i] = &set.Add(defs[i]);
  return out;
}

}  // namespace sm
