// SPDX-License-Identifier: GPL-2.0-or-later
#include "http/parser.h"

#include <algorithm>
#include <cctype>
#include <utility>

#include "base/ascii.h"

namespace sm::http {
namespace {

bool IsTchar(unsigned char c) {
  if (std::isalnum(c)) return true;
  switch (c) {
    case '!': case '#': case '$': case '%': case '&': case '\'': case '*':
    case '+': case '-': case '.': case '^': case '_': case '`': case '|':
    case '~':
      return true;
    default:
      return false;
  }
}

bool IsToken(std::string_view s) {
  if (s.empty()) return false;
  for (unsigned char c : s) {
    if (!IsTchar(c)) return false;
  }
  return true;
}

bool IStartsWith(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && EqualsIgnoreCase(s.substr(0, prefix.size()), prefix);
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool PercentDecode(std::string_view in, std::string* out) {
  out->clear();
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] != '%') {
      out->push_back(in[i]);
      continue;
    }
    if (i + 2 >= in.size()) return false;
    const int hi = HexValue(in[i + 1]), lo = HexValue(in[i + 2]);
    if (hi < 0 || lo < 0 || (hi == 0 && lo == 0)) return false;  // no NUL
    out->push_back(static_cast<char>(hi * 16 + lo));
    i += 2;
  }
  return true;
}

// Request-target: origin-form "/p?q", absolute-form "http://h/p?q" (a
// proxy's form, which servers must accept: RFC 9112 section 3.2.2), or "*".
// RFC 3986 characters of a path and query: unreserved, sub-delims, ":@/?"
// and percent-escapes. No '#', quotes, '<', '>', brackets or controls.
bool IsUriChar(unsigned char c) {
  if (std::isalnum(c)) return true;
  switch (c) {
    case '-': case '.': case '_': case '~': case '!': case '$': case '&':
    case '\'': case '(': case ')': case '*': case '+': case ',': case ';':
    case '=': case ':': case '@': case '/': case '?': case '%':
      return true;
    default:
      return false;
  }
}

bool ParseTarget(std::string_view target, RequestHead* out) {
  for (unsigned char c : target) {
    // Brackets only for an IPv6 authority of the absolute form.
    if (!IsUriChar(c) && c != '[' && c != ']') return false;
  }
  if (target == "*") {
    out->asterisk = true;
    out->path.assign(1, '*');
    return true;
  }
  if (IStartsWith(target, "http://") || IStartsWith(target, "https://")) {
    target.remove_prefix(target.find("//") + 2);
    const size_t end = target.find_first_of("/?");
    if (end == 0 || target.empty()) return false;  // no authority
    target = end == std::string_view::npos ? std::string_view("/") : target.substr(end);
    if (target.front() == '?') return false;  // "http://h?q": path-abempty
  }
  if (target.find_first_of("[]") != std::string_view::npos) return false;
  if (target.empty() || target.front() != '/') return false;
  const size_t q = target.find('?');
  if (q != std::string_view::npos) out->query = std::string(target.substr(q + 1));
  return PercentDecode(target.substr(0, q), &out->path);
}

bool ParseRequestLine(std::string_view line, RequestHead* out, int* error) {
  *error = 400;
  const size_t sp1 = line.find(' ');
  if (sp1 == std::string_view::npos) return false;
  const size_t sp2 = line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos || line.find(' ', sp2 + 1) != std::string_view::npos)
    return false;
  const std::string_view method = line.substr(0, sp1);
  const std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  const std::string_view version = line.substr(sp2 + 1);
  if (!IsToken(method) || target.empty()) return false;
  if (version.size() != 8 || !version.starts_with("HTTP/") ||
      !std::isdigit(static_cast<unsigned char>(version[5])) || version[6] != '.' ||
      !std::isdigit(static_cast<unsigned char>(version[7])))
    return false;
  if (version[5] != '1') {
    *error = 505;
    return false;
  }
  out->minor_version = version[7] == '0' ? 0 : 1;  // 1.2 and later speak 1.1
  out->method = std::string(method);
  if (!ParseTarget(target, out)) return false;
  return !out->asterisk || out->method == "OPTIONS";
}

bool ParseContentLength(std::string_view v, uint64_t* n) {
  if (v.empty() || v.size() > 18) return false;
  *n = 0;
  for (char c : v) {
    if (c < '0' || c > '9') return false;
    *n = *n * 10 + static_cast<uint64_t>(c - '0');
  }
  return true;
}

void Append(std::string& joined, std::string_view value) {
  if (!joined.empty()) joined += ", ";
  joined += value;
}

bool ParseField(std::string_view line, RequestHead* out) {
  const size_t colon = line.find(':');
  if (colon == std::string_view::npos) return false;
  const std::string_view name = line.substr(0, colon);
  if (!IsToken(name)) return false;  // also "Name :" (RFC 9112 section 5.1)
  const std::string_view value = TrimOws(line.substr(colon + 1));
  for (unsigned char c : value) {
    if ((c < 0x20 && c != '\t') || c == 0x7f) return false;
  }
  if (EqualsIgnoreCase(name, "Host")) {
    if (out->has_host) return false;
    out->has_host = true;
    out->host = std::string(value);
  } else if (EqualsIgnoreCase(name, "Accept")) {
    Append(out->accept, value);
  } else if (EqualsIgnoreCase(name, "Accept-Encoding")) {
    Append(out->accept_encoding, value);
  } else if (EqualsIgnoreCase(name, "Authorization")) {
    if (out->has_authorization) return false;
    out->has_authorization = true;
    out->authorization = std::string(value);
  } else if (EqualsIgnoreCase(name, "Content-Length")) {
    // A list of identical values is one value (RFC 9110 section 8.6).
    std::string_view rest = value;
    while (true) {
      const size_t comma = rest.find(',');
      uint64_t n;
      if (!ParseContentLength(TrimOws(rest.substr(0, comma)), &n)) return false;
      if (out->content_length && *out->content_length != n) return false;
      out->content_length = n;
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
  } else if (EqualsIgnoreCase(name, "Transfer-Encoding")) {
    out->transfer_encoding = true;
  } else if (EqualsIgnoreCase(name, "Connection")) {
    std::string_view rest = value;
    while (true) {
      const size_t comma = rest.find(',');
      if (EqualsIgnoreCase(TrimOws(rest.substr(0, comma)), "close")) out->connection_close = true;
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
  }
  return true;
}

}  // namespace

ParseResult HeadParser::Finish(ParseResult::Status status, int error) {
  result_.status = status;
  result_.error = error;
  if (status == ParseResult::kComplete) result_.consumed = pos_;
  return result_;
}

// One line of the head, CR LF stripped. kIncomplete: go on; kComplete at
// the blank line that ends the head.
ParseResult HeadParser::Line(std::string_view line) {
  steps_ += line.size();
  if (line.find('\r') != std::string_view::npos) return Finish(ParseResult::kError, 400);
  if (!have_request_line_) {
    if (line.empty()) return result_;  // stray CRLF before a request: ignored
    int error;
    if (!ParseRequestLine(line, &head_, &error)) return Finish(ParseResult::kError, error);
    have_request_line_ = true;
    return result_;
  }
  if (line.empty()) {
    const bool bad_framing = head_.transfer_encoding && head_.content_length;
    const bool missing_host = head_.minor_version == 1 && !head_.has_host;
    if (bad_framing || missing_host) return Finish(ParseResult::kError, 400);
    return Finish(ParseResult::kComplete, 0);
  }
  if (++fields_ > kMaxHeaderFields) return Finish(ParseResult::kError, 431);
  // Obsolete line folding (a line starting with white space) is refused.
  if (line.front() == ' ' || line.front() == '\t' || !ParseField(line, &head_))
    return Finish(ParseResult::kError, 400);
  return result_;
}

ParseResult HeadParser::Feed(std::string_view buffer) {
  if (result_.status != ParseResult::kIncomplete) return result_;
  const std::string_view window = buffer.substr(0, kMaxHeadBytes);
  while (true) {
    const size_t from = std::max(pos_, scan_);
    const size_t nl = window.find('\n', from);
    if (nl == std::string_view::npos) {
      steps_ += window.size() - std::min(from, window.size());
      scan_ = std::max(from, window.size());
      if (buffer.size() >= kMaxHeadBytes) return Finish(ParseResult::kError, 431);
      return result_;  // kIncomplete
    }
    steps_ += nl + 1 - from;
    std::string_view line = window.substr(pos_, nl - pos_);
    pos_ = scan_ = nl + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const ParseResult r = Line(line);
    if (r.status != ParseResult::kIncomplete) return r;
  }
}

ParseResult ParseRequestHead(std::string_view buffer, RequestHead* out) {
  HeadParser parser;
  const ParseResult r = parser.Feed(buffer);
  *out = std::move(parser.head());
  return r;
}

}  // namespace sm::http
