// SPDX-License-Identifier: GPL-2.0-or-later
// The listener's own texts (http/loop.h): its fixed responses, the head it
// writes before a handler's body, and its failure log line.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "http/types.h"

namespace sm {
namespace http_loop {

// Go's net/http answer to plain HTTP on a TLS port, byte for byte.
inline constexpr std::string_view kHttpToHttps =
    "HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n";

// What a worker that failed to build any response sends instead.
inline constexpr std::string_view kInternalError =
    "HTTP/1.1 500 Internal Server Error\r\nContent-Type: text/plain; charset=utf-8\r\n"
    "Content-Length: 15\r\nConnection: close\r\n\r\ninternal error\n";

// Logs what went wrong at a thread entry; never throws itself, since it
// runs where an escaping exception would terminate slurmctld.
void LogFailure(const std::string& name, const char* where, const char* what) noexcept;

const char* StatusText(int status);

// The listener's own answers: fixed texts, nothing of the request in them.
std::string ErrorResponse(int status);

bool KnownMethod(std::string_view m);

std::string SerializeHead(const HttpResponse& r, size_t length, bool keep_alive);

}  // namespace http_loop
}  // namespace sm
