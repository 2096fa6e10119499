// SPDX-License-Identifier: GPL-2.0-or-later
// JSON text to a tree (raw bytes kept, nesting bounded, errors with line
// and column), whole files, warnings and JSON paths (input.h).
#include "input.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>

#include "input_reader.h"
#include "base/utf8.h"

namespace shim {
namespace {

constexpr int kWarningsShownPerKind = 3;

std::map<std::string, int>& WarningCounts() {
  static std::map<std::string, int> counts;
  return counts;
}

// ---- Raw bytes through nlohmann's UTF-8 checks -----------------------------
//
// nlohmann rejects strings that are not UTF-8, but Slurm prints node reasons,
// comments and job names byte for byte. Every byte that is not part of a
// valid UTF-8 sequence is carried through parsing as the private-use code
// point U+10FF00+byte (always 0x80-0xFF, so U+10FF80-U+10FFFF) and turned back
// into that byte by Decode(). Genuine U+10FF80-U+10FFFF characters in a dump
// would come out as raw bytes too; they are non-characters and private use.

void AppendEscapedByte(std::string& out, unsigned char b) {
  const uint32_t cp = 0x10FF00u + b;
  out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
  out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
  out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
  out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
}

// nullptr when the text is valid UTF-8 already.
std::unique_ptr<std::string> EscapeInvalidUtf8(const std::string& text) {
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const size_t n = text.size();
  size_t i = 0;
  while (i < n) {
    if (p[i] < 0x80) {
      ++i;
      continue;
    }
    const size_t len = sm::Utf8SequenceLength(text, i);
    if (len == 0) break;
    i += len;
  }
  if (i == n) return nullptr;
  auto out = std::make_unique<std::string>(text.substr(0, i));
  out->reserve(n + 64);
  while (i < n) {
    if (p[i] < 0x80) {
      out->push_back(static_cast<char>(p[i++]));
      continue;
    }
    const size_t len = sm::Utf8SequenceLength(text, i);
    if (len == 0) {
      AppendEscapedByte(*out, p[i++]);
    } else {
      out->append(text, i, len);
      i += len;
    }
  }
  return out;
}


std::string LineColumn(const std::string& src, size_t byte) {
  if (byte > src.size()) byte = src.size();
  size_t line = 1, col = 1;
  for (size_t i = 0; i < byte; ++i) {
    if (src[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(col);
}

// Slurm's dumps nest about ten levels deep. The parser itself is
// iterative, but what reads the tree afterwards recurses (dump() of an
// error response, FlattenValues()): 100 000 nested arrays overflowed the
// stack.
constexpr int kMaxJsonDepth = 64;

// `callback` may be empty.
json Parse(const std::string& text, const std::string& file,
           const json::parser_callback_t& callback) {
  std::unique_ptr<std::string> escaped = EscapeInvalidUtf8(text);
  const std::string& src = escaped ? *escaped : text;
  const json::parser_callback_t bounded = [&](int depth, json::parse_event_t event,
                                              json& parsed) {
    if ((event == json::parse_event_t::object_start ||
         event == json::parse_event_t::array_start) &&
        depth >= kMaxJsonDepth)
      throw InputError(file + ": JSON nested more than " +
                       std::to_string(kMaxJsonDepth) +
                       " levels deep; Slurm's dumps nest about ten");
    return callback ? callback(depth, event, parsed) : true;
  };
  try {
    return json::parse(src, bounded);
  } catch (const json::parse_error& e) {
    std::string what = e.what();
    if (const size_t p = what.find("syntax error"); p != std::string::npos)
      what = what.substr(p);
    throw InputError(file + ": not valid JSON (" +
                     LineColumn(src, e.byte > 0 ? e.byte - 1 : 0) + "): " + what);
  }
}

}  // namespace

namespace reader {

std::string Decode(const std::string& s) {
  if (s.find('\xF4') == std::string::npos) return s;
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == 0xF4 && i + 3 < s.size() &&
        static_cast<unsigned char>(s[i + 1]) == 0x8F &&
        (static_cast<unsigned char>(s[i + 2]) & 0xFE) == 0xBE) {
      const uint32_t cp = 0x100000u | (0x0Fu << 12) |
                          ((static_cast<unsigned char>(s[i + 2]) & 0x3Fu) << 6) |
                          (static_cast<unsigned char>(s[i + 3]) & 0x3Fu);
      out.push_back(static_cast<char>(cp - 0x10FF00u));
      i += 3;
      continue;
    }
    out.push_back(s[i]);
  }
  return out;
}

json ParseBounded(const std::string& text, const std::string& file,
                  const json::parser_callback_t& callback) {
  return Parse(text, file, callback);
}

}  // namespace reader

void Warn(const char* kind, const std::string& message) {
  if (++WarningCounts()[kind] <= kWarningsShownPerKind)
    std::cerr << "soperator-metrics-shim: warning: " << message << "\n";
}

void FlushWarnings() {
  for (const auto& [kind, count] : WarningCounts()) {
    if (count > kWarningsShownPerKind)
      std::cerr << "soperator-metrics-shim: warning: " << count - kWarningsShownPerKind
                << " more warnings of kind \"" << kind << "\" not shown\n";
  }
  WarningCounts().clear();
}

At At::Key(std::string_view k) const {
  At a = *this;
  a.path += ".";
  a.path += k;
  return a;
}

At At::Index(size_t i) const {
  At a = *this;
  a.path += "[" + std::to_string(i) + "]";
  return a;
}

std::string At::str() const {
  return file + ": " + (path.empty() ? std::string("(document)") : path);
}

std::string ReadWholeFile(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    throw InputError(path + ": is a directory; expected a file");
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw InputError(path + ": cannot read: " + std::strerror(errno));
  std::ostringstream s;
  s << in.rdbuf();
  if (in.bad()) throw InputError(path + ": read error");
  return s.str();
}

json ParseJsonText(const std::string& text, const std::string& file) {
  return Parse(text, file, nullptr);
}

}  // namespace shim
