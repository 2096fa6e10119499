// SPDX-License-Identifier: GPL-2.0-or-later
#include "exposition/negotiation.h"

#include <array>
#include <cctype>

#include "base/ascii.h"

namespace sm {
namespace {

struct Param {
  std::string_view name;
  std::string_view value;  // quotes stripped
};

// One list element: `value *( OWS ";" OWS name "=" value )`. Parameters
// past the array's size are ignored (no media range we serve needs them).
struct Element {
  std::string_view value;
  std::array<Param, 8> params;
  size_t param_count = 0;

  // The weight in thousandths: 1000 when absent, -1 when malformed.
  int Weight() const {
    for (size_t i = 0; i < param_count; ++i) {
      if (EqualsIgnoreCase(params[i].name, "q")) return ParseQValue(params[i].value);
    }
    return 1000;
  }
  std::string_view Get(std::string_view name) const {
    for (size_t i = 0; i < param_count; ++i) {
      if (EqualsIgnoreCase(params[i].name, name)) return params[i].value;
    }
    return {};
  }
};

// Where the next unquoted `stop` character is (or s.size()): quoted strings
// (with backslash escapes) may contain commas and semicolons.
size_t FindUnquoted(std::string_view s, size_t from, char stop) {
  bool quoted = false;
  for (size_t i = from; i < s.size(); ++i) {
    const char c = s[i];
    if (quoted) {
      if (c == '\\') ++i;
      else if (c == '"') quoted = false;
    } else if (c == '"') {
      quoted = true;
    } else if (c == stop) {
      return i;
    }
  }
  return s.size();
}

Element ParseElement(std::string_view text) {
  Element e;
  size_t semi = FindUnquoted(text, 0, ';');
  e.value = TrimOws(text.substr(0, semi));
  while (semi < text.size()) {
    const size_t next = FindUnquoted(text, semi + 1, ';');
    const std::string_view part = TrimOws(text.substr(semi + 1, next - semi - 1));
    semi = next;
    const size_t eq = part.find('=');
    if (eq == std::string_view::npos || e.param_count == e.params.size()) continue;
    std::string_view value = TrimOws(part.substr(eq + 1));
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"')
      value = value.substr(1, value.size() - 2);
    e.params[e.param_count++] = {TrimOws(part.substr(0, eq)), value};
  }
  return e;
}

template <typename Fn>
void ForEachElement(std::string_view header, Fn&& fn) {
  size_t pos = 0;
  while (pos <= header.size()) {
    const size_t comma = FindUnquoted(header, pos, ',');
    const Element e = ParseElement(header.substr(pos, comma - pos));
    if (!e.value.empty()) fn(e);
    pos = comma + 1;
  }
}

}  // namespace

int ParseQValue(std::string_view s) {
  if (s.empty() || s.size() > 5 || (s[0] != '0' && s[0] != '1')) return -1;
  int thousandths = (s[0] - '0') * 1000;
  if (s.size() == 1) return thousandths;
  if (s[1] != '.') return -1;
  int scale = 100;
  for (size_t i = 2; i < s.size(); ++i, scale /= 10) {
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return -1;
    thousandths += (s[i] - '0') * scale;
  }
  return thousandths <= 1000 ? thousandths : -1;
}

Format NegotiateFormat(std::string_view accept) {
  int best_q = 0;  // a range must weigh more than zero to be chosen
  Format best = Format::kText;
  ForEachElement(accept, [&](const Element& e) {
    const std::string_view version = e.Get("version");
    Format f;
    if (EqualsIgnoreCase(e.value, "application/openmetrics-text") &&
        (version.empty() || version == "1.0.0" || version == "0.0.1")) {
      f = Format::kOpenMetrics;
    } else if ((EqualsIgnoreCase(e.value, "text/plain") &&
                (version.empty() || version == "0.0.4")) ||
               EqualsIgnoreCase(e.value, "text/*") || e.value == "*/*") {
      f = Format::kText;
    } else {
      return;
    }
    const int q = e.Weight();
    if (q > best_q) {
      best_q = q;
      best = f;
    }
  });
  return best;
}

bool NegotiateGzip(std::string_view accept_encoding) {
  int gzip = -1, identity = -1, any = -1;  // -1: not listed
  ForEachElement(accept_encoding, [&](const Element& e) {
    const int q = e.Weight();
    if (q < 0) return;  // a malformed weight: the element is ignored
    int* slot = nullptr;
    if (EqualsIgnoreCase(e.value, "gzip") || EqualsIgnoreCase(e.value, "x-gzip")) slot = &gzip;
    else if (EqualsIgnoreCase(e.value, "identity")) slot = &identity;
    else if (e.value == "*") slot = &any;
    if (slot && *slot < 0) *slot = q;  // the first mention counts
  });
  const int gzip_q = gzip >= 0 ? gzip : any >= 0 ? any : 0;
  // Unlisted identity stays acceptable, but as the fallback only: it does
  // not outweigh a gzip the client listed ("gzip;q=0.5" means gzip).
  const int identity_q = identity >= 0 ? identity : any >= 0 ? any : 0;
  return gzip_q > 0 && gzip_q >= identity_q;
}

}  // namespace sm
