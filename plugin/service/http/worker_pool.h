// SPDX-License-Identifier: GPL-2.0-or-later
// The listener's worker pool (http/loop.h): ListenerOptions::threads
// threads run the handler (and the web config's checks) on requests the
// event thread parsed, so a slow handler (the first gzip of a big body)
// never blocks I/O; each finished response wakes the event thread.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "body.h"
#include "http/listener.h"
#include "http/parser.h"
#include "http/waker.h"

namespace sm {
namespace http_loop {

// A parsed request, for a worker.
struct Work {
  uint64_t id;
  http::RequestHead head;
  std::string peer;
  bool tls;
  bool cert_verified;
  std::string cert_subject;
  bool keep_alive;
};

// A worker's answer to Work `id`, for the event thread to write.
struct Done {
  uint64_t id;
  std::string head;
  std::string text;
  std::shared_ptr<const Body> body;
  bool gzip = false;
  bool head_only = false;
  bool keep_alive = false;
  bool authenticated = false;
  bool failed = false;  // no response could be built: kInternalError
};

class WorkerPool {
 public:
  WorkerPool(const ListenerOptions& o, const HttpHandler& h, Waker& wake)
      : o_(o), handler_(h), wake_(wake) {}

  // Starts the threads (at least one); they inherit the caller's signal
  // mask. May throw (std::thread); Stop() joins those already started.
  void Start();
  // Joins every worker; a request still queued is dropped. Idempotent.
  void Stop();

  void Submit(Work work);
  // The responses finished since the last call.
  std::vector<Done> TakeDone();

 private:
  void Main();
  // Never throws: a response, or `failed` (kInternalError).
  Done Serve(const Work& work) noexcept;
  Done Respond(const Work& work);

  const ListenerOptions& o_;
  const HttpHandler& handler_;
  Waker& wake_;
  std::mutex work_mu_;
  std::condition_variable work_cv_;
  std::deque<Work> work_;
  bool stop_ = false;
  std::vector<std::thread> threads_;
  std::mutex done_mu_;
  std::vector<Done> done_;
};

}  // namespace http_loop
}  // namespace sm
