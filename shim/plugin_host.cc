// SPDX-License-Identifier: GPL-2.0-or-later
#include "plugin_host.h"

#include <arpa/inet.h>
#include <dlfcn.h>
#include <link.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include "controller.h"
#include "slurm_api.h"
#include "hooks.h"
#include "input.h"
#include "vocabulary.h"

namespace shim {
namespace {

bool IsLoopbackV4(const std::string& host) {
  in_addr a{};
  return inet_pton(AF_INET, host.c_str(), &a) == 1 &&
         (ntohl(a.s_addr) >> 24) == 127;
}

int Connect(const Endpoint& e) {
  const bool v6 = e.host.find(':') != std::string::npos;
  const int fd = socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  int rc;
  if (v6) {
    sockaddr_in6 a{};
    a.sin6_family = AF_INET6;
    a.sin6_port = htons(static_cast<uint16_t>(e.port));
    inet_pton(AF_INET6, e.host.c_str(), &a.sin6_addr);
    rc = connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  } else {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(e.port));
    inet_pton(AF_INET, e.host.c_str(), &a.sin_addr);
    rc = connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  }
  if (rc != 0) {
    const int saved = errno;
    close(fd);
    errno = saved;
    return -1;
  }
  return fd;
}

// Address range of the loaded object that defines `symbol`.
bool ObjectRange(void* symbol, uintptr_t& lo, uintptr_t& hi) {
  Dl_info info{};
  if (!dladdr(symbol, &info) || !info.dli_fbase) return false;
  struct Arg {
    uintptr_t base;
    uintptr_t lo = UINTPTR_MAX, hi = 0;
  } arg{reinterpret_cast<uintptr_t>(info.dli_fbase)};
  dl_iterate_phdr(
      [](dl_phdr_info* i, size_t, void* p) -> int {
        auto* a = static_cast<Arg*>(p);
        uintptr_t first = UINTPTR_MAX, last = 0;
        bool mine = false;
        for (int k = 0; k < i->dlpi_phnum; ++k) {
          const ElfW(Phdr)& ph = i->dlpi_phdr[k];
          if (ph.p_type != PT_LOAD) continue;
          const uintptr_t start = i->dlpi_addr + ph.p_vaddr;
          first = std::min(first, start);
          last = std::max(last, start + ph.p_memsz);
          if (a->base >= start && a->base < start + ph.p_memsz) mine = true;
          if (a->base == i->dlpi_addr) mine = true;
        }
        if (!mine) return 0;
        a->lo = first;
        a->hi = last;
        return 1;
      },
      &arg);
  if (arg.hi == 0) return false;
  lo = arg.lo;
  hi = arg.hi;
  return true;
}

void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out) throw RuntimeError("cannot write " + path + ": " + std::strerror(errno));
}

}  // namespace

std::string Endpoint::str() const {
  if (host.find(':') != std::string::npos)
    return "[" + host + "]:" + std::to_string(port);
  return host + ":" + std::to_string(port);
}

Endpoint ParseLoopback(const std::string& address, const char* what) {
  const size_t colon = address.rfind(':');
  if (colon == std::string::npos || colon + 1 >= address.size())
    throw InputError(std::string(what) + " \"" + address +
                     "\": expected HOST:PORT, e.g. 127.0.0.1:9341");
  std::string host = address.substr(0, colon);
  const std::string port_s = address.substr(colon + 1);
  char* end = nullptr;
  const long port = strtol(port_s.c_str(), &end, 10);
  if (*end != '\0' || port < 1 || port > 65535)
    throw InputError(std::string(what) + " \"" + address + "\": bad port \"" + port_s + "\"");
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  if (host == "localhost") host = "127.0.0.1";
  if (!(host == "::1" || IsLoopbackV4(host)))
    throw InputError(std::string(what) + " \"" + address +
                     "\": the shim serves loopback addresses only (127.0.0.0/8, ::1)");
  return {host, static_cast<int>(port)};
}

int FreeLoopbackPort() {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw RuntimeError(std::string("socket: ") + std::strerror(errno));
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  if (bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    const int saved = errno;
    close(fd);
    throw RuntimeError(std::string("cannot find a free port: ") + std::strerror(saved));
  }
  close(fd);
  return ntohs(a.sin_port);
}

HttpResult HttpGet(const Endpoint& e, const std::string& path,
                   const std::string& accept, bool gzip) {
  const int fd = Connect(e);
  if (fd < 0)
    throw RuntimeError("cannot connect to the plugin's listener on " + e.str() +
                       ": " + std::strerror(errno));
  std::string req = "GET " + path + " HTTP/1.0\r\nHost: " + e.str() +
                    "\r\nUser-Agent: soperator-metrics-shim\r\n";
  if (!accept.empty()) req += "Accept: " + accept + "\r\n";
  if (gzip) req += "Accept-Encoding: gzip\r\n";
  req += "Connection: close\r\n\r\n";
  for (size_t off = 0; off < req.size();) {
    const ssize_t n = send(fd, req.data() + off, req.size() - off, MSG_NOSIGNAL);
    if (n <= 0) {
      close(fd);
      throw RuntimeError("sending the request to " + e.str() + " failed");
    }
    off += static_cast<size_t>(n);
  }
  std::string resp;
  char buf[1 << 16];
  while (true) {
    pollfd p{fd, POLLIN, 0};
    const int r = poll(&p, 1, 120000);
    if (r == 0) {
      close(fd);
      throw RuntimeError("no answer from " + e.str() + path + " within 120 s");
    }
    if (r < 0 && errno == EINTR) continue;
    const ssize_t n = recv(fd, buf, sizeof buf, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    resp.append(buf, static_cast<size_t>(n));
  }
  close(fd);
  const size_t head_end = resp.find("\r\n\r\n");
  if (resp.compare(0, 5, "HTTP/") != 0 || head_end == std::string::npos)
    throw RuntimeError("malformed HTTP response from " + e.str() + path);
  HttpResult out;
  const size_t sp = resp.find(' ');
  out.status = atoi(resp.c_str() + sp + 1);
  size_t pos = resp.find("\r\n") + 2;
  size_t content_length = std::string::npos;
  while (pos < head_end) {
    const size_t eol = resp.find("\r\n", pos);
    const std::string line = resp.substr(pos, eol - pos);
    pos = eol + 2;
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = line.substr(0, colon);
    for (char& c : key) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    std::string value = line.substr(colon + 1);
    value.erase(0, value.find_first_not_of(' '));
    if (key == "content-type") out.content_type = value;
    if (key == "content-encoding") out.content_encoding = value;
    if (key == "content-length") content_length = std::stoull(value);
  }
  resp.erase(0, head_end + 4);  // no second copy of a 100 MB body
  out.body = std::move(resp);
  if (content_length != std::string::npos && out.body.size() != content_length)
    throw RuntimeError("truncated HTTP response from " + e.str() + path + ": " +
                       std::to_string(out.body.size()) + " of " +
                       std::to_string(content_length) + " bytes");
  return out;
}

PluginHost::PluginHost(const std::string& path, const Endpoint& metrics,
                       const Endpoint& monitoring, const std::string& extra_conf)
    : path_(path), metrics_(metrics), monitoring_(monitoring) {
  // slurmctld finds extra config files next to slurm.conf; so does the
  // plugin (get_extra_conf_path("soperator_metrics.conf")).
  std::string tmpl = (std::filesystem::temp_directory_path() /
                      "soperator-metrics-shim.XXXXXX").string();
  if (!mkdtemp(tmpl.data()))
    throw RuntimeError("cannot create a temporary directory: " +
                       std::string(std::strerror(errno)));
  dir_ = tmpl;
  WriteFile(dir_ + "/slurm.conf",
            "# Written by soperator-metrics-shim; not read by anyone: only its\n"
            "# directory matters, where the plugin finds soperator_metrics.conf.\n");
  std::string conf = extra_conf;
  if (!conf.empty() && conf.back() != '\n') conf += '\n';
  conf += "# soperator-metrics-shim: the plugin's own listeners, on loopback.\n";
  conf += "MetricsBindAddress=" + metrics_.str() + "\n";
  conf += "MonitoringBindAddress=" + monitoring_.str() + "\n";
  WriteFile(dir_ + "/soperator_metrics.conf", conf);
  setenv("SLURM_CONF", (dir_ + "/slurm.conf").c_str(), 1);

  // slurmctld: plugin_load_from_file() -> dlopen(RTLD_LAZY), _verify_syms().
  handle_ = dlopen(path_.c_str(), RTLD_LAZY);
  if (!handle_) throw RuntimeError(std::string("dlopen(") + path_ + "): " + dlerror());
  const auto* name = static_cast<const char*>(dlsym(handle_, "plugin_name"));
  const auto* type = static_cast<const char*>(dlsym(handle_, "plugin_type"));
  const auto* version = static_cast<const uint32_t*>(dlsym(handle_, "plugin_version"));
  if (!name || !type)
    throw RuntimeError(path_ + " is not a Slurm plugin: no plugin_name/plugin_type symbol");
  if (!version)
    throw RuntimeError(path_ + ": plugin_version symbol not found");
  type_ = type;
  const uint32_t mask = 0xffffff;
  if ((*version & mask) != (SlurmVersionNumber() & mask)) {
    char buf[256];
    snprintf(buf, sizeof buf,
             "Incompatible Slurm plugin %s version (%d.%02d.%d); this shim is built "
             "for Slurm %s and loads only plugins built for exactly that release",
             path_.c_str(), (*version >> 16) & 0xff, (*version >> 8) & 0xff,
             *version & 0xff, SlurmVersionString());
    throw RuntimeError(buf);
  }
  init_ = reinterpret_cast<int (*)()>(dlsym(handle_, "init"));
  fini_ = reinterpret_cast<int (*)()>(dlsym(handle_, "fini"));
  offline_ = reinterpret_cast<void (*)(double (*)(), int64_t (*)())>(
      dlsym(handle_, "soperator_metrics_offline"));
  collect_now_ = reinterpret_cast<int (*)()>(dlsym(handle_, "soperator_metrics_collect_now"));
  if (!offline_ || !collect_now_) {
    // The installed carriers export only what slurmctld calls; the shim
    // drives its own builds of them (shim/offline_hooks.cc).
    if (type_ == "job_submit/soperator" || type_ == "metrics/soperator") {
      const std::string base = type_ == "job_submit/soperator" ? "job_submit_soperator"
                                                              : "metrics_soperator";
      throw RuntimeError(path_ + " is the installed " + type_ +
                         " carrier, which exports only what slurmctld calls; the shim "
                         "drives its own build of it, " + base +
                         "_shim.so (shim/ in the build directory)");
    }
    throw RuntimeError(path_ + " (" + type_ +
                       ") has no soperator_metrics_offline/soperator_metrics_collect_now: "
                       "not a soperator-metrics plugin the shim can drive");
  }
  if (type_.rfind("metrics/", 0) == 0) {
    // plugin_context_create() resolves every symbol of the interface and
    // slurmctld dies when one is missing; refuse the same way.
    metrics_type_ = true;
    auto sym = [&](const char* n) {
      void* p = dlsym(handle_, n);
      if (!p)
        throw RuntimeError(path_ + ": missing " + n +
                           " (slurmctld: \"Plugin loading failed due to missing "
                           "symbols. Plugin is corrupted.\")");
      return p;
    };
    dump_ = reinterpret_cast<int (*)(void*, char**)>(sym("metrics_p_dump"));
    free_set_ = reinterpret_cast<int (*)(void*)>(sym("metrics_p_free_set"));
    parse_jobs_ = reinterpret_cast<void* (*)(void*)>(sym("metrics_p_parse_jobs_metrics"));
    parse_nodes_ = reinterpret_cast<void* (*)(void*)>(sym("metrics_p_parse_nodes_metrics"));
    parse_parts_ = reinterpret_cast<void* (*)(void*)>(sym("metrics_p_parse_parts_metrics"));
    parse_sched_ = reinterpret_cast<void* (*)(void*)>(sym("metrics_p_parse_sched_metrics"));
    parse_ua_ = reinterpret_cast<void* (*)(void*)>(sym("metrics_p_parse_ua_metrics"));
  }
  uintptr_t lo = 0, hi = 0;
  if (ObjectRange(const_cast<char*>(name), lo, hi)) VirtualizeTimeFor(lo, hi);
}

PluginHost::~PluginHost() {
  try {
    Fini();
  } catch (...) {
  }
  // RTLD_NODELETE in the plugin: dlclose() would not unload it anyway.
  if (!dir_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
}

void PluginHost::Init() {
  offline_(&VirtualClock::MonotonicFn, &VirtualClock::UnixFn);
  if (init_ && init_() != 0)
    throw RuntimeError(path_ + ": init() failed");
  initialised_ = true;
  // The listener binds in init(); if the port was taken it retries every 2 s.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (true) {
    const int fd = Connect(metrics_);
    if (fd >= 0) {
      close(fd);
      break;
    }
    if (std::chrono::steady_clock::now() > deadline)
      throw RuntimeError("the plugin's listener did not come up on " + metrics_.str() +
                         " (see the plugin's log above)");
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

void PluginHost::Collect() {
  if (collect_now_() != 0)
    throw RuntimeError("soperator_metrics_collect_now() failed (is the plugin running?)");
}

HttpResult PluginHost::ServeLikeSlurmctld(const std::string& path) {
  // src/slurmctld/http.c routes; slurmctld hands parse_* its statistics
  // struct, which our plugin ignores (it serves its own cache), so the
  // shim passes none.
  void* (*parse)(void*) = nullptr;
  if (path == "/metrics/jobs") parse = parse_jobs_;
  else if (path == "/metrics/nodes") parse = parse_nodes_;
  else if (path == "/metrics/partitions") parse = parse_parts_;
  else if (path == "/metrics/scheduler") parse = parse_sched_;
  else if (path == "/metrics/jobs-users-accts") parse = parse_ua_;
  HttpResult out;
  out.status = 200;
  out.content_type = "text/plain";  // MIME_TYPE_TEXT, what slurmctld sends
  void* set = parse(nullptr);
  if (!set) return out;  // metrics_serialize_struct(): NULL, empty 200
  char* buf = nullptr;
  dump_(set, &buf);  // return value ignored, as slurmctld does
  free_set_(set);
  if (buf) {
    out.body = buf;
    xfree(buf);  // Slurm's allocator checks its own header: a non-xmalloc
                 // buffer from the plugin fails here as in slurmctld
  }
  return out;
}

HttpResult PluginHost::Fetch(const std::string& path, bool openmetrics, bool gzip) {
  if (metrics_type_ && path.rfind("/metrics/", 0) == 0) return ServeLikeSlurmctld(path);
  const std::string accept =
      openmetrics ? "application/openmetrics-text;version=1.0.0,text/plain;q=0.5"
                  : "text/plain;version=0.0.4";
  if (path == "/monitoring" || path == "/monitoring/metrics")
    return HttpGet(monitoring_, "/metrics", accept, gzip);
  return HttpGet(metrics_, path, accept, gzip);
}

void PluginHost::Fini() {
  if (!initialised_) return;
  initialised_ = false;
  if (fini_) fini_();
}

}  // namespace shim
