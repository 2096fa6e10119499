#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Our listener before the first collection (docs/scraping.md, "Before the
first collection"): a scrape waits for it, up to 5 s, and then gets 503
with Retry-After; never 200 with an empty body, which a scraper records as
up 1 with no series.

usage: first_collection.py --shim SHIM --plugin SO INPUT...

Runs `serve --first-collect-delay S` (the listeners answer S seconds before
the first collection, as on a cluster whose first collection is slow) and
scrapes during the delay: with S=2 the scrape waits and gets the body, with
S=30 it gets 503 after about 5 s.
"""
import argparse
import os
import sys
import time
import urllib.error
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "scripts", "lib"))
from processes import terminate  # noqa: E402
from shim_serve import serve  # noqa: E402


def get(url):
    """(status, headers, body, seconds) of one GET."""
    t0 = time.monotonic()
    try:
        with urllib.request.urlopen(url, timeout=20) as r:
            return r.status, dict(r.headers), r.read().decode(), time.monotonic() - t0
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read().decode(), time.monotonic() - t0


def serving(a, delay):
    p, port, _ = serve(a.shim, a.plugin, ["-q", "--first-collect-delay", str(delay)] + a.inputs,
                       ready="/health")
    return p, port


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shim", required=True)
    ap.add_argument("--plugin", required=True)
    ap.add_argument("inputs", nargs="+")
    a = ap.parse_args()
    problems = []

    # A first collection 2 s away: the scrape waits for it.
    p, port = serving(a, 2)
    try:
        for path in ("/metrics", "/metrics/nodes"):
            status, _, body, took = get(f"http://127.0.0.1:{port}{path}")
            if status != 200 or "\nslurm_" not in body:
                problems.append(f"{path} during a 2 s first collection: {status}, "
                                f"{len(body)} bytes after {took:.1f} s (want 200 with series)")
    finally:
        terminate(p, 20)

    # One 30 s away: 503 with Retry-After once the 5 s wait is over.
    p, port = serving(a, 30)
    try:
        status, headers, body, took = get(f"http://127.0.0.1:{port}/metrics")
        if status != 503 or headers.get("Retry-After") != "5":
            problems.append(f"/metrics before a 30 s first collection: {status} "
                            f"Retry-After={headers.get('Retry-After')!r}, "
                            f"{len(body)} bytes (want 503, Retry-After 5)")
        if not 4.5 <= took <= 10:
            problems.append(f"/metrics before the first collection answered after "
                            f"{took:.1f} s (want about 5 s)")
        status, _, _, took = get(f"http://127.0.0.1:{port}/readyz")
        if status != 503 or took > 2:
            problems.append(f"/readyz before the first collection: {status} after {took:.1f} s")
    finally:
        terminate(p, 20)

    for pr in problems:
        print("FAIL: " + pr)
    if problems:
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
