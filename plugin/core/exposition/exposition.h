// SPDX-License-Identifier: GPL-2.0-or-later
// The exposition model (families of labelled series) and its two encoders.
// Byte layout follows client_golang's expfmt, because Soperator serves
// exactly that: families sorted by name, label pairs sorted by name, series
// sorted by their label values, Go shortest floats.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <initializer_list>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "base/arena.h"
#include "base/fingerprint.h"
#include "serving/private_data.h"

namespace sm {

enum class MetricType : uint8_t { kGauge, kCounter, kHistogram };

enum class Format : uint8_t { kText, kOpenMetrics };

// A family's label names, in declaration order. Fixed capacity, so that a
// FamilyDef has no destructor: definitions are namespace-scope constants
// that the render thread reads, and exit() runs static destructors while
// it may still be rendering (Slurm exits without calling our fini()).
class LabelNames {
 public:
  static constexpr size_t kCapacity = 32;  // slurm_node_info has 23
  constexpr LabelNames() = default;
  constexpr LabelNames(std::initializer_list<std::string_view> names) {
    for (std::string_view n : names) push_back(n);
  }
  constexpr void push_back(std::string_view name) {
    if (size_ == kCapacity) throw std::length_error("too many label names");
    names_[size_++] = name;
  }
  constexpr size_t size() const { return size_; }
  constexpr bool empty() const { return size_ == 0; }
  constexpr std::string_view operator[](size_t i) const { return names_[i]; }
  constexpr const std::string_view* begin() const { return names_.data(); }
  constexpr const std::string_view* end() const { return names_.data() + size_; }

 private:
  std::array<std::string_view, kCapacity> names_{};
  size_t size_ = 0;
};

// Static description of a family. The encoders print labels sorted by name.
struct FamilyDef {
  std::string_view name;
  std::string_view help;
  MetricType type;
  LabelNames labels;
  std::span<const double> buckets = {};  // histogram upper bounds, ascending
  // What the series reveal beyond what their label names say (see
  // Reveals() in private_data.h), e.g. private_data::kUsage.
  PrivateData reveals = 0;
};
static_assert(std::is_trivially_destructible_v<FamilyDef>,
              "a FamilyDef must survive exit() (see LabelNames)");

// A histogram's state as exported: per-bucket (non-cumulative) counts for
// each bound in FamilyDef::buckets, plus the overflow, sum and count.
struct HistogramValue {
  std::vector<uint64_t> bucket_counts;  // size == buckets.size()
  uint64_t count = 0;
  double sum = 0;

  // Counts `v` against `buckets` (the family's FamilyDef::buckets).
  void Observe(std::span<const double> buckets, double v);
};

struct EncodedFamily;

class Family {
 public:
  explicit Family(const FamilyDef& def) : def_(&def) {}

  // `values` follow def().labels order. The views must outlive the
  // MetricSet (point into a snapshot or into the MetricSet's arena).
  void Add(std::initializer_list<std::string_view> values, double value) {
    Add(std::span<const std::string_view>(values.begin(), values.size()),
        value);
  }
  void Add(std::span<const std::string_view> values, double value);
  void AddHistogram(std::span<const std::string_view> values,
                    const HistogramValue* h);

  const FamilyDef& def() const { return *def_; }
  size_t size() const { return numbers_.size(); }
  bool empty() const { return numbers_.empty(); }
  // False for a family the operator disabled: Add() stores nothing, and a
  // builder skips whatever work only this family's rows need.
  bool enabled() const { return enabled_; }
  // Given by MetricSet::AddEncoded: bytes, no rows.
  bool encoded() const { return encoded_ != nullptr; }
  // Hashes everything this family's bytes follow from besides the format
  // and the other families of its name: its definition (its address:
  // definitions are constants of this process) and its rows as added,
  // before repair, sorting and de-duplication, which depend on nothing
  // else.
  void HashRows(FingerprintHasher& h) const;

 private:
  friend class MetricSet;
  const FamilyDef* def_;
  bool enabled_ = true;
  const EncodedFamily* encoded_ = nullptr;  // MetricSet::AddEncoded
  Rows<std::string_view> values_;  // size() * labels, row-major
  Rows<double> numbers_;
  Rows<const HistogramValue*> histograms_;  // parallel, or empty
  Rows<uint32_t> order_;  // sorted, de-duplicated rows (after Seal)
};

struct WriteStats {
  uint64_t series = 0;              // a histogram series counts once
  uint64_t duplicates_dropped = 0;  // identical label sets in a family
  uint64_t utf8_repaired = 0;       // label values with invalid UTF-8
  uint64_t labels_truncated = 0;    // label values over kMaxLabelValueBytes
  uint64_t families_refused = 0;    // an OpenMetrics name already taken
  // Summed by the collector over a render pass: families copied from the
  // body a new one replaces or written, gzip pieces copied from its gzip
  // form or compressed.
  uint64_t families_reused = 0;
  uint64_t families_written = 0;
  uint64_t gzip_pieces_reused = 0;
  uint64_t gzip_pieces_compressed = 0;
};

// Longest label value written, in bytes; a longer one is cut (at a UTF-8
// code point) so that, marker included, it is exactly this long or less.
inline constexpr size_t kMaxLabelValueBytes = 4096;
inline constexpr std::string_view kTruncatedMarker = "...[truncated]";

// Where one family (every family of that name: see WriteFamilyGroup) lies
// in a written body, and what sealing it counted.
struct WrittenFamily {
  std::string_view name;  // a FamilyDef's: static storage
  size_t offset = 0, length = 0;
  WriteStats counts;  // series, duplicates, repairs, truncations
};

// A family encoded already: its bytes in each format (indexed text, then
// OpenMetrics; a format never written may be empty) and what sealing its
// rows counted.
struct EncodedFamily {
  std::array<std::string_view, 2> bytes;
  WriteStats counts;
};

// The families of one endpoint. Add, then Seal once (repairs and truncates
// label values, sorts, de-duplicates, refuses a family whose OpenMetrics
// name another already has), then Write in any format any number of times.
class MetricSet {
 public:
  // Families named in `disabled`, and families that reveal any of
  // `hidden` (PrivateData for a scraper that did not authenticate), are
  // accepted by Add but never built or written: their rows are not stored
  // (operators switch off high-cardinality families such as
  // slurm_node_job).
  explicit MetricSet(const std::vector<std::string>* disabled = nullptr,
                     PrivateData hidden = 0)
      : disabled_(disabled), hidden_(hidden) {}

  Family& Add(const FamilyDef& def);
  // A family whose bytes are encoded already (their views must outlive
  // the writes): Seal sorts it among the others by name, and Write appends
  // its bytes in the format written as they are. It stands for every
  // family of its name: those given to Add are neither sealed nor written.
  // Not filtered by the disabled names or the hidden PrivateData: whoever
  // encoded the bytes did that.
  void AddEncoded(const FamilyDef& def, const EncodedFamily& encoded);
  // The enabled families in the order given (to Add or AddEncoded).
  const std::deque<Family>& families() const { return families_; }
  Arena& arena() { return arena_; }
  // The name of every family Add was given, disabled ones too, sorted and
  // once each: what tests hold the family registry to.
  std::vector<std::string_view> AddedNames() const;

  void Seal();
  // Appends the body to `out`; `written` (if given) records each family's
  // place in `out`.
  void Write(Format format, std::string& out,
             std::vector<WrittenFamily>* written = nullptr) const;
  const WriteStats& stats() const { return stats_; }

 private:
  // The families of one name, adjacent in sorted_.
  struct NameGroup {
    size_t begin = 0, end = 0;
    WriteStats counts;  // what sealing them counted
    const EncodedFamily* encoded = nullptr;  // AddEncoded's, if one was given
  };
  std::span<Family* const> Members(const NameGroup& g) const;
  void Count(const WriteStats& counts);
  void SealFamily(Family& f, WriteStats& counts);
  void WriteFamilyGroup(Format format, std::span<Family* const> group,
                        std::string& out) const;
  const std::vector<std::string>* disabled_;
  PrivateData hidden_;
  Arena arena_;
  std::deque<Family> families_;
  std::deque<Family> discarded_;
  std::deque<EncodedFamily> encoded_;
  std::vector<Family*> sorted_;
  std::vector<NameGroup> groups_;
  WriteStats stats_;
  bool sealed_ = false;
};

// Content types as client_golang v1.23 announces them.
inline constexpr std::string_view kTextContentType =
    "text/plain; version=0.0.4; charset=utf-8; escaping=underscores";
inline constexpr std::string_view kOpenMetricsContentType =
    "application/openmetrics-text; version=1.0.0; charset=utf-8; "
    "escaping=underscores";

}  // namespace sm
