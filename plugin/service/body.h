// SPDX-License-Identifier: GPL-2.0-or-later
// One rendered exposition, shared by the collector that makes it, the
// listeners that send it and the metrics/soperator carrier that copies it.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "gzip_form.h"
#include "render/group_reuse.h"

namespace sm {

// Immutable once published. The gzip form is made on first request (or by
// the collector right after the render) and kept.
class Body {
 public:
  // `families`: where each family lies in `text` and what it follows
  // from, and `groups`: what its groups of families were built from: for
  // the next render of the same endpoint, view and format to take from
  // (GroupReuse).
  Body(std::string text, uint64_t series, std::vector<FamilyRecord> families = {},
       std::vector<GroupKey> groups = {})
      : text_(std::move(text)),
        series_(series),
        families_(std::move(families)),
        groups_(std::move(groups)) {}
  const std::string& text() const { return text_; }
  uint64_t series() const { return series_; }
  // What a later render may take families from.
  EarlierBody AsEarlier() const { return {text_, families_, groups_}; }
  // Thread-safe; compresses once. With `earlier` (the body this one
  // replaces, of the same endpoint, view and format), the pieces of text
  // both have are copied from its gzip form, if it has one made.
  const std::string& gzipped(const Body* earlier = nullptr) const;
  // Bytes of the gzip form once made; 0 before (and never makes it): what
  // the collector's cache holds for this body (collector.h, the limit).
  size_t gzipped_size() const {
    return gzip_made_.load(std::memory_order_acquire) ? gzip_.bytes.size() : 0;
  }
  // Pieces of the gzip form, and those copied from the earlier body's (0
  // before the form is made).
  size_t gzip_pieces() const {
    return gzip_made_.load(std::memory_order_acquire) ? gzip_.pieces.size() : 0;
  }
  size_t gzip_pieces_reused() const {
    return gzip_made_.load(std::memory_order_acquire) ? gzip_.reused_pieces : 0;
  }

  // The empty body served before the first collection. Never destroyed:
  // listener threads (and slurmctld's own threads on 25.11+) may still hold
  // or hand out copies while exit() runs static destructors, and Slurm
  // 22.05-26.05 exit without calling our fini().
  static const std::shared_ptr<const Body>& Empty();

 private:
  std::string text_;
  uint64_t series_;
  std::vector<FamilyRecord> families_;
  std::vector<GroupKey> groups_;
  mutable std::once_flag gzip_once_;
  mutable GzipForm gzip_;
  mutable std::atomic<bool> gzip_made_{false};
};

}  // namespace sm
