// SPDX-License-Identifier: GPL-2.0-or-later
// The collector under load: 8 scraper threads call Get() in a loop (every
// endpoint and format, with and without gzip) while the collector ticks
// every millisecond and the source flips between active and standby (each
// standby tick runs Deactivate()). Built into the normal test build and,
// in scripts/test, with ThreadSanitizer, which is its point: an earlier build showed
// RenderAll() read the published bodies under one mutex while Deactivate()
// cleared them under another.
//
// Checked besides the sanitizer: every body a scraper gets is empty or a
// complete exposition of a collection; once the controller went to standby
// and its bodies were seen cleared, nothing is served until it is active
// again (standby serves nothing stale).
//
//   collector_stress [ROUNDS]    default 200 active/standby rounds
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "collector.h"
#include "base/log.h"

namespace sm {
namespace {

class FlippingSource : public Source {
 public:
  std::shared_ptr<NodeSnapshot> CollectNodes(LockTiming& t, std::string&) override {
    t.used = true;
    auto s = std::make_shared<NodeSnapshot>();
    const uint64_t gen = ++generation_;
    for (int i = 0; i < 8; ++i) {
      Node& n = s->nodes.emplace_back();
      n.name = s->arena.Store("n" + std::to_string(gen) + "-" + std::to_string(i));
      n.state = {i % 2 ? NodeBase::kIdle : NodeBase::kDown, node_flag::kDrain};
      n.reason = "stress";
      n.cpus = 4;
    }
    return s;
  }
  std::shared_ptr<JobSnapshot> CollectJobs(LockTiming&, std::string&) override {
    auto s = std::make_shared<JobSnapshot>();
    for (uint32_t i = 1; i <= 16; ++i) {
      Job& j = s->jobs.emplace_back();
      j.id = i;
      j.name = "job";
      j.state = i % 3 ? JobBase::kRunning : JobBase::kPending;
      j.nodes = "n1-[0-3]";
      j.start_time = 100;
    }
    return s;
  }
  std::shared_ptr<DiagSnapshot> CollectDiag(LockTiming&, std::string&) override {
    auto d = std::make_shared<DiagSnapshot>();
    d->server_thread_count = 3;
    return d;
  }
  bool Active() override { return active.load(); }

  std::atomic<bool> active{true};

 private:
  std::atomic<uint64_t> generation_{0};
};

constexpr Endpoint kEndpoints[] = {Endpoint::kSoperator, Endpoint::kNodes,
                                   Endpoint::kJobs, Endpoint::kScheduler};

// No body, or one that has families and ends as its format requires. (An
// OpenMetrics body of no families is "# EOF" alone: a first request for a
// format can render the state Deactivate() just emptied.)
bool Complete(const std::string& text, Format f) {
  if (text.empty() || (f == Format::kOpenMetrics && text == "# EOF\n")) return true;
  if (f == Format::kOpenMetrics && !text.ends_with("# EOF\n")) return false;
  return text.back() == '\n' && text.starts_with("# HELP ");
}

int Run(int rounds) {
  // Deactivate() logs once per round; the sink must be set before threads.
  SetLogSink([](LogLevel, const char*) {}, LogLevel::kError);
  FlippingSource source;
  SelfMonitoring monitoring;
  CollectorOptions options;
  options.interval = std::chrono::milliseconds(1);
  options.endpoints = {std::begin(kEndpoints), std::end(kEndpoints)};
  options.unix_now = [] { return int64_t{1000}; };
  Collector collector(source, options, monitoring);
  collector.Start();

  // Standby confirmed (bodies seen cleared) and not yet left: `epoch`
  // moves before the source is active again, so a scraper that saw the
  // same epoch before and after its Get() knows the Get() ran in standby.
  std::atomic<bool> standby_confirmed{false};
  std::atomic<uint64_t> epoch{0};
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> scrapes{0}, non_empty{0};
  std::atomic<int> failures{0};
  auto fail = [&](const char* what) {
    if (failures++ < 10) std::fprintf(stderr, "collector_stress: %s\n", what);
  };

  std::vector<std::thread> scrapers;
  for (int t = 0; t < 8; ++t) {
    scrapers.emplace_back([&, t] {
      for (uint64_t i = t; !stop.load(); ++i) {
        const Endpoint e = kEndpoints[i % std::size(kEndpoints)];
        const Format f = (i / 4) % 2 ? Format::kOpenMetrics : Format::kText;
        const bool gzip = (i / 8) % 2;
        const uint64_t e1 = epoch.load();
        const bool standby = standby_confirmed.load();
        const auto body = collector.Get(e, f, View::kFull, gzip);
        const uint64_t e2 = epoch.load();
        if (!Complete(body->text(), f)) fail("incomplete body served");
        if (!body->text().empty() && body->text() != "# EOF\n") {
          ++non_empty;
          if (standby && e1 == e2) fail("standby served a body");
          if (gzip && body->gzipped().empty()) fail("empty gzip of a body");
        }
        ++scrapes;
        // Paced like network scrapers: eight busy loops on two cores would
        // starve the (niced) render thread and measure nothing but that.
        if (i % 16 == 0) std::this_thread::sleep_for(std::chrono::microseconds(100));
      }
    });
  }

  auto wait_until = [&](auto pred) {
    while (!pred()) std::this_thread::sleep_for(std::chrono::microseconds(200));
  };
  int r = 0;
  for (; r < rounds && failures == 0; ++r) {
    // Active: wait for a collection to be served.
    wait_until([&] { return !collector.Get(Endpoint::kSoperator, Format::kText, View::kFull)->text().empty(); });
    // Standby: the next tick deactivates; wait until nothing is served.
    source.active = false;
    wait_until([&] { return collector.Get(Endpoint::kSoperator, Format::kText, View::kFull)->text().empty(); });
    standby_confirmed = true;
    // Let scrapers and standby ticks run a while in standby.
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    standby_confirmed = false;
    ++epoch;
    source.active = true;
  }
  stop = true;
  for (std::thread& t : scrapers) t.join();
  collector.Stop();
  std::printf("collector_stress: %d rounds, %llu scrapes (%llu with a body), %d failures\n",
              r, static_cast<unsigned long long>(scrapes.load()),
              static_cast<unsigned long long>(non_empty.load()), failures.load());
  return failures == 0 ? 0 : 1;
}

}  // namespace
}  // namespace sm

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 200;
  return sm::Run(rounds > 0 ? rounds : 200);
}
