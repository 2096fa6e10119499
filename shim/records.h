// SPDX-License-Identifier: GPL-2.0-or-later
// What every builder of slurmctld's records shares: Slurm's allocators for
// strings and bitmaps, and the checks that a value fits the controller's
// field. Values that do not fit raise InputError naming the input.
#pragma once

#include <cstdint>
#include <limits>
#include <string>

#include "input.h"
#include "model.h"
#include "slurm_api.h"

namespace shim {

// xstrdup(), or NULL for "" (slurmctld keeps no string for an unset one).
inline char* Dup(const std::string& s) {
  return s.empty() ? nullptr : xstrdup(s.c_str());
}

[[noreturn]] inline void Unrepresentable(const std::string& where,
                                         const std::string& what) {
  throw InputError(where + ": " + what);
}

// `v` as the controller's field type T, or InputError.
template <typename T>
T Fit(const std::string& where, const char* field, int64_t v) {
  if (v < 0 || static_cast<uint64_t>(v) > std::numeric_limits<T>::max())
    Unrepresentable(where, std::string(field) + " " + std::to_string(v) +
                               " does not fit the controller's field (" +
                               (sizeof(T) >= 8 ? std::string("a non-negative number")
                                               : "0.." + std::to_string(std::numeric_limits<T>::max())) +
                               ")");
  return static_cast<T>(v);
}

// data_parser's minutes: a number, INFINITE, or unset (NO_VAL).
inline uint32_t Minutes(const Num& n, const std::string& where, const char* field) {
  if (n.kind == Num::kInfinite) return INFINITE;
  if (!n.has()) return n.kind == Num::kUnset ? NO_VAL : INFINITE;
  return Fit<uint32_t>(where, field, n.value);
}

// list_destroy() of one of slurmctld's lists, which is then unset.
inline void DestroyList(sm::slurm::SlurmList& list) {
  if (list) list_destroy(list);
  list = nullptr;
}

// A bitmap over the node table's slots.
inline bitstr_t* NewNodeBitmap() {
  return bit_alloc(node_record_count > 0 ? node_record_count : 1);
}

// The CPU, memory and GPU counts of a TRES string as Soperator reads it
// (sm::ParseTres): 0 where a key is missing. An unparsable string counts as
// empty, with a warning naming `where`.
struct TresCounts {
  int64_t cpus = 0;
  int64_t mem_mb = 0;
  int64_t gpus = 0;
};
TresCounts CountTres(const std::string& tres, const std::string& where);

}  // namespace shim
