// SPDX-License-Identifier: GPL-2.0-or-later
#include "json_writer.h"

#include <cstdio>

#include <nlohmann/json.hpp>

#include "base/utf8.h"

namespace shim {

void Quote(std::string& out, std::string_view s) {
  std::string repaired;
  if (!sm::IsValidUtf8(s)) {
    sm::AppendRepairedUtf8(repaired, s);
    s = repaired;
  }
  out += '"';
  for (const char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char b[8];
          snprintf(b, sizeof b, "\\u%04x", static_cast<unsigned>(c));
          out += b;
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

std::string& Object::Member(std::string_view key) {
  if (!first_) out_ += ',';
  first_ = false;
  Quote(out_, key);
  out_ += ':';
  return out_;
}

void Object::Strs(std::string_view key, const std::vector<std::string>& v) {
  std::string& out = Member(key);
  out += '[';
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out += ',';
    Quote(out, v[i]);
  }
  out += ']';
}

void Object::RealStruct(std::string_view key, const Real& r) {
  NoValStruct(key, r.kind, nlohmann::ordered_json(r.has() ? r.value : 0.0).dump());
}

void Object::NoValStruct(std::string_view key, Num::Kind kind, const std::string& number) {
  if (kind == Num::kAbsent) return;
  std::string& out = Member(key);
  out += kind == Num::kValue ? "{\"set\":true," : "{\"set\":false,";
  out += kind == Num::kInfinite ? "\"infinite\":true," : "\"infinite\":false,";
  out += "\"number\":" + number + "}";
}

}  // namespace shim
