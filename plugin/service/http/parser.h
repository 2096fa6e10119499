// SPDX-License-Identifier: GPL-2.0-or-later
// The HTTP/1.x request head parser of our listener: request line and header
// fields (RFC 9112), strict where leniency lets a request mean two things,
// and nothing more than the listener needs. Pure: bytes in, a verdict out,
// so it is unit-tested and fuzzed on its own (tests/fuzz/).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace sm::http {

// Requests are small: the whole head (request line and fields) must fit.
inline constexpr size_t kMaxHeadBytes = 8192;
inline constexpr size_t kMaxHeaderFields = 100;

struct RequestHead {
  std::string method;
  std::string path;   // percent-decoded; "*" for `OPTIONS *`
  std::string query;  // raw, without the '?'
  int minor_version = 1;  // HTTP/1.0 or HTTP/1.1
  bool asterisk = false;  // the asterisk-form target of `OPTIONS *`
  // The fields the listener uses; repeated Accept/Accept-Encoding fields
  // are joined with ", " as RFC 9110 section 5.3 allows.
  std::string host;
  bool has_host = false;  // HTTP/1.1 requires one (RFC 9112 section 3.2)
  std::string accept;
  std::string accept_encoding;
  std::string authorization;
  bool has_authorization = false;
  bool connection_close = false;
  std::optional<uint64_t> content_length;
  bool transfer_encoding = false;

  // Whether the connection may carry another request after this one.
  bool KeepAlive() const { return minor_version == 1 && !connection_close; }
  bool HasBody() const {
    return transfer_encoding || (content_length && *content_length > 0);
  }
};

struct ParseResult {
  enum Status { kIncomplete, kComplete, kError } status = kIncomplete;
  // kError: the status code to answer (400, 431 or 505).
  int error = 0;
  // kComplete: the head's length in the buffer, blank line included.
  size_t consumed = 0;
};

// Parses a head as its bytes arrive: each Feed resumes at the first line
// it has not finished, so a head sent a byte at a time costs work linear in
// its length, not quadratic (tests/unit/http_parser_test.cc counts steps).
class HeadParser {
 public:
  // `buffer` holds every byte received since the head began: what the last
  // call saw, plus more. kIncomplete means "read more" (never once
  // kMaxHeadBytes are buffered: that is an error, 431). After kComplete or
  // kError the same result comes back until Reset().
  ParseResult Feed(std::string_view buffer);
  RequestHead& head() { return head_; }
  // Ready for the next head (the caller drops the consumed bytes first).
  void Reset() { *this = HeadParser(); }
  // Bytes looked at so far: the measure of work the tests bound.
  size_t steps() const { return steps_; }

 private:
  ParseResult Finish(ParseResult::Status status, int error);
  ParseResult Line(std::string_view line);

  RequestHead head_;
  size_t pos_ = 0;   // start of the first line not parsed yet
  size_t scan_ = 0;  // bytes already searched for the end of that line
  bool have_request_line_ = false;
  size_t fields_ = 0;
  size_t steps_ = 0;
  ParseResult result_;
};

// Parses the head at the start of `buffer` in one go (HeadParser::Feed on
// a fresh parser).
ParseResult ParseRequestHead(std::string_view buffer, RequestHead* out);

}  // namespace sm::http
