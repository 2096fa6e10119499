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

 private:
  friend class MetricSet;
  const FamilyDef* def_;
  bool enabled_ = true;
  bool taken_ = false;  // MetricSet::Take: no rows, the earlier body's bytes
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
// in a written body, a fingerprint of the rows it was written from, and
// what sealing them counted.
struct WrittenFamily {
  std::string_view name;  // a FamilyDef's: static storage
  Fingerprint input;
  size_t offset = 0, length = 0;
  WriteStats counts;    // series, duplicates, repairs, truncations
  bool reused = false;  // copied from the earlier body
};

// A body written earlier in the same format, with the families Write
// recorded: a family whose rows fingerprint alike is copied from it
// instead of written again (docs/performance.md, "Render cost that
// follows change"). The copy is the bytes a write would give, because a
// family's bytes depend on nothing but its rows, its definition and the
// format.
struct EarlierBody {
  std::string_view text;
  std::span<const WrittenFamily> families;  // sorted by name, as written
};

// The families of one endpoint. Add, then Seal once (repairs and truncates
// label values, sorts, de-duplicates, refuses a family whose OpenMetrics
// name another already has), then Write in any format any number of times.
class MetricSet {
 public:
  // Families named here are accepted by Add but never built: their rows
  // are not stored (operators switch off high-cardinality families such as
  // slurm_node_job).
  // Families named in `disabled`, and families that reveal any of
  // `hidden` (PrivateData for a scraper that did not authenticate), are
  // accepted by Add but never built or written.
  explicit MetricSet(const std::vector<std::string>* disabled = nullptr,
                     PrivateData hidden = 0)
      : disabled_(disabled), hidden_(hidden) {}

  Family& Add(const FamilyDef& def);
  // A family whose rows would be those the earlier bodies given to
  // SealReusing were written from (the caller knows its inputs and this
  // set's Filters() did not change): it is not built, and Write copies it
  // from those bodies, which have it exactly when it was served. If
  // they cannot give it (a body lacks it while another has it, or it
  // shares its name with a family that was built), copy_failed() says so
  // and the caller renders again without taking.
  void Take(const FamilyDef& def);
  bool copy_failed() const { return copy_failed_; }
  // What decides which families are built at all: the disabled names and
  // the hidden PrivateData (a body taken from must have had the same).
  Fingerprint Filters() const;
  Arena& arena() { return arena_; }
  // The name of every family Add was given, disabled ones too, sorted and
  // once each: what tests hold the family registry to.
  std::vector<std::string_view> AddedNames() const;

  void Seal();
  // Seal for a render that may copy from earlier bodies (those the new
  // ones replace, one per format to be written): also fingerprints each
  // family's rows as added, and leaves a family as added, without counting
  // it again, when an earlier body of every format has it with the same
  // fingerprint (Write copies it then).
  void SealReusing(std::span<const EarlierBody* const> earlier);
  // Appends the body to `out`. After SealReusing: with `earlier`, families
  // whose rows did not change are copied from it, and `written` records
  // every family's place in `out` (a later render's EarlierBody). Not
  // thread-safe: a family SealReusing left as added is sealed here if
  // `earlier` has no copy of it.
  void Write(Format format, std::string& out,
             const EarlierBody* earlier = nullptr,
             std::vector<WrittenFamily>* written = nullptr) const;
  const WriteStats& stats() const { return stats_; }

 private:
  // The families of one name, adjacent in sorted_.
  struct NameGroup {
    size_t begin = 0, end = 0;
    Fingerprint input;  // RowsFingerprint, after SealReusing
    WriteStats counts;  // what sealing them counts
    bool sealed = false;
    bool taken = false;  // its families were given to Take
  };
  void SealWith(std::span<const EarlierBody* const> earlier, bool fingerprint);
  std::span<Family* const> Members(const NameGroup& g) const;
  void Count(const WriteStats& counts);
  void SealGroup(NameGroup& g) const;
  void SealFamily(Family& f, WriteStats& counts) const;
  static Fingerprint RowsFingerprint(std::span<Family* const> group);
  void WriteFamilyGroup(Format format, std::span<Family* const> group,
                        std::string& out) const;
  const std::vector<std::string>* disabled_;
  PrivateData hidden_;
  // Mutable: Write seals a family SealReusing left as added.
  mutable Arena arena_;
  std::deque<Family> families_;
  std::deque<Family> discarded_;
  std::vector<Family*> sorted_;
  mutable std::vector<NameGroup> groups_;
  WriteStats stats_;
  bool sealed_ = false;
  bool fingerprinted_ = false;
  mutable bool copy_failed_ = false;
};

// Content types as client_golang v1.23 announces them.
inline constexpr std::string_view kTextContentType =
    "text/plain; version=0.0.4; charset=utf-8; escaping=underscores";
inline constexpr std::string_view kOpenMetricsContentType =
    "application/openmetrics-text; version=1.0.0; charset=utf-8; "
    "escaping=underscores";

}  // namespace sm
