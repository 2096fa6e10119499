#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Heap allocations the nodes and jobs collectors make while they hold
slurmctld's locks, counted by an interposed malloc (locked_allocs.c,
preloaded into the shim) between the stand-ins' lock_slurmctld() and
unlock_slurmctld() (docs/architecture.md, "The data's way").

A generated cluster (GRES nodes, running, completing, array and pending
jobs) is collected three times in one process. The first collection has
nothing to presize from; the later ones must allocate:
- under the nodes hold: nothing;
- under the jobs holds: at most one allocation per array record whose task
  bitmap Slurm formats (bit_fmt_hexmask() xmallocs its result; we copy it
  into the arena and free it). Completing jobs' node lists are formatted
  off-lock from names copied under the locks.

usage: locked_allocs.py --shim SHIM --plugin SO --preload LIB
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile


def read_counts(path):
    """[{"nodes": [n, ...], "jobs": [n, ...]} per scenario step]."""
    steps = []
    with open(path) as f:
        for line in f:
            words = line.split()
            if words == ["step"]:
                steps.append({"nodes": [], "jobs": []})
            elif len(words) == 2 and steps:
                steps[-1][words[0]].append(int(words[1]))
    return steps


def slurm_formatted(jobs_file):
    """Array records, whose copy may call bit_fmt_hexmask(); and the
    completing jobs, which must not cost an allocation (they did when
    their node list was formatted under the locks)."""
    with open(jobs_file) as f:
        jobs = json.load(f)["jobs"]
    completing = sum(1 for j in jobs if "COMPLETING" in j["job_state"])
    arrays = sum(1 for j in jobs if j.get("array_task_string"))
    return arrays, completing, arrays


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shim", required=True)
    ap.add_argument("--plugin", required=True)
    ap.add_argument("--preload", required=True)
    a = ap.parse_args()
    problems = []
    with tempfile.TemporaryDirectory(prefix="shim-locked-allocs.") as tmp:
        gen = os.path.join(tmp, "gen")
        subprocess.run([a.shim, "generate", "--nodes", "300", "--jobs", "3000",
                        "--seed", "11", "--out", gen], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        scenario = os.path.join(tmp, "three.json")
        with open(scenario, "w") as f:
            json.dump({"steps": [
                {"name": "first", "files": ["gen/nodes.json", "gen/jobs.json",
                                            "gen/sdiag.json"]},
                {"name": "second"}, {"name": "third"}]}, f)
        out = os.path.join(tmp, "counts")
        env = dict(os.environ, LD_PRELOAD=a.preload, SM_LOCKED_ALLOCS_OUT=out)
        r = subprocess.run([a.shim, "scenario", "--plugin", a.plugin, scenario],
                           env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           text=True, errors="replace")
        if r.returncode:
            print(r.stderr[-3000:], file=sys.stderr)
            print(f"FAIL: the shim exited {r.returncode}")
            return 1
        steps = read_counts(out)
        bound, completing, arrays = slurm_formatted(os.path.join(gen, "jobs.json"))
    if len(steps) != 3:
        print(f"FAIL: {len(steps)} steps counted, want 3 (is the counter preloaded?)")
        return 1
    for i, s in enumerate(steps, 1):
        print(f"collection {i}: nodes hold {s['nodes']} allocations, "
              f"jobs holds {s['jobs']} (sum {sum(s['jobs'])})")
        if len(s["nodes"]) != 1 or not s["jobs"]:
            problems.append(f"collection {i}: holds {s}, want one nodes hold and "
                            "at least one jobs hold")
    print(f"bound for the jobs holds: {bound} array records "
          f"({completing} completing jobs, which must cost nothing)")
    if not completing or not arrays:
        problems.append("the generated cluster has no completing or no array jobs")
    if steps[0]["nodes"] and steps[0]["nodes"][0] == 0:
        problems.append("the first collection allocated nothing under the nodes "
                        "hold: is the counter counting?")
    for i, s in enumerate(steps[1:], 2):
        if sum(s["nodes"]) != 0:
            problems.append(f"collection {i}: {sum(s['nodes'])} allocations under "
                            "the nodes hold, want 0")
        if sum(s["jobs"]) > bound:
            problems.append(f"collection {i}: {sum(s['jobs'])} allocations under "
                            f"the jobs holds, want at most {bound}")
    for p in problems:
        print("FAIL:", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
