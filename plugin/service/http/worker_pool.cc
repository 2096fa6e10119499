// SPDX-License-Identifier: GPL-2.0-or-later
#include "http/worker_pool.h"

#include <algorithm>
#include <exception>
#include <optional>

#include "exposition/negotiation.h"
#include "http/web_security.h"
#include "http/wire.h"
#include "thread_util.h"

namespace sm {
namespace http_loop {

void WorkerPool::Start() {
  for (int i = 0; i < std::max(1, o_.threads); ++i) {
    threads_.emplace_back([this] {
      NameThisThread("sm-http-w");
      LowerThisThreadPriority();
      try {
        Main();
      } catch (const std::exception& e) {
        LogFailure(o_.name, "worker stopped", e.what());
      } catch (...) {
        LogFailure(o_.name, "worker stopped", "unknown exception");
      }
    });
  }
}

void WorkerPool::Stop() {
  {
    std::lock_guard lock(work_mu_);
    stop_ = true;
  }
  work_cv_.notify_all();
  for (std::thread& t : threads_) t.join();
  threads_.clear();
}

void WorkerPool::Submit(Work work) {
  {
    std::lock_guard lock(work_mu_);
    work_.push_back(std::move(work));
  }
  work_cv_.notify_one();
}

std::vector<Done> WorkerPool::TakeDone() {
  std::vector<Done> done;
  {
    std::lock_guard lock(done_mu_);
    done.swap(done_);
  }
  return done;
}

void WorkerPool::Main() {
  while (true) {
    Work work;
    {
      std::unique_lock lock(work_mu_);
      work_cv_.wait(lock, [this] { return stop_ || !work_.empty(); });
      if (stop_) return;
      work = std::move(work_.front());
      work_.pop_front();
    }
    Done d = Serve(work);
    try {
      std::lock_guard lock(done_mu_);
      done_.push_back(std::move(d));
    } catch (...) {
      // Out of memory: this connection gets no answer; the write
      // deadline does not run while it is handled, so it stays until
      // the listener stops. Better than terminating slurmctld.
      LogFailure(o_.name, "dropping a response", "out of memory");
    }
    wake_.Wake();
  }
}

Done WorkerPool::Serve(const Work& work) noexcept {
  try {
    return Respond(work);
  } catch (const std::exception& e) {
    LogFailure(o_.name, "building a response failed", e.what());
  } catch (...) {
    LogFailure(o_.name, "building a response failed", "unknown exception");
  }
  Done d;
  d.id = work.id;
  d.failed = true;
  return d;
}

Done WorkerPool::Respond(const Work& work) {
  const http::RequestHead& h = work.head;
  HttpRequest req;
  req.method = h.method;
  req.path = h.path;
  req.query = h.query;
  req.accept = h.accept;
  req.accept_encoding = h.accept_encoding;
  req.accepts_gzip = NegotiateGzip(h.accept_encoding);
  req.peer = work.peer;
  req.tls = work.tls;
  if (work.cert_verified) {
    req.authenticated = true;
    req.principal_kind = PrincipalKind::kClientCertificate;
    req.principal = work.cert_subject;
  }
  HttpResponse resp;
  std::string user;
  try {
    std::optional<HttpResponse> refused;
    if (o_.security) refused = o_.security->Authorize(h.authorization, &req, &user);
    if (refused) {
      resp = std::move(*refused);
    } else if (h.method == "OPTIONS") {
      resp.status = 204;
      resp.headers.emplace_back("Allow", "GET, HEAD, OPTIONS");
    } else {
      // On our listener only a client that proved who it is sees what
      // PrivateData hides; the web config's users are the admin's.
      req.sees_private = req.authenticated;
      resp = handler_(req);
    }
  } catch (...) {
    resp = HttpResponse();
    resp.status = 500;
    resp.text = "internal error\n";
  }
  if (o_.security) o_.security->AddHeaders(resp);
  Done d;
  d.id = work.id;
  d.gzip = resp.body && resp.gzip;
  // Compress here, on the worker, not on the event loop.
  const std::string* payload =
      resp.body ? (d.gzip ? &resp.body->gzipped() : &resp.body->text()) : &resp.text;
  const bool keep_alive = work.keep_alive && resp.status < 500;
  d.head = SerializeHead(resp, resp.status == 204 ? 0 : payload->size(), keep_alive);
  d.text = std::move(resp.text);
  d.body = std::move(resp.body);
  d.head_only = h.method == "HEAD" || resp.status == 204;
  d.keep_alive = keep_alive;
  d.authenticated = req.authenticated;
  return d;
}

}  // namespace http_loop
}  // namespace sm
