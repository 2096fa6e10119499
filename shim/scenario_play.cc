// SPDX-License-Identifier: GPL-2.0-or-later
#include "scenario_play.h"

#include <atomic>
#include <chrono>
#include <fstream>
#include <iostream>
#include <memory>
#include <thread>
#include <vector>

#include "controller.h"
#include "hooks.h"
#include "slurmctld_standins.h"
#include "statistics_rpc.h"

namespace shim {
namespace {

// A collection on a thread of its own, which may wait on held locks.
struct HeldCollection {
  std::thread thread;
  std::atomic<bool> done{false};
  std::string error;  // set by the thread before `done`
};

class Player {
 public:
  Player(PluginHost& host, const PlayOptions& options) : host_(host), options_(options) {}
  ~Player() {
    try {
      ReleaseHeld();  // after an error: let held collections end before fini()
    } catch (const std::exception&) {
    }
  }

  void Step(const ScenarioStep& step) {
    MarkLockedAllocsStep();
    VirtualClock::Advance(step.at - now_);
    now_ = step.at;
    // Under the held locks while a collection is held (WriteLockAll then
    // takes nothing), so a held collection reads this state.
    LoadClusterState(step.state);
    FailCollectors(step.fail_nodes, step.fail_jobs);
    FailStatisticsRpc(step.fail_diag);
    if (hold_) {
      if (step.collect == Collect::kRelease) ReleaseHeld();
      else if (step.collect != Collect::kNone) StartHeld();
    } else if (step.collect == Collect::kHold) {
      hold_ = std::make_unique<HoldCollections>();
      StartHeld();
    } else if (step.collect == Collect::kNow && step.duration > 0) {
      hold_ = std::make_unique<HoldCollections>();
      StartHeld();
      VirtualClock::Advance(step.duration);
      now_ += step.duration;
      ReleaseHeld();
    } else if (step.collect == Collect::kNow) {
      host_.Collect();
    }
    FailCollectors(false, false);
    FailStatisticsRpc(false);
  }

  void Output(const ScenarioStep& step, size_t index, size_t count) {
    std::vector<std::string> paths = step.fetch;
    const bool marked = options_.every_step || !step.fetch.empty();
    if (paths.empty() && (options_.every_step || index + 1 == count))
      paths.push_back(options_.path);
    for (const std::string& path : paths) {
      if (marked) {
        std::cout << "# ==> " << step.name << " (" << index + 1 << "/" << count
                  << ", t=+" << step.at << "s, unix=" << VirtualClock::Unix() << ")"
                  << (step.fetch.empty() ? "" : " " + path) << " <==\n";
      }
      options_.emit(host_.Fetch(path, options_.openmetrics), path);
      if (!options_.gzip_dir.empty()) SaveGzip(path);
    }
  }

  void SaveGzip(const std::string& path) {
    const HttpResult r = host_.Fetch(path, options_.openmetrics, /*gzip=*/true);
    if (r.status != 200 || r.content_encoding != "gzip")
      throw RuntimeError(path + " with Accept-Encoding: gzip: HTTP " +
                         std::to_string(r.status) + ", Content-Encoding '" +
                         r.content_encoding + "'");
    const std::string file = options_.gzip_dir + "/" + std::to_string(++gzip_saved_) + ".gz";
    std::ofstream out(file, std::ios::binary);
    out.write(r.body.data(), static_cast<std::streamsize>(r.body.size()));
    if (!out.flush()) throw RuntimeError("cannot write " + file);
  }

 private:
  // Starts a collection on its own thread and returns once it waits on the
  // held locks (its sub-collectors then count as in flight) or has ended
  // (every sub-collector skipped: the in-flight limit).
  void StartHeld() {
    auto c = std::make_unique<HeldCollection>();
    HeldCollection* p = c.get();
    const int waiting = DataLockWaiters();
    c->thread = std::thread([this, p] {
      try {
        host_.Collect();
      } catch (const std::exception& e) {
        p->error = e.what();
      }
      p->done = true;
    });
    held_.push_back(std::move(c));
    const auto limit = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!p->done && DataLockWaiters() <= waiting) {
      if (std::chrono::steady_clock::now() > limit)
        throw RuntimeError("a held collection neither waited on slurmctld's locks "
                           "nor ended within 20 s (holds need MaxCollectorInflight=1: a "
                           "second collection would wait for the first one's turn, "
                           "which the shim cannot see)");
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }

  // Lets every held collection run on the state loaded now, and waits for
  // each to end (render included).
  void ReleaseHeld() {
    if (hold_) hold_->Release();
    hold_.reset();
    std::string error;
    for (auto& c : held_) {
      c->thread.join();
      if (error.empty()) error = c->error;
    }
    held_.clear();
    if (!error.empty()) throw RuntimeError(error);
  }

  PluginHost& host_;
  const PlayOptions& options_;
  int gzip_saved_ = 0;
  double now_ = 0;
  std::unique_ptr<HoldCollections> hold_;
  std::vector<std::unique_ptr<HeldCollection>> held_;
};

}  // namespace

void PlayScenario(const Scenario& scenario, PluginHost& host, const PlayOptions& options) {
  Player player(host, options);
  for (size_t i = 0; i < scenario.steps.size(); ++i) {
    player.Step(scenario.steps[i]);
    player.Output(scenario.steps[i], i, scenario.steps.size());
  }
}

}  // namespace shim
