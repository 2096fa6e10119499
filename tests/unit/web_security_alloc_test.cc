// SPDX-License-Identifier: GPL-2.0-or-later
// Out of memory at every allocation, one at a time, inside the web config's
// entry points that slurmctld's threads call (web_config.h, web_security.h):
// none may let an exception out, since one would std::terminate slurmctld.
// Its own executable: it replaces the global operator new.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <new>
#include <string>

#include "http/web_config.h"
#include "http/web_security.h"

namespace {
// >= 0: the allocation that many allocations from now throws bad_alloc.
thread_local long g_fail_in = -1;
thread_local bool g_failed = false;
}  // namespace

void* operator new(std::size_t n) {
  if (g_fail_in >= 0 && g_fail_in-- == 0) {
    g_failed = true;
    throw std::bad_alloc();
  }
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace sm {
namespace {

// Calls fn(arm) for n = 0, 1, ... where arm() makes the n-th allocation
// from then on fail (fn arms just before the call under test, so its own
// allocations are not counted), until fn runs through without reaching it.
// Returns the count.
template <typename Fn>
int EveryAllocationFails(Fn fn) {
  int n = 0;
  for (; n < 100000; ++n) {
    g_failed = false;
    bool threw = false;
    try {
      fn([n] { g_fail_in = n; });
    } catch (...) {
      threw = true;
    }
    g_fail_in = -1;
    EXPECT_FALSE(threw) << "an exception escaped with allocation " << n << " failing";
    if (threw || !g_failed) break;
  }
  return n;
}

constexpr const char* kConfig =
    "basic_auth_users:\n"
    "  alice: $2b$04$RI599b7asjmCyS4F5O42gO1rM/DZdBFRR9o6LLRGwFom9/TCGlW.i\n"
    "http_server_config:\n"
    "  headers:\n"
    "    X-Frame-Options: deny\n"
    "rate_limit:\n"
    "  interval: 1ms\n"
    "  burst: 1000000\n";

std::string WriteConfig() {
  char dir[] = "/tmp/sm-websec-alloc-XXXXXX";
  if (!mkdtemp(dir)) return "";
  const std::string path = std::string(dir) + "/web.yml";
  std::ofstream(path) << kConfig;
  return path;
}

TEST(WebSecurityOutOfMemory, ParseWebConfig) {
  const int n = EveryAllocationFails([](auto arm) {
    std::string error;
    arm();
    const auto c = ParseWebConfig(kConfig, "/d", &error);
    g_fail_in = -1;
    if (!c) {
      EXPECT_FALSE(error.empty());
    }
  });
  EXPECT_GT(n, 10);
}

TEST(WebSecurityOutOfMemory, Load) {
  const std::string path = WriteConfig();
  ASSERT_FALSE(path.empty());
  const int n = EveryAllocationFails([&](auto arm) {
    std::string error;
    arm();
    const auto s = WebSecurity::Load(path, &error);
    g_fail_in = -1;
    if (!s) {
      EXPECT_FALSE(error.empty());
    }
  });
  EXPECT_GT(n, 10);
  unlink(path.c_str());
}

TEST(WebSecurityOutOfMemory, AuthorizeAndHeaders) {
  const std::string path = WriteConfig();
  std::string error;
  const auto s = WebSecurity::Load(path, &error);
  ASSERT_TRUE(s) << error;
  // "alice:pw" and a wrong password, each first unchecked then cached.
  for (const char* auth : {"Basic YWxpY2U6cHc=", "Basic YWxpY2U6cHc=", "Basic YWxpY2U6eA==",
                           "Basic YWxpY2U6eA=="}) {
    const int n = EveryAllocationFails([&](auto arm) {
      HttpRequest req;
      req.peer = "192.0.2.1";
      std::string user;
      std::optional<HttpResponse> refused;
      arm();
      refused = s->Authorize(auth, &req, &user);
      g_fail_in = -1;
    });
    EXPECT_GT(n, 0) << auth;
  }
  const int headers = EveryAllocationFails([&](auto arm) {
    HttpResponse r;
    arm();
    s->AddHeaders(r);
    g_fail_in = -1;
  });
  EXPECT_GT(headers, 0);
  // And the bcrypt budget came back every time: a new password is checked.
  HttpRequest req;
  req.peer = "192.0.2.1";
  std::string user;
  const auto refused = s->Authorize("Basic YWxpY2U6eXk=", &req, &user);
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 401);
  unlink(path.c_str());
}

}  // namespace
}  // namespace sm
