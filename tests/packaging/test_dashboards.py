#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Soperator's Grafana dashboards against what we serve: every slurm_* metric
they select, every label they match or group by on it, and every literal
label value they test, must be in a scrape of a loopback cluster (driven
through drain, down, GPU and job states first), or documented in
docs/metrics*.md for states a test cluster cannot reach, or listed as a gap
in docs/scraping.md. Gaps listed there that are no longer gaps fail too.

usage: test_dashboards.py VERSION PLUGIN_DIR [DASHBOARD_DIR]
DASHBOARD_DIR defaults to $SM_SOPERATOR_DASHBOARDS, else the copies in
tests/fixtures/soperator-dashboards.
"""

import glob
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import DOCS, ROOT, Cluster, parse_exposition, skip, wait_for  # noqa: E402
from promql_refs import analyse, dashboard_queries  # noqa: E402

# Labels the scrape (Prometheus, VictoriaMetrics, Kubernetes) attaches, not
# the exporter. Our examples add `cluster` to every target.
TARGET_LABELS = {"cluster", "instance", "job", "namespace", "pod", "container",
                 "endpoint", "service"}
PATHS = ["/metrics", "/metrics/nodes", "/metrics/jobs", "/metrics/partitions",
         "/metrics/scheduler", "/metrics/jobs-users-accts"]
# Every value these enumerated labels can take (plugin/slurm/job_copy.cc
# MapBase, plugin/core/model/node_state.cc; docs/metrics.md): a value the test cluster
# did not reach is still fine when it is one of these.
JOB_BASE_STATES = {"PENDING", "RUNNING", "SUSPENDED", "COMPLETED", "CANCELLED",
                   "FAILED", "TIMEOUT", "NODE_FAIL", "PREEMPTED", "BOOT_FAIL",
                   "DEADLINE", "OUT_OF_MEMORY"}
NODE_BASE_STATES = {"UNKNOWN", "DOWN", "IDLE", "ALLOCATED", "ERROR", "MIXED", "FUTURE"}
VOCABULARY = {"job_state": JOB_BASE_STATES, "state_base": NODE_BASE_STATES}
FLAG_VALUES = {"true", "false", ""}
GAPS_BEGIN = "<!-- dashboard-gaps:begin -->"
GAPS_END = "<!-- dashboard-gaps:end -->"


def family_of(sample):
    for suffix in ("_bucket", "_sum", "_count"):
        if sample.endswith(suffix):
            return sample[: -len(suffix)]
    return sample


def drive(c):
    """States Soperator's dashboards look at: GPU seconds, a node draining
    (MIXED+DRAIN) then resumed (fails_total, draining histogram), downed
    then resumed (unavailability histogram), jobs running, pending, held,
    failed and completed."""
    def scontrol(*a):
        return c.cmd("scontrol", *a)

    def sbatch(*a):
        return c.cmd("sbatch", "-Q", *a)

    def vm_state():
        return set(c.cmd("sinfo", "-h", "-N", "-n", "vm", "-o", "%T").split())

    # DOWN while idle (a running job would be killed and block the resume).
    scontrol("update", "nodename=vm", "state=down", "reason=dashboard test down")
    c.wait_collections(2)
    scontrol("update", "nodename=vm", "state=resume")
    wait_for("vm back", lambda: vm_state() <= {"idle", "mixed", "allocated"}, timeout=30)
    c.wait_collections(2)
    # DRAIN with a job running: MIXED+DRAIN is "draining".
    sbatch("-J", "training", "--gres=gpu:1", "--wrap", "sleep 300")
    wait_for("a running job", lambda: "RUNNING" in c.cmd("squeue", "-h", "-o", "%T"),
             timeout=30)
    c.wait_collections(2)
    scontrol("update", "nodename=vm", "state=drain", "reason=dashboard test drain")
    c.wait_collections(2)
    scontrol("update", "nodename=vm", "state=resume")
    c.wait_collections(2)
    sbatch("-J", "held", "-H", "--wrap", "true")
    sbatch("-J", "broken", "--wrap", "exit 1")
    sbatch("-J", "quick", "--wrap", "true")
    wait_for("jobs finished", lambda: not set(c.cmd(
        "squeue", "-h", "-n", "broken,quick", "-o", "%T").split()), timeout=30)
    c.wait_collections(2)


def served(c):
    """{family: {label: set(values)}} over every path and self-monitoring."""
    out = {}
    bodies = [c.scrape(p) for p in PATHS] + [c.scrape(monitoring=True)]
    for body in bodies:
        for sample, series in parse_exposition(body).items():
            fam = out.setdefault(family_of(sample), {})
            if sample.endswith("_bucket"):
                fam.setdefault("le", set())
            for labels in series:
                for k, v in labels.items():
                    fam.setdefault(k, set()).add(v)
    return out


def documented():
    """{family: set(labels)} from the family tables of docs/metrics*.md:
    a table row naming `slurm_x` documents the backticked words of that row.
    Rows saying "never emitted" document a gap, not a family."""
    out = {}
    text = ""
    for path in sorted(glob.glob(os.path.join(DOCS, "metrics*.md"))):
        with open(path) as f:
            text += f.read() + "\n"
    for line in text.splitlines():
        if not line.startswith("|") or "never emitted" in line:
            continue
        words = re.findall(r'`([^`]*)`', line)
        names = [w for w in words if re.fullmatch(r'slurm_[a-z0-9_]+', w)]
        if not names:
            continue
        labels = set()
        for w in words:
            labels |= set(re.findall(r'[a-z_][a-z0-9_]*', w))
        for name in names:
            out.setdefault(name, set()).update(labels)
    return out


def listed_gaps():
    with open(os.path.join(DOCS, "scraping.md")) as f:
        text = f.read()
    if GAPS_BEGIN not in text or GAPS_END not in text:
        raise AssertionError(f"docs/scraping.md lacks the {GAPS_BEGIN} ... {GAPS_END} block")
    block = text.split(GAPS_BEGIN, 1)[1].split(GAPS_END, 1)[0]
    gaps = set()
    for line in block.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) >= 2 and cells[1].startswith("`"):
            gaps.add(cells[1].strip("`"))
    return gaps


def literal_values(op, value):
    """The label values a matcher tests for, when they are plain words:
    job_state="RUNNING" -> {RUNNING}; state_base=~"DOWN|ERROR" -> {DOWN, ERROR}."""
    if value is None or "$" in value:
        return set()
    if op == "=":
        return {value}
    if op == "=~" and re.fullmatch(r'[A-Za-z0-9_]+(\|[A-Za-z0-9_]+)*', value):
        return set(value.split("|"))
    return set()


def main():
    version, plugin_dir = sys.argv[1], sys.argv[2]
    dash_dir = (sys.argv[3] if len(sys.argv) > 3 else
                os.environ.get("SM_SOPERATOR_DASHBOARDS") or
                os.path.join(ROOT, "tests", "fixtures", "soperator-dashboards"))
    dashboards = sorted(glob.glob(os.path.join(dash_dir, "*.json")))
    if not dashboards:
        skip(f"no Soperator dashboards in {dash_dir}")

    refs = [analyse(expr, where) for d in dashboards for where, expr in dashboard_queries(d)]
    print(f"{len(dashboards)} dashboards, {len(refs)} queries, "
          f"{len({m for r in refs for m in r.metrics})} slurm_* metric names")

    c = Cluster(version, plugin_dir, gpus=1, conf_extra=["DefMemPerCPU=500"])
    try:
        c.start()
        drive(c)
        have = served(c)
    finally:
        c.cleanup()
    docs = documented()

    found = {}  # gap key -> first place it was seen

    def gap(key, where):
        found.setdefault(key, where)

    for r in refs:
        for m in r.metrics:
            fam = family_of(m)
            if fam not in have and fam not in docs:
                gap(m, r.where)
        for m, label, op, value in r.matchers:
            if m is None or label in TARGET_LABELS or label == "__name__":
                continue
            fam = family_of(m)
            if label in have.get(fam, {}):
                vals = have[fam][label]
            elif label in docs.get(fam, ()):
                vals = None  # documented; values unknown from the scrape
            else:
                gap(f"{m}{{{label}}}", r.where)
                continue
            possible = VOCABULARY.get(label, set())
            if label.startswith("state_is_") or label == "is_unavailable":
                possible = FLAG_VALUES
            for v in literal_values(op, value):
                if not (vals and v in vals) and v not in possible:
                    gap(f'{m}{{{label}="{v}"}}', r.where)
        if r.metrics and not r.other_metrics:
            fams = {family_of(m) for m in r.metrics}
            known = set(TARGET_LABELS)
            for fam in fams:
                known |= set(have.get(fam, {})) | docs.get(fam, set())
            for label in r.grouping - known:
                gap(f"{sorted(r.metrics)[0]}{{{label}}}", r.where)

    listed = listed_gaps()
    unlisted = sorted(set(found) - listed)
    stale = sorted(listed - set(found))
    print(f"served: {len(have)} families; documented: {len(docs)}")
    for fam in ("slurm_job_info", "slurm_node_info"):
        for label in ("job_state", "state_base"):
            if label in have.get(fam, {}):
                print(f"  {fam} {label}: {sorted(have[fam][label])}")
    print(f"gaps ({len(found)}):")
    for key in sorted(found):
        print(f"  {key}    (first use: {found[key]})")
    ok = True
    if unlisted:
        ok = False
        print("FAIL: gaps not listed in docs/scraping.md:")
        for key in unlisted:
            print(f"  | ... | `{key}` | ... |   <- {found[key]}")
    if stale:
        ok = False
        print("FAIL: docs/scraping.md lists gaps the dashboards no longer hit:")
        for key in stale:
            print(f"  {key}")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
