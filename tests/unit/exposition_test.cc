// SPDX-License-Identifier: GPL-2.0-or-later
// The writer against client_golang's expfmt rules (spec section 2).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "exposition/exposition.h"
#include "exposition/number_format.h"
#include "base/utf8.h"

namespace sm {
namespace {

std::string Text(double v) {
  std::string s;
  AppendTextFloat(s, v);
  return s;
}

std::string Om(double v) {
  std::string s;
  AppendOpenMetricsFloat(s, v);
  return s;
}

TEST(NumberFormat, GoShortestExamplesFromSpec) {
  EXPECT_EQ(Text(16), "16");
  EXPECT_EQ(Text(999999), "999999");
  EXPECT_EQ(Text(1e6), "1e+06");
  EXPECT_EQ(Text(1722697230), "1.72269723e+09");
  EXPECT_EQ(Text(200651309056.0), "2.00651309056e+11");
  EXPECT_EQ(Text(67108864000.0), "6.7108864e+10");
  EXPECT_EQ(Text(0.005), "0.005");
  EXPECT_EQ(Text(0.06141), "0.06141");
  EXPECT_EQ(Text(1e-06), "1e-06");
  EXPECT_EQ(Text(123456.5), "123456.5");
  EXPECT_EQ(Text(6871.947674), "6871.947674");
  EXPECT_EQ(Text(1209600), "1.2096e+06");
  EXPECT_EQ(Text(2592000), "2.592e+06");
}

TEST(NumberFormat, SpecialValues) {
  EXPECT_EQ(Text(0), "0");
  EXPECT_EQ(Text(-0.0), "0");
  EXPECT_EQ(Text(1), "1");
  EXPECT_EQ(Text(-1), "-1");
  EXPECT_EQ(Text(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(Text(-std::numeric_limits<double>::infinity()), "-Inf");
  EXPECT_EQ(Text(std::nan("")), "NaN");
  EXPECT_EQ(Text(-2.5), "-2.5");
  EXPECT_EQ(Text(0.0001), "0.0001");     // exponent -4 stays decimal
  EXPECT_EQ(Text(0.00001), "1e-05");     // exponent -5 switches
  EXPECT_EQ(Text(1e21), "1e+21");
  EXPECT_EQ(Text(1.5e300), "1.5e+300");  // three-digit exponent
  EXPECT_EQ(Text(0.1 + 0.2), "0.30000000000000004");
}

TEST(NumberFormat, OpenMetricsAddsPointZero) {
  EXPECT_EQ(Om(0), "0.0");
  EXPECT_EQ(Om(1), "1.0");
  EXPECT_EQ(Om(16), "16.0");
  EXPECT_EQ(Om(1e6), "1e+06");
  EXPECT_EQ(Om(0.5), "0.5");
  EXPECT_EQ(Om(std::numeric_limits<double>::infinity()), "+Inf");
}

TEST(Utf8, RepairsInvalidSequences) {
  EXPECT_TRUE(IsValidUtf8("plain"));
  EXPECT_TRUE(IsValidUtf8("\xC3\xA9t\xC3\xA9"));
  EXPECT_FALSE(IsValidUtf8("bad\xFF"));
  EXPECT_FALSE(IsValidUtf8("\xC0\xAF"));          // overlong '/'
  EXPECT_FALSE(IsValidUtf8("\xED\xA0\x80"));      // surrogate
  EXPECT_FALSE(IsValidUtf8("\xF4\x90\x80\x80"));  // above U+10FFFF
  EXPECT_FALSE(IsValidUtf8("\xE2\x82"));          // truncated
  std::string out;
  AppendRepairedUtf8(out, "a\xFF\xFE" "b\xE2\x82");
  EXPECT_EQ(out, "a\xEF\xBF\xBD" "b\xEF\xBF\xBD");
}

TEST(Utf8, TruncatesAtCodePoints) {
  std::string e55, e50;
  for (int i = 0; i < 55; ++i) e55 += "\xC3\xA9";
  for (int i = 0; i < 50; ++i) e50 += "\xC3\xA9";
  EXPECT_EQ(TruncateCodePoints(e55, 50), e50);
  EXPECT_EQ(TruncateCodePoints(e50, 50), e50);
  EXPECT_EQ(TruncateCodePoints("", 50), "");
  EXPECT_EQ(TruncateCodePoints("abc", 2), "ab");
}

const FamilyDef kB{"b_metric", "Help of b", MetricType::kGauge,
                   {"zeta", "alpha"}};
const FamilyDef kA{"a_total", "Help \\ of a\nsecond", MetricType::kCounter,
                   {"x"}};
const double kBounds[] = {1, 2.5};
const FamilyDef kH{"h_seconds", "A histogram", MetricType::kHistogram, {"n"},
                   kBounds};

TEST(MetricSet, SortsFamiliesLabelsAndSeries) {
  MetricSet set;
  Family& b = set.Add(kB);
  b.Add({"z2", "a1"}, 2);
  b.Add({"z1", "a2"}, 1);
  b.Add({"z0", "a1"}, 3);
  set.Add(kA).Add({"v"}, 5);
  set.Seal();
  std::string out;
  set.Write(Format::kText, out);
  EXPECT_EQ(out,
            "# HELP a_total Help \\\\ of a\\nsecond\n"
            "# TYPE a_total counter\n"
            "a_total{x=\"v\"} 5\n"
            "# HELP b_metric Help of b\n"
            "# TYPE b_metric gauge\n"
            "b_metric{alpha=\"a1\",zeta=\"z0\"} 3\n"
            "b_metric{alpha=\"a1\",zeta=\"z2\"} 2\n"
            "b_metric{alpha=\"a2\",zeta=\"z1\"} 1\n");
  EXPECT_EQ(set.stats().series, 4u);
}

TEST(MetricSet, EscapesLabelValuesAndOmitsEmptyFamilies) {
  MetricSet set;
  set.Add(kA);  // no series: no HELP/TYPE either
  set.Add(kB).Add({"quote\"back\\slash\nnl", ""}, 1);
  set.Seal();
  std::string out;
  set.Write(Format::kText, out);
  EXPECT_EQ(out,
            "# HELP b_metric Help of b\n"
            "# TYPE b_metric gauge\n"
            "b_metric{alpha=\"\",zeta=\"quote\\\"back\\\\slash\\nnl\"} 1\n");
}

TEST(MetricSet, DisabledFamilyStoresNoRows) {
  const std::vector<std::string> disabled = {"b_metric"};
  MetricSet set(&disabled);
  Family& b = set.Add(kB);
  EXPECT_FALSE(b.enabled());
  b.Add({"z", "a"}, 1);
  EXPECT_EQ(b.size(), 0u);  // nothing stored, not merely left unwritten
  Family& a = set.Add(kA);
  EXPECT_TRUE(a.enabled());
  a.Add({"v"}, 5);
  set.Seal();
  std::string out;
  set.Write(Format::kText, out);
  EXPECT_EQ(out,
            "# HELP a_total Help \\\\ of a\\nsecond\n"
            "# TYPE a_total counter\n"
            "a_total{x=\"v\"} 5\n");
  EXPECT_EQ(set.stats().series, 1u);
}

// The writer refuses a second family whose OpenMetrics name is taken.
TEST(MetricSet, RefusesFamilyWithSameOpenMetricsName) {
  const FamilyDef gauge{"x_seconds", "Last", MetricType::kGauge, {}};
  const FamilyDef counter{"x_seconds_total", "Sum", MetricType::kCounter, {}};
  MetricSet set;
  set.Add(gauge).Add({}, 1);
  set.Add(counter).Add({}, 2);
  set.Seal();
  EXPECT_EQ(set.stats().families_refused, 1u);
  EXPECT_EQ(set.stats().series, 1u);
  std::string om;
  set.Write(Format::kOpenMetrics, om);
  EXPECT_EQ(om,
            "# HELP x_seconds Last\n"
            "# TYPE x_seconds gauge\n"
            "x_seconds 1.0\n"
            "# EOF\n");
}

// A label value over 4 KiB is cut at a code point and marked.
TEST(MetricSet, TruncatesLongLabelValues) {
  const std::string reason = std::string(kMaxLabelValueBytes - 15, 'r') +
                             "\xc3\xa9" + std::string(100000, 'x');
  const std::string exact(kMaxLabelValueBytes, 'e');
  MetricSet set;
  Family& b = set.Add(kB);
  b.Add({reason, "1"}, 1);  // zeta, alpha
  b.Add({exact, "2"}, 2);
  set.Seal();
  EXPECT_EQ(set.stats().labels_truncated, 1u);
  std::string out;
  set.Write(Format::kText, out);
  // 4081 r's, then "é" would end at byte 4083 > 4096 - 14: cut before it.
  const std::string cut = std::string(kMaxLabelValueBytes - 15, 'r') + "...[truncated]";
  EXPECT_EQ(cut.size(), kMaxLabelValueBytes - 1);
  EXPECT_EQ(out,
            "# HELP b_metric Help of b\n"
            "# TYPE b_metric gauge\n"
            "b_metric{alpha=\"1\",zeta=\"" + cut + "\"} 1\n"
            "b_metric{alpha=\"2\",zeta=\"" + exact + "\"} 2\n");
}

TEST(MetricSet, DropsDuplicateSeriesAfterRepair) {
  MetricSet set;
  Family& b = set.Add(kB);
  b.Add({"n\xFF", "x"}, 1);
  b.Add({"n\xFE", "x"}, 2);  // repairs to the same value as the first
  b.Add({"m", "x"}, 3);
  set.Seal();
  std::string out;
  set.Write(Format::kText, out);
  EXPECT_EQ(out,
            "# HELP b_metric Help of b\n"
            "# TYPE b_metric gauge\n"
            "b_metric{alpha=\"x\",zeta=\"m\"} 3\n"
            "b_metric{alpha=\"x\",zeta=\"n\xEF\xBF\xBD\"} 1\n");
  EXPECT_EQ(set.stats().duplicates_dropped, 1u);
  EXPECT_EQ(set.stats().utf8_repaired, 2u);
}

TEST(MetricSet, HistogramText) {
  HistogramValue h{{1, 0}, 3, 12.5};
  MetricSet set;
  const std::string_view n[] = {"node1"};
  set.Add(kH).AddHistogram(n, &h);
  set.Seal();
  std::string out;
  set.Write(Format::kText, out);
  EXPECT_EQ(out,
            "# HELP h_seconds A histogram\n"
            "# TYPE h_seconds histogram\n"
            "h_seconds_bucket{n=\"node1\",le=\"1\"} 1\n"
            "h_seconds_bucket{n=\"node1\",le=\"2.5\"} 1\n"
            "h_seconds_bucket{n=\"node1\",le=\"+Inf\"} 3\n"
            "h_seconds_sum{n=\"node1\"} 12.5\n"
            "h_seconds_count{n=\"node1\"} 3\n");
}

TEST(MetricSet, OpenMetrics) {
  HistogramValue h{{0, 2}, 2, 4};
  MetricSet set;
  const std::string_view n[] = {"a"};
  set.Add(kH).AddHistogram(n, &h);
  set.Add(kA).Add({"q\""}, 7);
  set.Add(kB).Add({"z", "a"}, 1);
  set.Seal();
  std::string out;
  set.Write(Format::kOpenMetrics, out);
  EXPECT_EQ(out,
            "# HELP a Help \\\\ of a\\nsecond\n"
            "# TYPE a counter\n"
            "a_total{x=\"q\\\"\"} 7.0\n"
            "# HELP b_metric Help of b\n"
            "# TYPE b_metric gauge\n"
            "b_metric{alpha=\"a\",zeta=\"z\"} 1.0\n"
            "# HELP h_seconds A histogram\n"
            "# TYPE h_seconds histogram\n"
            "h_seconds_bucket{n=\"a\",le=\"1.0\"} 0\n"
            "h_seconds_bucket{n=\"a\",le=\"2.5\"} 2\n"
            "h_seconds_bucket{n=\"a\",le=\"+Inf\"} 2\n"
            "h_seconds_sum{n=\"a\"} 4.0\n"
            "h_seconds_count{n=\"a\"} 2\n"
            "# EOF\n");
}

TEST(MetricSet, CounterWithoutTotalIsUnknownInOpenMetrics) {
  const FamilyDef c{"slurm_bf_cycle_cnt", "Backfill cycle count",
                    MetricType::kCounter, {}};
  MetricSet set;
  set.Add(c).Add(std::span<const std::string_view>(), 3);
  set.Seal();
  std::string text, om;
  set.Write(Format::kText, text);
  set.Write(Format::kOpenMetrics, om);
  EXPECT_EQ(text,
            "# HELP slurm_bf_cycle_cnt Backfill cycle count\n"
            "# TYPE slurm_bf_cycle_cnt counter\n"
            "slurm_bf_cycle_cnt 3\n");
  EXPECT_EQ(om,
            "# HELP slurm_bf_cycle_cnt Backfill cycle count\n"
            "# TYPE slurm_bf_cycle_cnt unknown\n"
            "slurm_bf_cycle_cnt 3.0\n"
            "# EOF\n");
}

TEST(MetricSet, SameNameFamiliesShareOneHeader) {
  const FamilyDef ours{"slurm_node_cpus_effective", "Effective CPUs on the node",
                       MetricType::kGauge, {"node_name"}};
  const FamilyDef native{"slurm_node_cpus_effective",
                         "CPUs allocatable to jobs not reserved for system "
                         "usage",
                         MetricType::kGauge, {"node"}};
  MetricSet set;
  set.Add(ours).Add({"n1"}, 4);
  set.Add(native).Add({"n1"}, 4);
  set.Seal();
  std::string out;
  set.Write(Format::kText, out);
  EXPECT_EQ(out,
            "# HELP slurm_node_cpus_effective Effective CPUs on the node\n"
            "# TYPE slurm_node_cpus_effective gauge\n"
            "slurm_node_cpus_effective{node_name=\"n1\"} 4\n"
            "slurm_node_cpus_effective{node=\"n1\"} 4\n");
}

}  // namespace
}  // namespace sm
