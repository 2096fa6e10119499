// SPDX-License-Identifier: GPL-2.0-or-later
#include "http/wire.h"

#include "base/log.h"

namespace sm {
namespace http_loop {

const char* StatusText(int status) {
  switch (status) {
    case 200: return "OK";
    case 204: return "No Content";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 413: return "Content Too Large";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 503: return "Service Unavailable";
    case 505: return "HTTP Version Not Supported";
    default: return "Error";
  }
}

void LogFailure(const std::string& name, const char* where, const char* what) noexcept {
  try {
    LogError(name + ": " + where + ": " + what);
  } catch (...) {
  }
}

std::string ErrorResponse(int status) {
  const std::string body = std::to_string(status) + " " + StatusText(status) + "\n";
  return "HTTP/1.1 " + std::to_string(status) + " " + StatusText(status) +
         "\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: " +
         std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
}

bool KnownMethod(std::string_view m) {
  for (const char* k : {"GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS",
                        "TRACE", "CONNECT"}) {
    if (m == k) return true;
  }
  return false;
}

std::string SerializeHead(const HttpResponse& r, size_t length, bool keep_alive) {
  std::string h = "HTTP/1.1 " + std::to_string(r.status) + " " + StatusText(r.status) + "\r\n";
  if (r.status != 204) {
    h += "Content-Type: " + r.content_type + "\r\nContent-Length: " +
         std::to_string(length) + "\r\n";
  }
  if (r.body && r.gzip) h += "Content-Encoding: gzip\r\n";
  if (r.body) h += "Vary: Accept-Encoding\r\n";
  for (const auto& [k, v] : r.headers) h += k + ": " + v + "\r\n";
  if (!keep_alive) h += "Connection: close\r\n";
  h += "\r\n";
  return h;
}

}  // namespace http_loop

}  // namespace sm
