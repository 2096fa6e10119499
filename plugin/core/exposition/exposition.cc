// SPDX-License-Identifier: GPL-2.0-or-later
#include "exposition/exposition.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <limits>
#include <map>
#include <numeric>

#include "base/log.h"
#include "exposition/number_format.h"
#include "base/utf8.h"

namespace sm {
namespace {

void AppendEscaped(std::string& out, std::string_view s, bool escape_quote) {
  size_t run = 0;  // copy unescaped stretches in one append
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const char* rep = nullptr;
    if (c == '\\') rep = "\\\\";
    else if (c == '\n') rep = "\\n";
    else if (c == '"' && escape_quote) rep = "\\\"";
    if (rep) {
      out.append(s.data() + run, i - run);
      out.append(rep);
      run = i + 1;
    }
  }
  out.append(s.data() + run, s.size() - run);
}

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.substr(s.size() - suffix.size()) == suffix;
}

// The family name OpenMetrics sees: a counter's without "_total".
std::string_view OpenMetricsName(const FamilyDef& def) {
  std::string_view n = def.name;
  if (def.type == MetricType::kCounter && EndsWith(n, "_total"))
    n.remove_suffix(6);
  return n;
}

// `v` (valid UTF-8) cut to at most kMaxLabelValueBytes, at a code point
// boundary, with kTruncatedMarker appended.
std::string_view TruncatedLabel(std::string_view v, Arena& arena) {
  size_t keep = kMaxLabelValueBytes - kTruncatedMarker.size();
  while (keep > 0 && (static_cast<unsigned char>(v[keep]) & 0xC0) == 0x80) --keep;
  std::string out(v.substr(0, keep));
  out.append(kTruncatedMarker);
  return arena.Store(out);
}

// Label names of a family in print order, as indices into def.labels.
std::vector<uint32_t> SortedLabelOrder(const FamilyDef& def) {
  std::vector<uint32_t> order(def.labels.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    return def.labels[a] < def.labels[b];
  });
  return order;
}

struct SeriesWriter {
  Format format;
  std::string& out;

  void Value(double v) const {
    if (format == Format::kText) AppendTextFloat(out, v);
    else AppendOpenMetricsFloat(out, v);
  }

  // name{l="v",...[,le="x"]} — `le` goes last, as client_golang does.
  void Labels(const FamilyDef& def, std::span<const uint32_t> label_order,
              const std::string_view* row, const double* le) const {
    if (label_order.empty() && !le) return;
    out.push_back('{');
    bool first = true;
    for (uint32_t li : label_order) {
      if (!first) out.push_back(',');
      first = false;
      out.append(def.labels[li]);
      out.append("=\"");
      AppendEscaped(out, row[li], true);
      out.push_back('"');
    }
    if (le) {
      if (!first) out.push_back(',');
      out.append("le=\"");
      Value(*le);
      out.push_back('"');
    }
    out.push_back('}');
  }
};

}  // namespace

void HistogramValue::Observe(std::span<const double> buckets, double v) {
  if (bucket_counts.empty()) bucket_counts.assign(buckets.size(), 0);
  // Bounds are inclusive upper limits, like client_golang's.
  const auto it = std::lower_bound(buckets.begin(), buckets.end(), v);
  if (it != buckets.end()) ++bucket_counts[it - buckets.begin()];
  ++count;
  sum += v;
}

void Family::Add(std::span<const std::string_view> values, double value) {
  if (!enabled_) return;
  values_.insert(values_.end(), values.begin(), values.end());
  numbers_.push_back(value);
  if (!histograms_.empty()) histograms_.push_back(nullptr);
}

void Family::AddHistogram(std::span<const std::string_view> values,
                          const HistogramValue* h) {
  if (!enabled_) return;
  histograms_.resize(numbers_.size(), nullptr);
  values_.insert(values_.end(), values.begin(), values.end());
  numbers_.push_back(0);
  histograms_.push_back(h);
}

Family& MetricSet::Add(const FamilyDef& def) {
  const bool disabled =
      (disabled_ && std::find(disabled_->begin(), disabled_->end(), def.name) !=
                        disabled_->end()) ||
      (hidden_ && (Reveals(def) & hidden_));
  if (!disabled) return families_.emplace_back(def);
  Family& f = discarded_.emplace_back(def);
  f.enabled_ = false;
  return f;
}

void MetricSet::AddEncoded(const FamilyDef& def, const EncodedFamily& encoded) {
  families_.emplace_back(def).encoded_ = &encoded_.emplace_back(encoded);
}

std::vector<std::string_view> MetricSet::AddedNames() const {
  std::vector<std::string_view> names;
  for (const auto* list : {&families_, &discarded_})
    for (const Family& f : *list) names.push_back(f.def().name);
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

void MetricSet::Seal() {
  if (sealed_) return;
  sealed_ = true;
  // Two families whose names differ but whose OpenMetrics names are the
  // same (a gauge x_seconds and a counter x_seconds_total) would make the
  // OpenMetrics body invalid: the first registered is kept, the other
  // refused, counted and logged once per process (it is our bug).
  std::map<std::string_view, std::string_view> om_names;  // om name -> name
  for (Family& f : families_) {
    if (!f.encoded() && f.empty()) continue;
    const auto [it, fresh] = om_names.emplace(OpenMetricsName(f.def()), f.def().name);
    if (!fresh && it->second != f.def().name) {
      ++stats_.families_refused;
      static std::atomic<bool> logged{false};  // trivially destructible
      if (!logged.exchange(true))
        LogError("exposition: family " + std::string(f.def().name) +
                 " refused: its OpenMetrics name is that of " +
                 std::string(it->second));
      continue;
    }
    sorted_.push_back(&f);
  }
  // Stable, so families sharing a name keep their registration order.
  std::stable_sort(sorted_.begin(), sorted_.end(),
                   [](const Family* a, const Family* b) {
                     return a->def().name < b->def().name;
                   });
  for (size_t i = 0; i < sorted_.size();) {
    NameGroup g;
    g.begin = i;
    g.end = i + 1;
    while (g.end < sorted_.size() && sorted_[g.end]->def().name == sorted_[i]->def().name)
      ++g.end;
    i = g.end;
    for (const Family* f : Members(g)) {
      if (f->encoded() && !g.encoded) g.encoded = f->encoded_;
    }
    if (g.encoded) {
      g.counts = g.encoded->counts;  // its rows were sealed where encoded
    } else {
      for (Family* f : Members(g)) SealFamily(*f, g.counts);
    }
    Count(g.counts);
    groups_.push_back(g);
  }
}

std::span<Family* const> MetricSet::Members(const NameGroup& g) const {
  return std::span<Family* const>(sorted_).subspan(g.begin, g.end - g.begin);
}

void MetricSet::Count(const WriteStats& c) {
  stats_.series += c.series;
  stats_.duplicates_dropped += c.duplicates_dropped;
  stats_.utf8_repaired += c.utf8_repaired;
  stats_.labels_truncated += c.labels_truncated;
}

// Repairs and truncates label values, sorts the rows, drops duplicates.
void MetricSet::SealFamily(Family& f, WriteStats& counts) {
  const size_t width = f.def().labels.size();
  // Repair invalid UTF-8 before sorting so that two values that repair
  // to the same text are caught as duplicates.
  for (std::string_view& v : f.values_) {
    if (!IsValidUtf8(v)) {
      std::string repaired;
      AppendRepairedUtf8(repaired, v);
      v = arena_.Store(repaired);
      ++counts.utf8_repaired;
    }
    // A user's job name or a node's reason can be any size; a label a
    // few KiB long already breaks dashboards, a 100 KB one costs every
    // render and every Prometheus sample.
    if (v.size() > kMaxLabelValueBytes) {
      v = TruncatedLabel(v, arena_);
      ++counts.labels_truncated;
    }
  }
  const std::vector<uint32_t> label_order = SortedLabelOrder(f.def());
  auto row = [&](uint32_t i) { return f.values_.data() + i * width; };
  auto compare = [&](uint32_t a, uint32_t b) {
    for (uint32_t li : label_order) {
      const int c = row(a)[li].compare(row(b)[li]);
      if (c != 0) return c;
    }
    return 0;
  };
  f.order_.resize(f.size());
  std::iota(f.order_.begin(), f.order_.end(), 0);
  // Stable: of two identical label sets the first added is kept.
  std::stable_sort(f.order_.begin(), f.order_.end(),
                   [&](uint32_t a, uint32_t b) { return compare(a, b) < 0; });
  // client_golang fails the whole scrape (HTTP 500) on a duplicate
  // series; we keep the first and count the rest.
  auto last = std::unique(f.order_.begin(), f.order_.end(),
                          [&](uint32_t a, uint32_t b) { return compare(a, b) == 0; });
  counts.duplicates_dropped += f.order_.end() - last;
  f.order_.erase(last, f.order_.end());
  counts.series += f.order_.size();
}

void MetricSet::Write(Format format, std::string& out,
                      std::vector<WrittenFamily>* written) const {
  if (written) written->clear();
  for (const NameGroup& g : groups_) {
    WrittenFamily w;
    w.name = sorted_[g.begin]->def().name;
    w.offset = out.size();
    w.counts = g.counts;
    if (g.encoded) out.append(g.encoded->bytes[format == Format::kOpenMetrics ? 1 : 0]);
    else WriteFamilyGroup(format, Members(g), out);
    w.length = out.size() - w.offset;
    if (written) written->push_back(w);
  }
  if (format == Format::kOpenMetrics) out.append("# EOF\n");
}

void Family::HashRows(FingerprintHasher& h) const {
  h.Word(reinterpret_cast<uintptr_t>(def_));
  h.Word(size());
  for (const std::string_view& v : values_) h.String(v);
  for (size_t i = 0; i < size(); ++i) {
    const HistogramValue* hv = histograms_.empty() ? nullptr : histograms_[i];
    if (!hv) {
      h.Double(numbers_[i]);
      continue;
    }
    h.Word(hv->count);
    h.Double(hv->sum);
    h.Word(hv->bucket_counts.size());
    for (uint64_t c : hv->bucket_counts) h.Word(c);
  }
}

// Families that share a name (Soperator's and Slurm's own
// slurm_node_cpus_effective, say) are printed as one family: the first
// one's HELP and TYPE, then every family's series.
void MetricSet::WriteFamilyGroup(Format format, std::span<Family* const> group,
                                 std::string& out) const {
  const FamilyDef& head = group.front()->def();
  std::string_view name = head.name;
  std::string_view sample_suffix;
  std::string_view type_name;
  switch (head.type) {
    case MetricType::kGauge: type_name = "gauge"; break;
    case MetricType::kHistogram: type_name = "histogram"; break;
    case MetricType::kCounter: type_name = "counter"; break;
  }
  if (format == Format::kOpenMetrics && head.type == MetricType::kCounter) {
    // OpenMetrics names the counter family without _total and requires
    // the suffix on samples; a counter without it becomes "unknown".
    if (EndsWith(name, "_total")) {
      name.remove_suffix(6);
      sample_suffix = "_total";
    } else {
      type_name = "unknown";
    }
  }
  out.append("# HELP ");
  out.append(name);
  out.push_back(' ');
  AppendEscaped(out, head.help, format == Format::kOpenMetrics);
  out.append("\n# TYPE ");
  out.append(name);
  out.push_back(' ');
  out.append(type_name);
  out.push_back('\n');

  const SeriesWriter w{format, out};
  for (const Family* f : group) {
    const FamilyDef& def = f->def();
    const std::vector<uint32_t> label_order = SortedLabelOrder(def);
    const size_t width = def.labels.size();
    for (uint32_t i : f->order_) {
      const std::string_view* row = f->values_.data() + i * width;
      const HistogramValue* h =
          f->histograms_.empty() ? nullptr : f->histograms_[i];
      if (!h) {
        out.append(name);
        out.append(sample_suffix);
        w.Labels(def, label_order, row, nullptr);
        out.push_back(' ');
        w.Value(f->numbers_[i]);
        out.push_back('\n');
        continue;
      }
      uint64_t cumulative = 0;
      for (size_t b = 0; b < def.buckets.size(); ++b) {
        cumulative += h->bucket_counts[b];
        out.append(name);
        out.append("_bucket");
        w.Labels(def, label_order, row, &def.buckets[b]);
        out.push_back(' ');
        AppendUint(out, cumulative);
        out.push_back('\n');
      }
      const double inf = std::numeric_limits<double>::infinity();
      out.append(name);
      out.append("_bucket");
      w.Labels(def, label_order, row, &inf);
      out.push_back(' ');
      AppendUint(out, h->count);
      out.append("\n");
      out.append(name);
      out.append("_sum");
      w.Labels(def, label_order, row, nullptr);
      out.push_back(' ');
      w.Value(h->sum);
      out.append("\n");
      out.append(name);
      out.append("_count");
      w.Labels(def, label_order, row, nullptr);
      out.push_back(' ');
      AppendUint(out, h->count);
      out.push_back('\n');
    }
  }
}

}  // namespace sm
