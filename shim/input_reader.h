// SPDX-License-Identifier: GPL-2.0-or-later
// What the parts of the dump reader (input*.cc) share: typed getters that
// name the file and JSON path of what they reject, the bounded JSON parse
// with its raw-byte escape, and the record parsers that both the whole-tree
// and the streaming reader call.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "input.h"

namespace shim::reader {

// Turns the raw bytes carried through nlohmann's UTF-8 checks back into
// bytes (input_json_text.cc).
std::string Decode(const std::string& s);
// Parses with the nesting bound; `callback` may be empty.
json ParseBounded(const std::string& text, const std::string& file,
                  const json::parser_callback_t& callback);

const char* TypeName(const json& j);
[[noreturn]] void Expected(const At& at, const std::string& what, const json& got);
[[noreturn]] void Missing(const At& at, const std::string& what);
void RequireObject(const json& j, const At& at, const char* what);
const json* Find(const json& o, std::string_view key);
std::string CString(const std::string& s, const At& at);
std::string Str(const json& o, std::string_view key, const At& parent);
std::optional<std::string> OptStr(const json& o, std::string_view key, const At& parent);
bool IsIntegral(const json& v);
int64_t Truncated(const json& v, const At& at);
int64_t AsInt(const json& v, const At& at, const char* what);
Num::Kind NoValStruct(const json& v, const At& at, const json*& number);
Num N(const json& o, std::string_view key, const At& parent);
int64_t RequiredInt(const json& o, std::string_view key, const At& parent, const char* what);
std::string Upper(std::string s);
std::vector<std::string> StrArray(const json& v, const At& at, const char* what);
std::vector<std::string> StateWords(const json& o, std::string_view key, const At& at,
                                    const char* what);
void NoteEvent(ClusterIn& state, const Num& n);

// The elements of a list that must be one, each with its path.
template <typename F>
void ForEach(const json& v, const At& at, const char* what, F&& fn) {
  if (!v.is_array()) Expected(at, what, v);
  for (size_t i = 0; i < v.size(); ++i) fn(v[i], at.Index(i));
}
// The same where a missing list or null is an empty one.
template <typename F>
void ForEachIfAny(const json* v, const At& at, const char* what, F&& fn) {
  if (v && !v->is_null()) ForEach(*v, at, what, fn);
}

// input_cluster.cc
NodeIn ParseNode(const json& n, const At& at, ClusterIn& state);
JobIn ParseJob(const json& j, const At& at, ClusterIn& state, UserTable& users);
bool LooksLikeNode(const json& o);
bool LooksLikeJob(const json& o);
// input_accounting.cc: the lists of licenses, reservations and QoS, and
// sshare's "shares" object.
void AddLicenses(const json& v, const At& at, ClusterIn& state);
void AddReservations(const json& v, const At& at, ClusterIn& state);
void AddQos(const json& v, const At& at, ClusterIn& state);
void AddShares(const json& v, const At& at, ClusterIn& state);

}  // namespace shim::reader
