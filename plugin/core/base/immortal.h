// SPDX-License-Identifier: GPL-2.0-or-later
// Objects that must outlive every thread of ours. Slurm 22.05 to 26.05
// exit() without calling our fini(): static destructors then run while the
// collector's threads may still be in a render or a listener thread in a
// response. A static those threads read is therefore either trivially
// destructible (FamilyDef) or made here, on the heap, and never destroyed.
#pragma once

#include <utility>

namespace sm {

// `static const auto& kX = Immortal(MakeX());` — leaked on purpose.
template <typename T>
const T& Immortal(T value) {
  return *new T(std::move(value));
}

}  // namespace sm
