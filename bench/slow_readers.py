#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""What clients that stop reading cost the listener (docs/configuration.md,
"Limits against hostile clients"): N slow readers (a 1 KiB receive
buffer, never read) ask the test server for a big body; printed are the server's CPU in the
seconds after they connected, and the bytes the kernel holds for one of
them (ss: unsent bytes and the socket's memory). Then a fast scraper's
time for a big body on loopback, median of 15, which the per-connection
unsent limit must not slow. Loopback only; the server is stopped at the
end.

usage: bench/slow_readers.py HTTP_TEST_SERVER [--readers 256] [--body 13000000]

HTTP_TEST_SERVER: tests/http_test_server of a build directory (any build
with tests enabled, e.g. build/)."""
import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("server")
    ap.add_argument("--readers", type=int, default=256)
    ap.add_argument("--body", type=int, default=13000000)
    a = ap.parse_args()
    sys.argv = [sys.argv[0], a.server]  # http_server.py takes the binary from argv
    sys.path.insert(0, os.path.join(HERE, "..", "tests", "http"))
    from http_server import Server  # noqa: E402
    from test_listener import cpu_seconds, slow_reader  # noqa: E402
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 4096), hard))
    sources = [f"127.0.0.{i}" for i in range(2, 10)]
    with Server("--bind", "127.0.0.1:0", "--body-bytes", str(a.body)) as s:
        pid = s.proc.pid
        t0 = time.monotonic()
        before = cpu_seconds(pid)
        readers = [slow_reader(s.port, sources[i % 8]) for i in range(a.readers)]
        connected = time.monotonic() - t0
        time.sleep(2)
        ss = subprocess.run(["ss", "-tnm", "state", "established", f"sport = :{s.port}"],
                            capture_output=True, text=True).stdout
        time.sleep(4)
        cpu = cpu_seconds(pid) - before
        queued = [int(x) for x in re.findall(r"^\s*\d+\s+(\d+)\s", ss, re.M)]
        mem = [int(x) for x in re.findall(r"skmem:\(.*?,w(\d+),", ss)]
        for c in readers:
            c.close()
        times = []
        for _ in range(15):
            t = time.monotonic()
            subprocess.run(["curl", "-s", "-o", "/dev/null", "--max-time", "30",
                            f"http://127.0.0.1:{s.port}/metrics"], check=True)
            times.append(time.monotonic() - t)
    print(f"{a.readers} slow readers of a {a.body:,}-byte body: connected in {connected:.2f} s; "
          f"server CPU over the 6 s from their first connect: {cpu:.2f} s")
    if queued:
        print(f"per reader after 2 s: {statistics.median(queued):,.0f} bytes unsent (median of "
              f"{len(queued)}), {statistics.median(mem):,.0f} bytes of socket memory")
    print(f"a fast scrape of the same body: median {statistics.median(times) * 1000:.0f} ms, "
          f"min {min(times) * 1000:.0f} ms (15 runs)")


if __name__ == "__main__":
    main()
