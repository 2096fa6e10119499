#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Validates exposition bodies with real parsers.

usage: check_exposition.py text|openmetrics CMD...
Runs CMD, feeds its stdout to `promtool check metrics` (text) or to
prometheus_client's strict OpenMetrics parser, and fails on any problem.
promtool's naming lints are tolerated for the names listed below only: they
are Soperator's and Slurm's own names, kept for compatibility.
"""
import subprocess
import sys


def main():
    fmt = sys.argv[1]
    args = sys.argv[2:]
    body = subprocess.run(args, check=True, stdout=subprocess.PIPE).stdout
    if not body:
        sys.exit("empty body")
    if fmt == "text":
        check_text(body)
    else:
        check_openmetrics(body)
    print(f"{fmt}: {len(body)} bytes accepted")


# Soperator's gauges whose names promtool's suffix lint dislikes.
SOPERATOR_NAMES = {
    "slurm_controller_server_thread_count",
    "slurm_node_cpus_total",
}
NAME_LINTS = (
    'non-histogram and non-summary metrics should not have "_count" suffix',
    'non-counter metrics should not have "_total" suffix',
    'counter metrics should have "_total" suffix',
)


def tolerated(line):
    name, _, lint = line.partition(" ")
    if lint not in NAME_LINTS:
        return False
    # Slurm's native counters keep their names (slurm_bf_cycle_cnt, ...).
    return name in SOPERATOR_NAMES or lint == NAME_LINTS[2]


def check_text(body):
    r = subprocess.run(["promtool", "check", "metrics"], input=body,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    problems = [l for l in r.stdout.decode().splitlines()
                if l.strip() and not tolerated(l)]
    if (r.returncode not in (0, 3)) or problems:
        sys.exit(f"promtool rc={r.returncode}:\n" + "\n".join(problems))


def check_openmetrics(body):
    from prometheus_client.openmetrics.parser import text_string_to_metric_families
    families = list(text_string_to_metric_families(body.decode("utf-8")))
    if not families:
        sys.exit("no families parsed")


if __name__ == "__main__":
    main()
