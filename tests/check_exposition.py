#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Validates exposition bodies with real parsers.

usage: check_exposition.py text|openmetrics CMD...
Runs CMD, feeds its stdout to `promtool check metrics` (text) or to
prometheus_client's strict OpenMetrics parser, and fails on any problem.
promtool's naming lints are tolerated for the names listed below only: they
are Soperator's, SckyzO/slurm_exporter's and Slurm's own names, kept for
compatibility.

Text bodies must also pass what client_golang's registry enforces when it
gathers (and promtool does not check): one HELP and one TYPE per family
name, all of a family's samples together, the same label names on every
series of a family, no series twice.
"""
import re
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
# SckyzO/slurm_exporter's gauges, kept so its dashboards work (docs/metrics.md).
SCKYZO_NAMES = {
    "slurm_license_total",
    "slurm_node_gres_total",
    "slurm_reservation_core_count",
    "slurm_reservation_node_count",
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
    return name in SOPERATOR_NAMES | SCKYZO_NAMES or lint == NAME_LINTS[2]


def check_text(body):
    r = subprocess.run(["promtool", "check", "metrics"], input=body,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    problems = [l for l in r.stdout.decode().splitlines()
                if l.strip() and not tolerated(l)]
    if (r.returncode not in (0, 3)) or problems:
        sys.exit(f"promtool rc={r.returncode}:\n" + "\n".join(problems))
    problems = strict_problems(body.decode("utf-8"))
    if problems:
        sys.exit("not what client_golang would gather:\n" + "\n".join(problems[:20]))


_SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? \S+$')
_PAIR = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="(?:[^"\\]|\\.)*",?')
# Labels a histogram or summary adds to some of its samples.
_EXTRA = {"histogram": {"_bucket": {"le"}, "_sum": set(), "_count": set()},
          "summary": {"": {"quantile"}, "_sum": set(), "_count": set()}}


def family_of(name, types):
    """(family, labels the type adds) for a sample name."""
    for kind, suffixes in _EXTRA.items():
        for suffix, extra in suffixes.items():
            if suffix and name.endswith(suffix) and types.get(name[:-len(suffix)]) == kind:
                return name[:-len(suffix)], extra
            if not suffix and types.get(name) == kind:
                return name, extra
    return name, set()


def strict_problems(text):
    """Family-level rules of client_golang's Gather (registry.go): a name
    has one HELP and one TYPE, its samples are not split by another family,
    every series carries the same label names, no label set appears twice."""
    problems, types, helps = [], {}, {}
    closed, current = set(), None
    label_names, seen = {}, set()
    for n, line in enumerate(text.split("\n"), 1):
        if line.startswith("# HELP ") or line.startswith("# TYPE "):
            kind, name = line[2:6], line[7:].split(" ", 1)[0]
            table = helps if kind == "HELP" else types
            if name in table:
                problems.append(f"line {n}: second # {kind} for {name}")
            table[name] = line[8 + len(name):]
            if name != current:
                if name in closed:
                    problems.append(f"line {n}: family {name} appears twice")
                if current:
                    closed.add(current)
                current = name
            continue
        if not line or line.startswith("#"):
            continue
        m = _SAMPLE.match(line)
        if not m:
            problems.append(f"line {n}: not a sample: {line[:120]}")
            continue
        family, extra = family_of(m.group(1), types)
        if family != current:
            if family in closed:
                problems.append(f"line {n}: family {family} appears twice")
            if current:
                closed.add(current)
            current = family
        labels = m.group(2) or ""
        names = [p for p in _PAIR.findall(labels)]
        if len(set(names)) != len(names):
            problems.append(f"line {n}: a label name twice: {line[:120]}")
        key = frozenset(names) - extra
        if label_names.setdefault(family, key) != key:
            problems.append(f"line {n}: {family} has series with labels "
                            f"{sorted(label_names[family])} and {sorted(key)}")
        series = (m.group(1), labels)
        if series in seen:
            problems.append(f"line {n}: series collected twice: {line[:120]}")
        seen.add(series)
    return problems


def check_openmetrics(body):
    from prometheus_client.openmetrics.parser import text_string_to_metric_families
    families = list(text_string_to_metric_families(body.decode("utf-8")))
    if not families:
        sys.exit("no families parsed")


if __name__ == "__main__":
    main()
