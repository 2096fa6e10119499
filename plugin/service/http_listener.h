// SPDX-License-Identifier: GPL-2.0-or-later
// A small civetweb wrapper: one handler for every path, bounded threads and
// request sizes, binding retried in the background (after `scontrol
// reconfigure` the old slurmctld may still hold the port for a moment).
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

struct mg_context;
struct mg_connection;

namespace sm {

class Body;

struct HttpRequest {
  std::string_view method;
  std::string_view path;
  std::string_view accept;
  bool accepts_gzip = false;
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::shared_ptr<const Body> body;  // cached exposition, or
  std::string text;                  // a small literal body
  bool gzip = false;                 // send body->gzipped()
  std::vector<std::pair<std::string, std::string>> headers;
};

using HttpHandler = std::function<HttpResponse(const HttpRequest&)>;

class HttpListener {
 public:
  // `ports` uses civetweb's listening_ports syntax ("8080", "127.0.0.1:8080").
  HttpListener(std::string name, std::string ports, int threads,
               HttpHandler handler);
  ~HttpListener();
  HttpListener(const HttpListener&) = delete;
  HttpListener& operator=(const HttpListener&) = delete;

  void Start();
  // Stops civetweb and the bind thread; returns when all are joined.
  void Stop();
  bool bound() const { return ctx_.load() != nullptr; }
  // The port actually bound (useful with port 0 in tests); 0 if unbound.
  int port() const;

  // Entry point for civetweb's threads.
  int Handle(::mg_connection* conn);

 private:
  bool TryStart();
  void BindLoop();

  std::string name_;
  std::string ports_;
  int threads_;
  HttpHandler handler_;
  std::atomic<mg_context*> ctx_{nullptr};
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::thread bind_thread_;
};

}  // namespace sm
