#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The limit of the cached bodies (docs/configuration.md, "Cached bodies"):
one client asks for every body variant of a generated cluster, twice; the
bodies kept stay within the limit and the rest is rendered per request.
The plugin host's memory is checked loosely: glibc keeps some of what the
per-request renders freed, per thread.

usage: cached_bodies.py --shim SHIM --plugin SO [--nodes N --jobs M]

The cluster is collected again every second (serve --recollect 1), so
what is kept is also what every collection renders again.

Every path of our listener (Soperator's /metrics, /metrics/soperator and
the five group paths under both prefixes) × text/OpenMetrics × plain/gzip.
After each request the self-monitoring must show
slurm_exporter_cached_body_bytes <= slurm_exporter_cached_body_limit_bytes
<= max(16 MiB, 4 × the largest body served).
"""
import argparse
import gzip
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "scripts", "lib"))
from processes import terminate  # noqa: E402
from shim_serve import serve  # noqa: E402

GROUPS = ["nodes", "jobs", "partitions", "scheduler", "jobs-users-accts"]
PATHS = (["/metrics", "/metrics/soperator"] + [f"/metrics/{g}" for g in GROUPS] +
         [f"/metrics/soperator/{g}" for g in GROUPS])
OPENMETRICS = "application/openmetrics-text;version=1.0.0"
MIB = 1 << 20


def fetch(url, accept="", gz=False):
    headers = {}
    if accept:
        headers["Accept"] = accept
    if gz:
        headers["Accept-Encoding"] = "gzip"
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers),
                                    timeout=60) as r:
            body = r.read()
            if r.headers.get("Content-Encoding") == "gzip":
                body = gzip.decompress(body)
            return r.status, body
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def gauge(text, name, labels=""):
    m = re.search(rf"^{re.escape(name + labels)} (\S+)$", text, re.M)
    return float(m.group(1)) if m else None


def rss(pid):
    with open(f"/proc/{pid}/status") as f:
        return int(re.search(r"^VmRSS:\s+(\d+) kB", f.read(), re.M).group(1)) * 1024


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shim", required=True)
    ap.add_argument("--plugin", required=True)
    ap.add_argument("--nodes", type=int, default=1000)
    ap.add_argument("--jobs", type=int, default=10000)
    a = ap.parse_args()
    problems = []
    with tempfile.TemporaryDirectory() as d:
        subprocess.run([a.shim, "generate", "--nodes", str(a.nodes), "--jobs", str(a.jobs),
                        "--seed", "7", "--out", d], check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        inputs = [os.path.join(d, f) for f in ("nodes.json", "jobs.json", "sdiag.json")]
        p, port, mport = serve(a.shim, a.plugin, ["-q", "--recollect", "1"] + inputs,
                               monitoring=True, timeout=120)
        try:
            baseline = rss(p.pid)
            largest = 0
            total = 0
            worst = None  # the first time the bodies held more than the bound
            unlimited = None  # the first time the limit gauge disagreed
            most = 0  # the most the cached bodies held, and the bound then
            for round_ in range(2):
                for path in PATHS:
                    for accept in ("", OPENMETRICS):
                        for gz in (False, True):
                            status, body = fetch(f"http://127.0.0.1:{port}{path}", accept, gz)
                            if status == 503:
                                continue  # refused while another uncached render ran
                            if status != 200 or b"\nslurm_" not in body:
                                problems.append(f"{path} {accept or 'text'} gzip={gz}: "
                                                f"{status}, {len(body)} bytes")
                                continue
                            largest = max(largest, len(body))
                            if round_ == 0 and not gz:
                                total += len(body)
                            _, mon = fetch(f"http://127.0.0.1:{mport}/metrics")
                            mon = mon.decode()
                            cached = gauge(mon, "slurm_exporter_cached_body_bytes")
                            limit = gauge(mon, "slurm_exporter_cached_body_limit_bytes")
                            # The plugin's largest body may be a later render
                            # than the test's (job durations grow): 2% slack.
                            bound = max(16 * MIB, 4 * largest)
                            if cached is not None and cached > most:
                                most = cached
                            if cached is None or cached > bound * 1.02:
                                worst = worst or (f"after {path} {accept or 'text'} gzip={gz}: "
                                                  f"slurm_exporter_cached_body_bytes {cached}, "
                                                  f"over 4 x the largest body (min 16 MiB) "
                                                  f"{bound}")
                            elif limit is None or cached > limit or limit > bound * 1.02:
                                unlimited = unlimited or (f"after {path} {accept or 'text'} gzip={gz}: "
                                                  f"cached {cached}, limit {limit}, "
                                                  f"4 x largest body (min 16 MiB) {bound}")
            # Collections since: what is kept is rendered again, and no more.
            time.sleep(3)
            grown = rss(p.pid) - baseline
            _, mon = fetch(f"http://127.0.0.1:{mport}/metrics")
            mon = mon.decode()
            cached = gauge(mon, "slurm_exporter_cached_body_bytes") or 0
            most = max(most, cached)
            if cached > max(16 * MIB, 4 * largest):
                worst = worst or (f"after the next collections: slurm_exporter_cached_body_bytes "
                                  f"{cached}, over 4 x the largest body (min 16 MiB) "
                                  f"{max(16 * MIB, 4 * largest)}")
            limit = gauge(mon, "slurm_exporter_cached_body_limit_bytes") or 0
            rendered = gauge(mon, "slurm_exporter_uncached_requests_total",
                             '{outcome="rendered"}') or 0
            print(f"largest body {largest / MIB:.1f} MiB, every variant (plain) "
                  f"{total / MIB:.1f} MiB, limit {limit / MIB:.1f} MiB, "
                  f"at most {most / MIB:.1f} MiB cached, "
                  f"RSS grew {grown / MIB:.1f} MiB, uncached renders {rendered:.0f}")
            if worst:
                problems.append("cached bodies past the limit " + worst)
            if unlimited:
                problems.append("limit gauge " + unlimited)
            if total <= max(16 * MIB, 4 * largest):
                problems.append(f"every variant ({total} bytes) fits under the limit: "
                                "the cluster is too small to test it")
            if rendered < 1:
                problems.append("no request was rendered uncached")
            # The limit, plus what glibc keeps of the bodies rendered per
            # request in the arena of each thread that rendered one (4
            # listener workers and the render thread, a few bodies each):
            # bounded by threads x body size, not by the number of variants.
            # (At 1000 nodes / 10000 jobs: about 125-160 MiB here, 103-140
            # MiB before the limit existed, 17 MiB scraping /metrics alone.)
            allowed = limit + 5 * 3 * largest + 32 * MIB
            if grown > allowed:
                problems.append(f"RSS grew {grown / MIB:.1f} MiB, more than the limit "
                                f"{limit / MIB:.1f} MiB + 15 bodies + 32 MiB")
        finally:
            terminate(p, 30)
    for pr in problems:
        print("FAIL: " + pr)
    if problems:
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
