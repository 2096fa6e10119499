// SPDX-License-Identifier: GPL-2.0-or-later
// Render cost of the cached bodies at cluster sizes from 1k nodes/10k jobs
// to 10k nodes/100k jobs: families + seal + write, per endpoint and format,
// plus gzip. This runs on the collector thread, off slurmctld's locks.
//
//   meson compile -C build bench/render_bench && build/bench/render_bench
#include <benchmark/benchmark.h>
#include <algorithm>
#include <map>
#include <optional>
#include <sys/resource.h>

#include "families/soperator/stdio_path.h"
#include "gzip_form.h"
#include "render/group_reuse.h"
#include "serving/endpoints.h"
#include "synthetic.h"

namespace {

using namespace sm;

struct Cluster {
  ClusterState state;
  NodeHistory history{0};
};

const Cluster& Get(int nodes, int jobs) {
  static std::map<std::pair<int, int>, std::unique_ptr<Cluster>> cache;
  auto& c = cache[{nodes, jobs}];
  if (!c) {
    c = std::make_unique<Cluster>();
    c->state.nodes = bench::SyntheticNodes(nodes);
    c->state.jobs = bench::SyntheticJobs(jobs, nodes);
    c->state.diag = bench::SyntheticDiag();
    c->history.Observe(*c->state.nodes, 10);
    c->history.Observe(*c->state.nodes, 40);
  }
  return *c;
}

long MaxRssKiB() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

void Render(benchmark::State& st, Endpoint e, Format f) {
  const Cluster& c = Get(static_cast<int>(st.range(0)), static_cast<int>(st.range(1)));
  size_t bytes = 0, series = 0;
  for (auto _ : st) {
    MetricSet set;
    AddEndpointFamilies(set, e, c.state, c.history, {1795100000, false});
    set.Seal();
    std::string out;
    set.Write(f, out);
    bytes = out.size();
    series = set.stats().series;
    benchmark::DoNotOptimize(out.data());
  }
  st.counters["bytes"] = static_cast<double>(bytes);
  st.counters["series"] = static_cast<double>(series);
  // Seconds per series, per iteration.
  st.counters["per_series"] = benchmark::Counter(
      static_cast<double>(series), benchmark::Counter::kIsIterationInvariantRate |
                                       benchmark::Counter::kInvert);
  st.counters["max_rss_MiB"] = MaxRssKiB() / 1024.0;
}

void BM_SoperatorText(benchmark::State& st) { Render(st, Endpoint::kSoperator, Format::kText); }
void BM_SoperatorOpenMetrics(benchmark::State& st) {
  Render(st, Endpoint::kSoperator, Format::kOpenMetrics);
}
void BM_EverythingText(benchmark::State& st) {
  Render(st, Endpoint::kEverything, Format::kText);
}

void BM_Gzip(benchmark::State& st) {
  const Cluster& c = Get(static_cast<int>(st.range(0)), static_cast<int>(st.range(1)));
  MetricSet set;
  AddEndpointFamilies(set, Endpoint::kSoperator, c.state, c.history, {1795100000, false});
  set.Seal();
  std::string text;
  set.Write(Format::kText, text);
  size_t out_bytes = 0;
  // The gzip form as the collector makes it for a body with no earlier
  // one (every piece compressed).
  for (auto _ : st) {
    const GzipForm gz = MakeGzipForm(text);
    out_bytes = gz.bytes.size();
    benchmark::DoNotOptimize(gz.bytes.data());
  }
  st.counters["bytes_in"] = static_cast<double>(text.size());
  st.counters["bytes_out"] = static_cast<double>(out_bytes);
}

// A render that follows change (docs/performance.md, "Render cost that
// follows change"): the same cluster 30 s later, so only running jobs'
// durations moved. Each iteration is the collector's work for one body:
// families, GroupReuse taking from the body it replaces what did not
// change, Write, and the gzip form from the earlier one's pieces. Range 2
// = 0 does the same work as a full render (IncrementalRender=no) for the
// ratio within one run.
void BM_SoperatorFollowsChange(benchmark::State& st) {
  const Cluster& c = Get(static_cast<int>(st.range(0)), static_cast<int>(st.range(1)));
  const bool incremental = st.range(2) != 0;
  size_t taken = 0;
  // The body the first render leaves.
  auto render = [&](int64_t now, const EarlierBody* earlier, std::string& out,
                    std::vector<FamilyRecord>& records, std::vector<GroupKey>& keys) {
    MetricSet set;
    const RenderOptions opts{now, false};
    std::optional<GroupReuse> reuse;
    if (incremental)
      reuse.emplace(GroupReuse::Inputs{Endpoint::kSoperator, &c.state, opts,
                                       GroupReuse::Filters(nullptr, 0)},
                    std::array<bool, 2>{true, false},
                    std::array<const EarlierBody*, 2>{earlier, nullptr});
    AddEndpointFamilies(set, Endpoint::kSoperator, c.state, c.history, opts, nullptr,
                        reuse ? reuse->Hook(set) : BeforeGroup());
    if (reuse) reuse->Finish(set);
    set.Seal();
    std::vector<WrittenFamily> written;
    set.Write(Format::kText, out, reuse ? &written : nullptr);
    if (reuse) {
      records = reuse->Records(written);
      keys = reuse->keys();
      taken = reuse->groups_taken();
    }
    return set.stats().series;
  };
  std::string before;
  std::vector<FamilyRecord> before_families;
  std::vector<GroupKey> before_keys;
  render(1795100000, nullptr, before, before_families, before_keys);
  const GzipForm before_gzip = MakeGzipForm(before);
  const EarlierBody earlier{before, before_families, before_keys};
  size_t reused = 0, pieces_reused = 0, gzip_bytes = 0;
  for (auto _ : st) {
    std::string out;
    out.reserve(before.size());
    std::vector<FamilyRecord> written;
    std::vector<GroupKey> keys;
    render(1795100030, incremental ? &earlier : nullptr, out, written, keys);
    const GzipForm gz = incremental ? MakeGzipForm(out, before, &before_gzip)
                                    : MakeGzipForm(out);
    reused = std::count_if(written.begin(), written.end(),
                           [](const FamilyRecord& w) { return w.reused; });
    pieces_reused = gz.reused_pieces;
    gzip_bytes = gz.bytes.size();
    benchmark::DoNotOptimize(out.data());
    benchmark::DoNotOptimize(gz.bytes.data());
  }
  st.counters["families_reused"] = static_cast<double>(reused);
  st.counters["groups_taken"] = static_cast<double>(taken);
  st.counters["pieces_reused"] = static_cast<double>(pieces_reused);
  st.counters["gzip_bytes"] = static_cast<double>(gzip_bytes);
}

// What the first render after each collection spends on the jobs'
// content fingerprint (JobSnapshot::Content), which the iterations above
// find made: every collection brings a new snapshot.
void BM_JobsContent(benchmark::State& st) {
  for (auto _ : st) {
    st.PauseTiming();
    auto j = bench::SyntheticJobs(static_cast<int>(st.range(1)), static_cast<int>(st.range(0)));
    st.ResumeTiming();
    benchmark::DoNotOptimize(j->Content());
  }
}

// Building the snapshots: the copy work the adapter does (its string copies
// are what runs under slurmctld's read locks).
void BM_SnapshotCopy(benchmark::State& st) {
  for (auto _ : st) {
    auto n = bench::SyntheticNodes(static_cast<int>(st.range(0)));
    auto j = bench::SyntheticJobs(static_cast<int>(st.range(1)), static_cast<int>(st.range(0)));
    benchmark::DoNotOptimize(n.get());
    benchmark::DoNotOptimize(j.get());
  }
}

// StdOut/StdErr of 1,000 batch jobs, as the adapter expands them per
// collection: plain patterns (range 0) or the hostile-client review's ones (range 1:
// 1,024-byte names, -o/-e of %x x 2,047), per dialect (range 2: 0 = 22.05,
// 1 = 23.02+).
void BM_StdioPaths(benchmark::State& st) {
  const bool hostile = st.range(0) != 0;
  const auto dialect = st.range(1) ? StdioDialect::kSlurm2302 : StdioDialect::kSlurm2205;
  const std::string name = hostile ? std::string(1024, 'n') : "train";
  std::string attack;
  for (int i = 0; i < 2047; ++i) attack += "%x";
  const std::string pattern = hostile ? attack : "out-%j-%x.log";
  StdioJob j;
  j.name = name;
  j.work_dir = "/home/alice";
  j.user = "alice";
  j.batch = true;
  j.std_out = pattern;
  j.std_err = pattern;
  size_t bytes = 0;
  for (auto _ : st) {
    for (uint32_t id = 1; id <= 1000; ++id) {
      j.job_id = id;
      bytes += JobStdout(dialect, j).size() + JobStderr(dialect, j).size();
    }
  }
  benchmark::DoNotOptimize(bytes);
}
BENCHMARK(BM_StdioPaths)
    ->ArgsProduct({{0, 1}, {0, 1}})
    ->Unit(benchmark::kMillisecond);

void Sizes(benchmark::internal::Benchmark* b) {
  b->Args({1000, 10000})->Args({10000, 50000})->Args({10000, 100000});
  b->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime()->UseRealTime();
}

BENCHMARK(BM_SoperatorText)->Apply(Sizes);
BENCHMARK(BM_SoperatorOpenMetrics)->Apply(Sizes);
BENCHMARK(BM_EverythingText)->Apply(Sizes);
BENCHMARK(BM_Gzip)->Apply(Sizes);
BENCHMARK(BM_SoperatorFollowsChange)
    ->ArgsProduct({{10000}, {50000}, {0, 1}})
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime()
    ->UseRealTime();
BENCHMARK(BM_SnapshotCopy)->Apply(Sizes);
BENCHMARK(BM_JobsContent)->Args({10000, 50000})->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
