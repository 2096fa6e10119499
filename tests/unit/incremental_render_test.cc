// SPDX-License-Identifier: GPL-2.0-or-later
// A render that copies the families whose rows did not change
// (render/group_reuse.h, GroupReuse::Finish) gives the bytes and
// the counts of a full render, step after step of a changing cluster
// (docs/performance.md, "Render cost that follows change").
#include <gtest/gtest.h>

#include <array>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "base/fingerprint.h"
#include "exposition/exposition.h"
#include "render/group_reuse.h"

namespace sm {
namespace {

constexpr double kBuckets[] = {1, 10, 100};
const FamilyDef kInfo{"test_job_info", "Jobs \"as\" seen\nby us", MetricType::kGauge,
                      {"job_id", "name", "user"}};
const FamilyDef kCpus{"test_job_cpus", "CPUs", MetricType::kGauge, {"job_id"}};
const FamilyDef kRuns{"test_runs_total", "Runs", MetricType::kCounter, {"user"}};
const FamilyDef kWait{"test_wait_seconds", "Waits", MetricType::kHistogram, {"user"},
                      kBuckets};
// Two families of one name, as Soperator's and Slurm's own
// slurm_node_cpus_effective: written as one.
const FamilyDef kShared1{"test_shared", "first", MetricType::kGauge, {"a"}};
const FamilyDef kShared2{"test_shared", "second", MetricType::kGauge, {"b"}};
const FamilyDef kLone{"test_lone", "No labels", MetricType::kGauge, {}};

// The cluster as the families see it: what a step changes.
struct Model {
  std::map<int, std::array<std::string, 3>> jobs;  // id -> name, user, cpus
  std::map<std::string, double> runs;
  std::map<std::string, std::vector<double>> waits;
  std::vector<std::string> shared;
  double lone = 0;
};

std::string Name(std::mt19937& rng) {
  static const char* kNames[] = {"train", "eval \"x\"", "a\\b", "line\nbreak",
                                 "bad \xff\xfe utf8", "dup", "ünï"};
  std::string n = kNames[rng() % std::size(kNames)];
  if (rng() % 17 == 0) n = std::string(5000, 'L');  // truncated at 4096
  return n;
}

void Mutate(Model& m, std::mt19937& rng) {
  const int what = static_cast<int>(rng() % 9);
  if (what == 0) return;  // nothing changed this time
  if (what <= 2 || m.jobs.empty()) {
    const int id = static_cast<int>(rng() % 60);
    m.jobs[id] = {Name(rng), "u" + std::to_string(rng() % 4), std::to_string(rng() % 8)};
  } else if (what == 3) {
    m.jobs.erase(m.jobs.begin());
  } else if (what == 4) {
    auto it = m.jobs.begin();
    std::advance(it, rng() % m.jobs.size());
    it->second[2] = std::to_string(rng() % 8);  // a value moves, labels stay
  } else if (what == 5) {
    m.runs["u" + std::to_string(rng() % 4)] += 1;
  } else if (what == 6) {
    m.waits["u" + std::to_string(rng() % 3)].push_back(static_cast<double>(rng() % 200));
  } else if (what == 7) {
    m.shared.push_back(std::to_string(rng() % 5));  // duplicates included
    if (m.shared.size() > 6) m.shared.clear();     // a family goes empty
  } else {
    m.lone = static_cast<double>(rng() % 3);
  }
}

// Adds the model's families; `hist` keeps the histograms alive.
void AddModel(MetricSet& set, const Model& m, std::vector<HistogramValue>& hist) {
  Family& info = set.Add(kInfo);
  Family& cpus = set.Add(kCpus);
  for (const auto& [id, j] : m.jobs) {
    const std::string_view sid = set.arena().StoreInt(id);
    info.Add({sid, j[0], j[1]}, 1);
    cpus.Add({sid}, std::stod(j[2]));
  }
  Family& runs = set.Add(kRuns);
  for (const auto& [u, n] : m.runs) runs.Add({u}, n);
  Family& wait = set.Add(kWait);
  hist.clear();
  hist.reserve(m.waits.size());
  for (const auto& [u, vs] : m.waits) {
    HistogramValue& h = hist.emplace_back();
    for (double v : vs) h.Observe(kBuckets, v);
  }
  size_t i = 0;
  for (const auto& [u, vs] : m.waits) wait.AddHistogram(std::vector<std::string_view>{u}, &hist[i++]);
  Family& s1 = set.Add(kShared1);
  Family& s2 = set.Add(kShared2);
  for (const std::string& v : m.shared) {
    s1.Add({v}, 1);
    s2.Add({v}, 2);
  }
  set.Add(kLone).Add(std::initializer_list<std::string_view>{}, m.lone);
}

struct Rendered {
  std::string text;
  std::vector<FamilyRecord> families;
};

// `set` sealed and written in text, with what a later render copies from,
// taking from `earlier` (null: nothing) what did not change.
Rendered WriteText(MetricSet& set, const EarlierBody* earlier) {
  GroupReuse reuse({}, {true, false}, {earlier, nullptr});
  reuse.Finish(set);
  set.Seal();
  Rendered r;
  std::vector<WrittenFamily> written;
  set.Write(Format::kText, r.text, &written);
  r.families = reuse.Records(written);
  return r;
}

TEST(IncrementalRender, FollowsChangeByteForByte) {
  std::mt19937 rng(23);
  Model m;
  std::array<Rendered, 2> earlier;  // [text, OpenMetrics]
  bool have_earlier = false;
  size_t reused = 0, written = 0;
  for (int step = 0; step < 300; ++step) {
    Mutate(m, rng);
    if (rng() % 5 == 0) Mutate(m, rng);

    std::vector<HistogramValue> hist_full;
    MetricSet full;
    AddModel(full, m, hist_full);
    full.Seal();

    std::vector<HistogramValue> hist;
    MetricSet inc;
    AddModel(inc, m, hist);
    const std::array<EarlierBody, 2> from{
        EarlierBody{earlier[0].text, earlier[0].families, {}},
        EarlierBody{earlier[1].text, earlier[1].families, {}}};
    // Every third step only the text body has an earlier one: nothing is
    // taken then, and both formats are written from the rows.
    std::array<const EarlierBody*, 2> by_format{};
    if (have_earlier) by_format[0] = &from[0];
    if (have_earlier && step % 3 != 0) by_format[1] = &from[1];
    GroupReuse reuse({}, {true, true}, by_format);
    ASSERT_TRUE(reuse.Finish(inc));
    inc.Seal();

    std::array<Rendered, 2> now;
    for (Format f : {Format::kText, Format::kOpenMetrics}) {
      const size_t i = f == Format::kOpenMetrics;
      std::string expected;
      full.Write(f, expected);
      std::vector<WrittenFamily> records;
      inc.Write(f, now[i].text, &records);
      now[i].families = reuse.Records(records);
      // Not ASSERT_EQ: gtest's diff of two long bodies is slow.
      size_t d = 0;
      while (d < expected.size() && d < now[i].text.size() && expected[d] == now[i].text[d]) ++d;
      ASSERT_TRUE(now[i].text == expected)
          << "step " << step << " format " << i << ": first difference at byte " << d
          << ": " << now[i].text.substr(d > 80 ? d - 80 : 0, 200);
      for (const FamilyRecord& w : now[i].families) (w.reused ? reused : written) += 1;
    }
    EXPECT_EQ(inc.stats().series, full.stats().series) << "step " << step;
    EXPECT_EQ(inc.stats().duplicates_dropped, full.stats().duplicates_dropped);
    EXPECT_EQ(inc.stats().utf8_repaired, full.stats().utf8_repaired);
    EXPECT_EQ(inc.stats().labels_truncated, full.stats().labels_truncated);
    earlier = std::move(now);
    have_earlier = true;
  }
  // Both ways were taken, many times: copies and fresh writes.
  EXPECT_GT(reused, 500u);
  EXPECT_GT(written, 200u);
}

TEST(IncrementalRender, AValueThatMovedIsWrittenAgain) {
  Rendered before;
  {
    MetricSet set;
    set.Add(kCpus).Add({"7"}, 4);
    set.Add(kRuns).Add({"alice"}, 1);
    before = WriteText(set, nullptr);
  }
  const EarlierBody from{before.text, before.families, {}};
  MetricSet set;
  set.Add(kCpus).Add({"7"}, 8);
  set.Add(kRuns).Add({"alice"}, 1);
  const Rendered now = WriteText(set, &from);
  EXPECT_EQ(now.text,
            "# HELP test_job_cpus CPUs\n# TYPE test_job_cpus gauge\n"
            "test_job_cpus{job_id=\"7\"} 8\n"
            "# HELP test_runs_total Runs\n# TYPE test_runs_total counter\n"
            "test_runs_total{user=\"alice\"} 1\n");
  ASSERT_EQ(now.families.size(), 2u);
  EXPECT_FALSE(now.families[0].reused);  // test_job_cpus: 4 -> 8
  EXPECT_TRUE(now.families[1].reused);   // test_runs_total: unchanged
}

TEST(IncrementalRender, NothingIsCopiedFromABodyWithoutRecords) {
  MetricSet first;
  first.Add(kCpus).Add({"7"}, 4);
  first.Seal();
  std::string text;
  first.Write(Format::kText, text);
  const EarlierBody from{text, {}, {}};  // IncrementalRender=no keeps none
  MetricSet set;
  set.Add(kCpus).Add({"7"}, 4);
  const Rendered now = WriteText(set, &from);
  EXPECT_EQ(now.text, text);
  ASSERT_EQ(now.families.size(), 1u);
  EXPECT_FALSE(now.families[0].reused);  // a later render writes it all
}

TEST(IncrementalRender, ARecordOutsideTheEarlierTextIsNotTrusted) {
  Rendered before;
  {
    MetricSet set;
    set.Add(kCpus).Add({"7"}, 4);
    before = WriteText(set, nullptr);
  }
  ASSERT_EQ(before.families.size(), 1u);
  before.families[0].length = before.text.size() + 1;
  const EarlierBody from{before.text, before.families, {}};
  MetricSet set;
  set.Add(kCpus).Add({"7"}, 4);
  const Rendered now = WriteText(set, &from);
  EXPECT_EQ(now.text, "# HELP test_job_cpus CPUs\n# TYPE test_job_cpus gauge\n"
                      "test_job_cpus{job_id=\"7\"} 4\n");
  EXPECT_FALSE(now.families[0].reused);
}

// Values one bit apart, at every byte of strings up to 40 bytes long:
// every fingerprint differs (a multiplier forced odd once made bit 0 of
// the ninth byte invisible).
TEST(Fingerprint, EveryBitOfAStringCounts) {
  for (size_t len = 1; len <= 40; ++len) {
    const std::string base(len, 'a');
    FingerprintHasher h0;
    h0.String(base);
    const Fingerprint f0 = h0.Finish();
    for (size_t i = 0; i < len; ++i) {
      for (int bit = 0; bit < 8; ++bit) {
        std::string v = base;
        v[i] = static_cast<char>(v[i] ^ (1 << bit));
        FingerprintHasher h;
        h.String(v);
        const Fingerprint f = h.Finish();
        EXPECT_FALSE(f.a == f0.a || f.b == f0.b) << "length " << len << " byte " << i
                                                 << " bit " << bit;
      }
    }
  }
  // Where one value ends and the next begins counts too.
  FingerprintHasher x, y;
  x.String("ab");
  x.String("c");
  y.String("a");
  y.String("bc");
  EXPECT_FALSE(x.Finish() == y.Finish());
}

// An empty value whose pointer is null (a default string_view, an empty
// label) is hashed like any other empty value: nothing is read from the
// null pointer (under UBSan a memcpy from it stops the test), and it
// still differs from no value at all.
TEST(Fingerprint, AnEmptyValueWithANullPointerIsHashed) {
  FingerprintHasher null_empty, empty, none;
  null_empty.String(std::string_view());
  empty.String("");
  EXPECT_TRUE(null_empty.Finish() == empty.Finish());
  EXPECT_FALSE(null_empty.Finish() == none.Finish());
  EXPECT_EQ(HashBytes(std::string_view()), HashBytes(""));
}

}  // namespace
}  // namespace sm
