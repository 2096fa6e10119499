#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Every path of both carriers is valid exposition, as promtool and
client_golang's registry see it.

usage: every_path.py --shim SHIM --job-submit SO --metrics SO
                     --check-exposition PY FIXTURE_FILE...

Replays the release's fixture dumps and a generated cluster through each
carrier and fetches every path it serves: the job_submit carrier's listener
(/metrics, the five Slurm paths, the monitoring /metrics), the
metrics/soperator carrier's five paths as slurmctld 25.11+ serves them and
its own listener's /metrics (everything). Each body, in the text format and
in OpenMetrics where a listener serves it, goes through
tests/check_exposition.py: promtool, prometheus_client's OpenMetrics
parser, and the family rules client_golang enforces (one HELP/TYPE per
name, the same label names on every series of a family, no series twice).
"""
import argparse
import os
import subprocess
import sys
import tempfile

SLURM_PATHS = ["/metrics/nodes", "/metrics/jobs", "/metrics/partitions",
               "/metrics/scheduler", "/metrics/jobs-users-accts"]
# Served by our own listener (the shim always configures one), so both
# formats can be asked for.
LISTENER_PATHS = ["/metrics", "/monitoring"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shim", required=True)
    ap.add_argument("--job-submit", required=True)
    ap.add_argument("--metrics", required=True)
    ap.add_argument("--check-exposition", required=True)
    ap.add_argument("fixture", nargs="+")
    a = ap.parse_args()
    problems, checked = [], 0
    with tempfile.TemporaryDirectory(prefix="shim-every-path.") as tmp:
        subprocess.run([a.shim, "generate", "--nodes", "80", "--jobs", "600",
                        "--seed", "3", "--out", tmp], check=True,
                       stderr=subprocess.DEVNULL)
        clusters = {
            "fixture": a.fixture,
            "generated": [os.path.join(tmp, f)
                          for f in ("nodes.json", "jobs.json", "sdiag.json")],
        }
        for cluster, inputs in clusters.items():
            for carrier, plugin in (("job_submit", a.job_submit),
                                    ("metrics", a.metrics)):
                for path in LISTENER_PATHS + SLURM_PATHS:
                    formats = [("text", [])]
                    # slurmctld serves the metrics carrier's Slurm paths
                    # itself, as text only.
                    if carrier == "job_submit" or path in LISTENER_PATHS:
                        formats.append(("openmetrics", ["--openmetrics"]))
                    for fmt, extra in formats:
                        render = [a.shim, "render", "-q", "--plugin", plugin,
                                  "--path", path] + extra + inputs
                        r = subprocess.run(
                            [sys.executable, a.check_exposition, fmt] + render,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)
                        checked += 1
                        if r.returncode:
                            problems.append(f"{cluster} {carrier} {path} {fmt}:\n"
                                            + r.stdout[-2000:])
    for p in problems:
        print("FAIL: " + p)
    print(f"{checked - len(problems)} of {checked} bodies accepted")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
