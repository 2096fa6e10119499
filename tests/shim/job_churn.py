#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The jobs collection's sliced walk while job_list changes between slices.

usage: job_churn.py --shim SHIM --plugin SO [--jobs M]

The plugin copies job_list in ~2 ms slices and resumes after each unlock
(plugin/slurm/job_list_walk.h). `--churn-jobs` makes the shim change the
list at every unlock of the jobs collection, as slurmctld's purges and
submits do: first it purges the jobs from the 17th up to three quarters of
the list (every job the walk could resume after, so the walk must start
again from the head and pass by the first 16, which it copied already),
then it purges every 37th job and moves every 41st to the tail under a new
id (freed memory handed to a new job). The oracle is the generated jobs
file and the shim's log of what it changed:
- every job never purged is exported; nothing exported was never listed;
- no job was copied twice (no duplicate series dropped);
- the restart from the head happened, and the walk took several slices.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shim", required=True)
    ap.add_argument("--plugin", required=True)
    ap.add_argument("--jobs", type=int, default=60000)
    a = ap.parse_args()
    problems = []
    with tempfile.TemporaryDirectory(prefix="shim-job-churn.") as tmp:
        gen = os.path.join(tmp, "gen")
        subprocess.run([a.shim, "generate", "--nodes", "50", "--jobs", str(a.jobs),
                        "--seed", "3", "--out", gen], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with open(os.path.join(gen, "jobs.json")) as f:
            listed = {j["job_id"] for j in json.load(f)["jobs"]}
        scenario = os.path.join(tmp, "churn.json")
        with open(scenario, "w") as f:
            json.dump({"steps": [{"name": "churn",
                                  "files": ["gen/nodes.json", "gen/jobs.json", "gen/sdiag.json"],
                                  "fetch": ["/metrics", "/monitoring"]}]}, f)
        log = os.path.join(tmp, "churn.log")
        r = subprocess.run([a.shim, "scenario", "--plugin", a.plugin, "--churn-jobs", log,
                            "-vv", scenario], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, errors="replace")
        if r.returncode:
            print(r.stderr[-3000:], file=sys.stderr)
            print(f"FAIL: the shim exited {r.returncode}")
            return 1
        purged, added, steps = set(), set(), 0
        with open(log) as f:
            for line in f:
                kind, _, rest = line.partition(" ")
                if kind == "step":
                    steps += 1
                elif kind == "-":
                    purged.add(int(rest))
                elif kind == "+":
                    added.add(int(rest))
        bodies = re.split(r"^# ==> .* <==\n", r.stdout, flags=re.M)[1:]
        if len(bodies) != 2:
            print(f"FAIL: expected 2 bodies, got {len(bodies)}")
            return 1
        exported = [int(m) for m in
                    re.findall(r'^slurm_job_info\{(?:.*?,)?job_id="(\d+)"', bodies[0], flags=re.M)]
        seen = set(exported)
        survivors = listed - purged
        if steps < 3:
            problems.append(f"the walk took {steps} slice(s); the test needs several "
                            "(more --jobs)")
        missing = survivors - seen
        if missing:
            problems.append(f"{len(missing)} jobs never purged are missing, e.g. "
                            f"{sorted(missing)[:5]}")
        strange = seen - listed - added
        if strange:
            problems.append(f"{len(strange)} exported jobs were never listed, e.g. "
                            f"{sorted(strange)[:5]}")
        if not seen & added:
            problems.append("no job added behind the walk was exported")
        dup = re.search(r"^slurm_exporter_duplicate_series_dropped_total (\S+)$", bodies[1],
                        flags=re.M)
        if not dup or float(dup.group(1)) != 0:
            problems.append("duplicate series were dropped (a job copied twice): "
                            f"{dup.group(0) if dup else 'counter missing'}")
        if len(exported) != len(seen):
            problems.append(f"{len(exported) - len(seen)} slurm_job_info lines repeat a job id")
        if "resumed from job_list's head 1 time(s)" not in r.stderr:
            problems.append("the walk did not report exactly one restart from the head")
        print(f"{len(listed)} jobs listed, {len(purged)} purged, {len(added)} added, "
              f"{steps} slices, {len(seen)} exported")
    for p in problems:
        print("FAIL:", p)
    if not problems:
        print("OK")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
