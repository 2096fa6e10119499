// SPDX-License-Identifier: GPL-2.0-or-later
// One rendered exposition, shared by the collector that makes it, the
// listeners that send it and the metrics/soperator carrier that copies it.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

namespace sm {

// Immutable once published. The gzip form is made on first request and
// kept.
class Body {
 public:
  Body(std::string text, uint64_t series) : text_(std::move(text)), series_(series) {}
  const std::string& text() const { return text_; }
  uint64_t series() const { return series_; }
  // Thread-safe; compresses once.
  const std::string& gzipped() const;
  // Bytes of the gzip form once made; 0 before (and never makes it): what
  // the collector's cache holds for this body (collector.h, the limit).
  size_t gzipped_size() const {
    return gzip_made_.load(std::memory_order_acquire) ? gzipped_.size() : 0;
  }

  // The empty body served before the first collection. Never destroyed:
  // listener threads (and slurmctld's own threads on 25.11+) may still hold
  // or hand out copies while exit() runs static destructors, and Slurm
  // 22.05-26.05 exit without calling our fini().
  static const std::shared_ptr<const Body>& Empty();

 private:
  std::string text_;
  uint64_t series_;
  mutable std::once_flag gzip_once_;
  mutable std::string gzipped_;
  mutable std::atomic<bool> gzip_made_{false};
};

}  // namespace sm
