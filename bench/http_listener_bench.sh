#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Scrape latency and CPU per scrape of a big cached body through our HTTP
# listener (tests/tools/http_test_server) and, in the same run, through the
# civetweb listener it replaced (plugin/service/http_listener.cc at commit
# e8f4194, rebuilt here from git history against Debian's libcivetweb-dev).
#
#   bench/http_listener_bench.sh BUILD_DIR [BODY_BYTES] [SECONDS]
#
# BUILD_DIR is a configured core build (meson setup build). Needs wrk and
# libcivetweb-dev (apt-get install wrk libcivetweb-dev). Loopback only;
# each wrk run is bounded by SECONDS (default 10). Prints one table.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$(cd "${1:?usage: $0 BUILD_DIR [BODY_BYTES] [SECONDS]}" && pwd)
bytes=${2:-30000000}
secs=${3:-10}
old_commit=e8f4194

command -v wrk >/dev/null || { echo "needs wrk" >&2; exit 1; }
[[ -f /usr/include/civetweb.h ]] || { echo "needs libcivetweb-dev" >&2; exit 1; }
ninja -C "$build" tests/http_test_server plugin/libsmservice.a plugin/libsmcore.a >/dev/null

work=$(mktemp -d /tmp/sm-http-bench.XXXXXX)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	rm -rf "$work"
}
trap cleanup EXIT

# The old listener with the same fixed handler as http_test_server.
mkdir -p "$work/old"
git -C "$root" show "$old_commit:plugin/service/http_listener.h" >"$work/old/http_listener.h"
git -C "$root" show "$old_commit:plugin/service/http_listener.cc" |
	sed 's/NegotiateGzip(enc)/std::strstr(enc, "gzip") != nullptr/' >"$work/old/http_listener.cc"
cat >"$work/old/main.cc" <<'CC'
#include <unistd.h>
#include <iostream>
#include "collector.h"
#include "http_listener.h"
int main(int argc, char** argv) {
  std::string text = "# HELP test_series A test series.\n# TYPE test_series gauge\n";
  const size_t bytes = std::stoull(argv[1]);
  for (size_t i = 0; text.size() < bytes; ++i)
    text += "test_series{node=\"n" + std::to_string(i) + "\",partition=\"main\"} " +
            std::to_string(i % 97) + "\n";
  auto body = std::make_shared<const sm::Body>(std::move(text), 1);
  sm::HttpListener l("old listener", "127.0.0.1:0", 4, [&](const sm::HttpRequest& r) {
    sm::HttpResponse resp;
    resp.body = body;
    resp.gzip = r.accepts_gzip;
    return resp;
  });
  l.Start();
  std::cout << "port " << l.port() << std::endl;
  char buf[64];
  while (read(0, buf, sizeof buf) > 0) {}
  l.Stop();
}
CC
# The old listener includes the core's headers by name, from before the
# core had folders: every folder of plugin/core is on its include path.
core_dirs=()
while IFS= read -r d; do core_dirs+=("-I$d"); done < <(find "$root/plugin/core" -type d)
c++ -std=c++20 -O2 -I"$work/old" "${core_dirs[@]}" -I"$root/plugin/service" \
	"$work/old/main.cc" "$work/old/http_listener.cc" "$root/plugin/service/collector.cc" \
	"$build/plugin/libsmcore.a" -lcivetweb -lz -lpthread -o "$work/old/server"

# Starts server NAME (command $2...), keeping its stdin open (it stops when
# stdin closes); sets srv_pid and srv_port.
start() {
	local name=$1
	shift
	mkfifo "$work/in.$name"
	"$@" <"$work/in.$name" >"$work/out.$name" 2>/dev/null &
	srv_pid=$!
	pids+=("$srv_pid")
	exec {fd}>"$work/in.$name"
	for _ in $(seq 300); do
		grep -q '^port ' "$work/out.$name" 2>/dev/null && break
		sleep 0.1
	done
	srv_port=$(awk '/^port/{print $2}' "$work/out.$name")
	[[ -n $srv_port ]] || { echo "$name did not start" >&2; exit 1; }
}

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

run() {  # server-name pid port label extra-header
	local pid=$2 port=$3 label=$4 header=$5
	# The first request pays the gzip; time the steady state.
	curl -s -o /dev/null -H "$header" "http://127.0.0.1:$port/metrics"
	local t0
	t0=$(cpu_ticks "$pid")
	local out
	out=$(wrk -t1 -c4 -d"${secs}s" --latency -H "$header" "http://127.0.0.1:$port/metrics")
	local t1
	t1=$(cpu_ticks "$pid")
	local reqs p50 p99
	reqs=$(awk '/requests in/{print $1}' <<<"$out")
	p50=$(awk '$1=="50%"{print $2}' <<<"$out")
	p99=$(awk '$1=="99%"{print $2}' <<<"$out")
	local hz
	hz=$(getconf CLK_TCK)
	printf '%-10s %-9s %8s %10s %10s %14s\n' "$1" "$label" "$reqs" "$p50" "$p99" \
		"$(awk -v d=$((t1 - t0)) -v n="$reqs" -v hz="$hz" 'BEGIN{printf "%.1f", n ? d * 1000 / hz / n : 0}')"
}

start new "$build/tests/http_test_server" --bind 127.0.0.1:0 --body-bytes "$bytes" --threads 4
new_pid=$srv_pid new_port=$srv_port
start old "$work/old/server" "$bytes"
old_pid=$srv_pid old_port=$srv_port

echo "body: $bytes bytes; wrk -t1 -c4 -d${secs}s on loopback; commit $(git -C "$root" rev-parse --short HEAD)"
printf '%-10s %-9s %8s %10s %10s %14s\n' listener encoding requests p50 p99 "CPU ms/scrape"
for enc in identity gzip; do
	run civetweb "$old_pid" "$old_port" "$enc" "Accept-Encoding: $enc"
	run ours "$new_pid" "$new_port" "$enc" "Accept-Encoding: $enc"
done
