// SPDX-License-Identifier: GPL-2.0-or-later
// The listener's request head parser: forms of request-target, framing,
// and the malformed and oversized heads it must refuse.
#include <gtest/gtest.h>

#include "http/parser.h"

namespace sm::http {
namespace {

struct Parsed {
  ParseResult result;
  RequestHead head;
};

Parsed Parse(std::string_view text) {
  Parsed p;
  p.result = ParseRequestHead(text, &p.head);
  return p;
}

int Error(std::string_view text) {
  const Parsed p = Parse(text);
  return p.result.status == ParseResult::kError ? p.result.error : 0;
}

TEST(HttpParser, OriginForm) {
  const std::string req =
      "GET /metrics/nodes?x=1&y=%41 HTTP/1.1\r\nHost: h\r\n"
      "Accept: text/plain\r\naccept: application/openmetrics-text;q=0.5\r\n"
      "Accept-Encoding: gzip\r\nAuthorization: Basic dTpw\r\n\r\nNEXT";
  const Parsed p = Parse(req);
  ASSERT_EQ(p.result.status, ParseResult::kComplete);
  EXPECT_EQ(p.result.consumed, req.size() - 4);
  EXPECT_EQ(p.head.method, "GET");
  EXPECT_EQ(p.head.path, "/metrics/nodes");
  EXPECT_EQ(p.head.query, "x=1&y=%41");
  EXPECT_EQ(p.head.host, "h");
  EXPECT_EQ(p.head.accept, "text/plain, application/openmetrics-text;q=0.5");
  EXPECT_EQ(p.head.accept_encoding, "gzip");
  EXPECT_EQ(p.head.authorization, "Basic dTpw");
  EXPECT_TRUE(p.head.KeepAlive());
  EXPECT_FALSE(p.head.HasBody());
}

TEST(HttpParser, AbsoluteFormAndAsterisk) {
  Parsed p = Parse("GET http://127.0.0.1:8080/metrics?a HTTP/1.1\r\nHost: x\r\n\r\n");
  ASSERT_EQ(p.result.status, ParseResult::kComplete);
  EXPECT_EQ(p.head.path, "/metrics");
  EXPECT_EQ(p.head.query, "a");
  p = Parse("GET HTTPS://[::1]:8080 HTTP/1.1\r\nHost: x\r\n\r\n");
  ASSERT_EQ(p.result.status, ParseResult::kComplete);
  EXPECT_EQ(p.head.path, "/");
  p = Parse("OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n");
  ASSERT_EQ(p.result.status, ParseResult::kComplete);
  EXPECT_TRUE(p.head.asterisk);
  EXPECT_EQ(p.head.method, "OPTIONS");
  EXPECT_EQ(Error("GET * HTTP/1.1\r\nHost: x\r\n\r\n"), 400);
  EXPECT_EQ(Error("GET http:///metrics HTTP/1.1\r\nHost: x\r\n\r\n"), 400);
  EXPECT_EQ(Error("GET ftp://h/metrics HTTP/1.1\r\nHost: x\r\n\r\n"), 400);
  EXPECT_EQ(Error("CONNECT h:443 HTTP/1.1\r\nHost: x\r\n\r\n"), 400);
}

TEST(HttpParser, VersionsAndConnection) {
  Parsed p = Parse("GET / HTTP/1.0\r\n\r\n");  // 1.0 needs no Host
  ASSERT_EQ(p.result.status, ParseResult::kComplete);
  EXPECT_EQ(p.head.minor_version, 0);
  EXPECT_FALSE(p.head.KeepAlive());
  p = Parse("GET / HTTP/1.1\r\nHost: x\r\nConnection: keep-alive, Close\r\n\r\n");
  EXPECT_FALSE(p.head.KeepAlive());
  p = Parse("GET / HTTP/1.9\r\nHost: x\r\n\r\n");
  ASSERT_EQ(p.result.status, ParseResult::kComplete);
  EXPECT_EQ(p.head.minor_version, 1);
  EXPECT_EQ(Error("GET / HTTP/2.0\r\n\r\n"), 505);
  EXPECT_EQ(Error("GET / HTTP/1.1\r\n\r\n"), 400);  // no Host
  EXPECT_EQ(Error("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n"), 400);
  // Bare LF line ends are tolerated; leading blank lines are skipped.
  p = Parse("\r\n\nGET /x HTTP/1.1\nHost: x\n\n");
  ASSERT_EQ(p.result.status, ParseResult::kComplete);
  EXPECT_EQ(p.head.path, "/x");
}

TEST(HttpParser, Incomplete) {
  EXPECT_EQ(Parse("").result.status, ParseResult::kIncomplete);
  EXPECT_EQ(Parse("GET /metrics HTTP/1.1\r\nHost: x\r\n").result.status,
            ParseResult::kIncomplete);
  EXPECT_EQ(Parse("GET /metr").result.status, ParseResult::kIncomplete);
}

TEST(HttpParser, Malformed) {
  for (const char* bad : {
           "GET\r\n\r\n",
           "GET /metrics\r\n\r\n",                      // HTTP/0.9
           "GET  /metrics HTTP/1.1\r\nHost: x\r\n\r\n",  // two spaces
           "GET /metrics HTTP/1.1 \r\nHost: x\r\n\r\n",
           "G(T /metrics HTTP/1.1\r\nHost: x\r\n\r\n",
           "GET metrics HTTP/1.1\r\nHost: x\r\n\r\n",
           "GET /met rics HTTP/1.1\r\nHost: x\r\n\r\n",
           "GET /m\x01 HTTP/1.1\r\nHost: x\r\n\r\n",
           "GET /m\xff HTTP/1.1\r\nHost: x\r\n\r\n",
           "GET /m#frag HTTP/1.1\r\nHost: x\r\n\r\n",
           "GET /x<script> HTTP/1.1\r\nHost: x\r\n\r\n",
           "GET /x?a[]=1 HTTP/1.1\r\nHost: x\r\n\r\n",
           "GET /x\"y HTTP/1.1\r\nHost: x\r\n\r\n",
           "GET /m%zz HTTP/1.1\r\nHost: x\r\n\r\n",
           "GET /m% HTTP/1.1\r\nHost: x\r\n\r\n",
           "GET /m%00 HTTP/1.1\r\nHost: x\r\n\r\n",
           "GET / http/1.1\r\nHost: x\r\n\r\n",
           "GET / HTTP/1.1x\r\nHost: x\r\n\r\n",
           "GET / HTTP/1.1\r\nHost : x\r\n\r\n",         // space before colon
           "GET / HTTP/1.1\r\nHost: x\r\n folded\r\n\r\n",
           "GET / HTTP/1.1\r\nHost: x\r\nNoColon\r\n\r\n",
           "GET / HTTP/1.1\r\nHost: x\rX: y\r\n\r\n",    // bare CR
           "GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n"
           "Transfer-Encoding: chunked\r\n\r\n",
           "GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 1, 2\r\n\r\n",
           "GET / HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n",
           "GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999\r\n\r\n",
           "GET / HTTP/1.1\r\nHost: x\r\nAuthorization: a\r\nAuthorization: b\r\n\r\n",
           "\x16\x03\x01\x02\x10\x01 TLS hello\r\n\r\n",
       }) {
    EXPECT_EQ(Error(bad), 400) << bad;
  }
  // An embedded NUL (strlen would stop at it).
  static constexpr char kNul[] = "GET / HTTP/1.1\r\nHost: x\r\nX: a\0b\r\n\r\n";
  const std::string nul(kNul, sizeof kNul - 1);
  EXPECT_EQ(Error(nul), 400);
}

TEST(HttpParser, Bodies) {
  Parsed p = Parse("POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 5, 5\r\n\r\n");
  ASSERT_EQ(p.result.status, ParseResult::kComplete);
  EXPECT_EQ(p.head.content_length, 5u);
  EXPECT_TRUE(p.head.HasBody());
  p = Parse("POST /metrics HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n");
  EXPECT_TRUE(p.head.HasBody());
}

TEST(HttpParser, Oversize) {
  const std::string big = "GET /metrics?" + std::string(20000, 'a') + " HTTP/1.1\r\n";
  EXPECT_EQ(Error(big), 431);
  // Still incomplete below the limit, an error at it.
  std::string head = "GET / HTTP/1.1\r\nHost: x\r\nX: " + std::string(kMaxHeadBytes - 40, 'b');
  EXPECT_EQ(Parse(head).result.status, ParseResult::kIncomplete);
  head += std::string(100, 'b');
  EXPECT_EQ(Error(head), 431);
  std::string many = "GET / HTTP/1.1\r\nHost: x\r\n";
  for (size_t i = 0; i <= kMaxHeaderFields; ++i) many += "A: b\r\n";
  EXPECT_EQ(Error(many + "\r\n"), 431);
}

// The biggest head we accept: 100 fields filling the 8 KiB limit.
std::string MaxSizeHead() {
  std::string head = "GET /metrics HTTP/1.1\r\nHost: x\r\n";
  const size_t per_field = (kMaxHeadBytes - head.size() - 2) / (kMaxHeaderFields - 1);
  for (size_t i = 0; i + 1 < kMaxHeaderFields; ++i) {
    std::string field = "X-F" + std::to_string(i) + ": ";
    field += std::string(per_field - field.size() - 2, 'v') + "\r\n";
    head += field;
  }
  return head + "\r\n";
}

// The listener feeds the parser all bytes so far after every read; a head
// sent a byte at a time must cost linear work, not a rescan per byte.
TEST(HttpParser, OneByteSegmentsCostLinearWork) {
  const std::string head = MaxSizeHead();
  ASSERT_GT(head.size(), kMaxHeadBytes - 200);
  ASSERT_LE(head.size(), kMaxHeadBytes);
  HeadParser parser;
  ParseResult r;
  for (size_t n = 1; n <= head.size(); ++n) {
    r = parser.Feed(std::string_view(head).substr(0, n));
    if (n < head.size()) {
      ASSERT_EQ(r.status, ParseResult::kIncomplete) << n;
    }
  }
  ASSERT_EQ(r.status, ParseResult::kComplete);
  EXPECT_EQ(r.consumed, head.size());
  EXPECT_EQ(parser.head().path, "/metrics");
  // Each byte is searched once for a line end and parsed once in its line.
  EXPECT_LE(parser.steps(), 2 * head.size());
}

// Fed at every split point, the parser gives the verdict of one call.
TEST(HttpParser, SegmentedEqualsWhole) {
  for (const std::string& text :
       {std::string("GET /a?b HTTP/1.1\r\nHost: x\r\nAccept: t\r\n\r\nGET /next"),
        std::string("\r\nGET / HTTP/1.0\r\n\r\n"), std::string("GET / HTTP/1.1\r\n X: y\r\n\r\n"),
        std::string("GET / HTTP/2.0\r\n\r\n")}) {
    const Parsed whole = Parse(text);
    for (size_t split = 0; split <= text.size(); ++split) {
      HeadParser parser;
      parser.Feed(std::string_view(text).substr(0, split));
      const ParseResult r = parser.Feed(text);
      EXPECT_EQ(r.status, whole.result.status) << split;
      EXPECT_EQ(r.error, whole.result.error) << split;
      EXPECT_EQ(r.consumed, whole.result.consumed) << split;
      EXPECT_EQ(parser.head().path, whole.head.path) << split;
    }
  }
}

}  // namespace
}  // namespace sm::http
