#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""`serve`: the plugin's own listener on a loopback port, until SIGTERM.

usage: serve_test.py --shim SHIM --plugin SO INPUT...

Starts `serve --listen 127.0.0.1:PORT --monitoring-listen 127.0.0.1:PORT2`,
scrapes /metrics, /health and the monitoring /metrics, compares /metrics
with `render` of the same inputs (minus the clock-moving job durations),
checks that a non-loopback --listen is refused (exit 2) and that SIGTERM
stops the server with exit 0.
"""
import argparse
import os
import re
import subprocess
import sys
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "scripts", "lib"))
from processes import terminate  # noqa: E402
from shim_serve import serve  # noqa: E402


def get(url):
    with urllib.request.urlopen(url, timeout=10) as r:
        return r.status, r.read().decode()


def stable(text):
    return [l for l in text.splitlines() if not l.startswith("slurm_job_duration_seconds")]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shim", required=True)
    ap.add_argument("--plugin", required=True)
    ap.add_argument("inputs", nargs="+")
    a = ap.parse_args()
    problems = []
    r = subprocess.run([a.shim, "serve", "--plugin", a.plugin, "--listen", "0.0.0.0:9"] + a.inputs,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 2 or "loopback addresses only" not in r.stderr:
        problems.append(f"non-loopback --listen: exit {r.returncode}, {r.stderr.strip()!r}")
    p, port, mport = serve(a.shim, a.plugin, a.inputs, monitoring=True, stderr=subprocess.PIPE)
    try:
        _, body = get(f"http://127.0.0.1:{port}/metrics")
        rendered = subprocess.run([a.shim, "render", "--plugin", a.plugin] + a.inputs, check=True,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout
        if stable(body) != stable(rendered):
            problems.append("/metrics differs from render")
        status, health = get(f"http://127.0.0.1:{port}/health")
        if (status, health) != (200, "healthy"):
            problems.append(f"/health: {status} {health!r}")
        status, mon = get(f"http://127.0.0.1:{mport}/metrics")
        if not re.search(r"^slurm_exporter_metrics_requests_total [1-9]", mon, re.M):
            problems.append("monitoring endpoint did not count the /metrics requests")
    finally:
        rc = terminate(p, 20)
        if rc is None:
            rc = "killed after 20 s"
    if rc != 0:
        problems.append(f"SIGTERM: exit {rc}")
    for pr in problems:
        print("FAIL: " + pr)
    if not problems:
        print("serve: /metrics, /health and monitoring answered; SIGTERM stopped it")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
