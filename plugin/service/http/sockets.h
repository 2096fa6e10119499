// SPDX-License-Identifier: GPL-2.0-or-later
// The listening socket and peer addresses of the listener (http/loop.h).
#pragma once

#include <sys/socket.h>

#include <string>

#include "config/cidr.h"
#include "config/exporter_config.h"

namespace sm {
namespace http_loop {

// Why binding `a` failed with `err`, for the log line.
std::string BindError(int err, const BindAddress& a);

// A listening socket for `a`, or -1 with *err. ":port" listens on IPv6 and
// IPv4 at once where IPv6 exists.
int Listen(const BindAddress& a, int* err, int* port);

IpAddress PeerAddress(const sockaddr_storage& ss);

std::string PeerString(const IpAddress& ip);

}  // namespace http_loop
}  // namespace sm
