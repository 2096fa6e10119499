// SPDX-License-Identifier: GPL-2.0-or-later
#include "slurmctld_router_driver.h"

#include <dlfcn.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <istream>
#include <mutex>
#include <string_view>
#include <nlohmann/json.hpp>
#include <ostream>
#include <thread>
#include <vector>

#include "input.h"
#include "plugin_host.h"

namespace shim {
namespace {

using json = nlohmann::json;

void* g_standin = nullptr;

void* Sym(const char* name) {
  void* p = dlsym(g_standin, name);
  if (!p) throw RuntimeError(std::string("slurmctld stand-in: no ") + name);
  return p;
}

// {"standby": false, "rule": "open"|"unauthorized"|"authenticate",
//  "auth_users": null|"a,b", "http": true, "primary": "ctl1"|null,
//  "port": 6817, "slurm_user_id": 0}
void Configure(const json& c) {
  using Fn = void (*)(int, int, const char*, int, const char*, uint16_t, uint32_t);
  static const auto configure = reinterpret_cast<Fn>(Sym("sm_standin_configure"));
  const std::string rule = c.value("rule", "open");
  const int r = rule == "open"           ? 0
                : rule == "unauthorized" ? 1
                : rule == "authenticate" ? 2
                                         : -1;
  if (r < 0) throw InputError("slurmctld: unknown rule \"" + rule + "\"");
  const std::string users = c.contains("auth_users") && c["auth_users"].is_string()
                                ? c["auth_users"].get<std::string>()
                                : "";
  const std::string primary = c.contains("primary") && c["primary"].is_string()
                                  ? c["primary"].get<std::string>()
                                  : "";
  configure(c.value("standby", false) ? 1 : 0, r,
            c.contains("auth_users") && c["auth_users"].is_string() ? users.c_str() : nullptr,
            c.value("http", true) ? 1 : 0, primary.empty() ? nullptr : primary.c_str(),
            c.value("port", uint16_t{6817}), c.value("slurm_user_id", uint32_t{0}));
}

std::string Hex(std::string_view bytes) {
  static const char kHex[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(bytes.size() * 2);
  for (const char c : bytes) {
    const auto b = static_cast<unsigned char>(c);
    hex += kHex[b >> 4];
    hex += kHex[b & 15];
  }
  return hex;
}

// slurmctld's own /metrics/<group> handler: the metrics interface through
// PluginHost, which sends 200 with whatever dump left (src/slurmctld/http.c,
// _send_metrics_resp).
json SlurmctldOwnPath(const json& r, PluginHost& host) {
  const HttpResult res = host.Fetch(r.at("slurmctld_path").get<std::string>(), false);
  std::string wire = "HTTP/1.1 " + std::to_string(res.status) + "\r\n";
  wire += "Connection: Close\r\n";
  if (!res.body.empty()) {
    wire += "Content-Length: " + std::to_string(res.body.size()) + "\r\n";
    wire += "Content-Type: " + res.content_type + "\r\n";
  }
  wire += "\r\n" + res.body;
  return {{"bound", true}, {"rc", 0}, {"wire_hex", Hex(wire)}};
}

json Request(const json& r) {
  using Fn = char* (*)(const char*, const char*, const char*, int, const char* const*, int*,
                       size_t*);
  static const auto request = reinterpret_cast<Fn>(Sym("sm_standin_request"));
  const std::string method = r.value("method", "GET");
  const std::string path = r.at("path").get<std::string>();
  const std::string query = r.value("query", "");
  std::vector<std::string> kv;
  for (const auto& h : r.value("headers", json::array())) {
    kv.push_back(h.at(0).get<std::string>());
    kv.push_back(h.at(1).get<std::string>());
  }
  std::vector<const char*> ptrs;
  for (const auto& s : kv) ptrs.push_back(s.c_str());
  ptrs.push_back(nullptr);
  int rc = 0;
  size_t len = 0;
  char* wire = request(method.c_str(), path.c_str(), query.c_str(),
                       r.value("https", false) ? 1 : 0, ptrs.data(), &rc, &len);
  json out = {{"bound", wire != nullptr}, {"rc", rc}};
  if (wire) {
    out["wire_hex"] = Hex(std::string_view(wire, len));
    free(wire);
  }
  return out;
}

}  // namespace

void LoadSlurmctldStandin(const std::string& path, const std::string& first_line) {
  g_standin = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (!g_standin) throw RuntimeError("dlopen(" + path + "): " + dlerror());
  const json first = json::parse(first_line, nullptr, false);
  if (first.is_object() && first.contains("configure")) Configure(first["configure"]);
}

void ServeSlurmctldRequests(std::istream& in, std::ostream& out, PluginHost& host) {
  // Requests with "background": true run on their own thread (as on one of
  // slurmctld's conmgr workers); their answers follow the "release" line.
  std::vector<std::thread> background;
  std::vector<json> background_out;
  std::mutex background_mu;
  const auto join = [&] {
    for (std::thread& t : background) t.join();
    background.clear();
    for (const json& j : background_out) out << j.dump() << "\n";
    background_out.clear();
  };
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    const json j = json::parse(line, nullptr, false);
    if (!j.is_object()) throw InputError("slurmctld: not a JSON object: " + line);
    if (j.contains("configure")) {
      Configure(j["configure"]);
      continue;
    }
    if (j.contains("collect")) {
      host.Collect();
      continue;
    }
    if (j.contains("wait_held")) {
      using Fn = int (*)(int);
      static const auto wait_held = reinterpret_cast<Fn>(Sym("sm_standin_wait_held"));
      if (!wait_held(10000)) throw RuntimeError("slurmctld: no request held after 10 s");
      continue;
    }
    if (j.contains("fini")) {
      const auto t0 = std::chrono::steady_clock::now();
      host.Fini();
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      out << json{{"fini_seconds", s}}.dump() << "\n";
      continue;
    }
    if (j.contains("release")) {
      using Fn = void (*)();
      static const auto release = reinterpret_cast<Fn>(Sym("sm_standin_release"));
      release();
      join();
      continue;
    }
    if (j.contains("slurmctld_path")) {
      out << SlurmctldOwnPath(j, host).dump() << "\n";
      continue;
    }
    if (j.value("background", false)) {
      background.emplace_back([&, j] {
        json r = Request(j);
        std::lock_guard lock(background_mu);
        background_out.push_back(std::move(r));
      });
      continue;
    }
    out << Request(j).dump() << "\n";
  }
  join();
  out.flush();
}

}  // namespace shim
