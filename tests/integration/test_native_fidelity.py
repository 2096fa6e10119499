#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Slurm's own metrics/openmetrics against ours with NativeValues=yes, series
by series, on one real slurmctld 25.11 or later (docs/compat.md, "The
26.05.3 check", step 1, which this test repeats in CI).

slurmctld runs with MetricsType=metrics/openmetrics (Slurm's plugin, the
oracle) and JobSubmitPlugins=soperator (ours, NativeValues=yes, collecting
every second). The state is the by-hand check's: jobs running, failed,
completed, cancelled, held, pending on memory, on two partitions, on a
begin time, of another user, a GPU array; a node drained and one down.
Each of Slurm's five paths is fetched from slurmctld's port and ours from
our listener back to back, until they agree: every series Slurm prints
must be in ours with its value, within the bounds of docs/compat.md
("Tolerance, and what differs and why") for values that depend on when
they are read, and a family of Slurm's may hold no series Slurm does not
print.

usage: test_native_fidelity.py VERSION PLUGIN_DIR
"""

import http.client
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Cluster, wait_for  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "scripts", "lib"))
import exposition  # noqa: E402

PATHS = ["nodes", "jobs", "partitions", "scheduler", "jobs-users-accts"]

# docs/compat.md, "Tolerance, and what differs and why": (rule, bound).
ANY = ("any", None)
TOLERANCE = [
    # ours is read by the sdiag RPC we send, whose own thread counts
    (re.compile(r"^slurm_server_thread_cnt$"), ("abs", 3)),
    # microseconds slurmctld measures per scheduling cycle
    (re.compile(r"^slurm_(schedule_cycle_(last|max|tot)|sched_mean_cycle|"
                r"bf_cycle_(last|max|tot)|bf_mean_cycle)$"), ANY),
    # slurmd reports free memory with each registration and ping
    (re.compile(r"^slurm_(node_memory_free_bytes|nodes_mem_free|"
                r"partition_nodes_mem_free)$"), ("rel", 0.05)),
    # wall-clock timestamps, one process: seconds apart at most
    (re.compile(r"^slurm_(last_proc_req_start|sdiag_job_states_ts|bf_when_last_cycle|"
                r"sched_stats_timestamp)$"), ("abs", 10)),
    # a scheduling cycle or an agent run may pass between the two reads
    (re.compile(r"^slurm_(schedule_cycle_cnt|bf_cycle_cnt|.*depth.*|.*queue_len.*|"
                r"sched_exit_.*|bf_exit_.*|agent_.*)$"), ("abs", 30)),
]


def rule(name):
    for pattern, r in TOLERANCE:
        if pattern.match(name):
            return r
    return ("equal", 0)


def within(name, ours, theirs):
    kind, bound = rule(name)
    if kind == "any":
        return True
    if kind == "abs":
        return abs(ours - theirs) <= bound
    if kind == "rel":
        return abs(ours - theirs) <= bound * max(abs(theirs), 1)
    return ours == theirs


def series(text):
    """(name, labels as Prometheus stores them) -> value."""
    return {(s.name, exposition.stored_braces(s.labels)): float(s.value)
            for s in exposition.samples(text)}


def get(port, path):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", path)
        r = conn.getresponse()
        body = r.read()
        if r.status != 200:
            raise AssertionError(f"GET :{port}{path}: {r.status} {body[:200]!r}")
        return body.decode()
    finally:
        conn.close()


def compare(c, path):
    """Differences between Slurm's body and ours for one path, and the
    numbers of series equal and within tolerance."""
    theirs = series(get(int(c.env["SM_SLURMCTLD_PORT"]), f"/metrics/{path}"))
    ours = series(get(c.metrics_port, f"/metrics/{path}"))
    names = {k[0] for k in theirs}
    problems, equal, tolerated = [], 0, 0
    for key, value in sorted(theirs.items()):
        if key not in ours:
            problems.append(f"{key[0]}{key[1]} missing (Slurm: {value:g})")
        elif ours[key] == value:
            equal += 1
        elif within(key[0], ours[key], value):
            tolerated += 1
        else:
            problems.append(f"{key[0]}{key[1]} = {ours[key]:g}, Slurm: {value:g}")
    for key in sorted(ours):
        if key[0] in names and key not in theirs:
            problems.append(f"{key[0]}{key[1]} = {ours[key]:g}, not in Slurm's body")
    return problems, len(theirs), equal, tolerated


def build_state(c):
    """The by-hand check's cluster state (docs/compat.md, "Cluster")."""
    c.sbatch("-A", "physics", "-n", "1", "--wrap", "sleep 600")          # running
    c.sbatch("--wrap", "exit 3")                                         # failed
    c.sbatch("--wrap", "true")                                           # completed
    c.sbatch("--array=0-3", "--gres=gpu:1", "-A", "chem", "--wrap", "sleep 600")
    c.sbatch("-H", "--wrap", "true")                                     # held
    c.sbatch("--mem=1900", "--wrap", "true")                             # pending on memory
    c.sbatch("-p", "debug,batch", "-N", "2", "--wrap", "true")           # two partitions
    c.sbatch("--begin=now+1hour", "--wrap", "true")                      # begin time
    cancelled = c.sbatch("-H", "--wrap", "true")
    c.run("scancel", str(cancelled))
    c.sbatch("--uid=daemon", "-A", "chem", "-H", "--wrap", "true")       # another user
    c.scontrol("update", "nodename=ghost1", "state=drain", "reason=bad dimm")
    c.scontrol("update", "nodename=ghost2", "state=down", "reason=pulled cable")
    # Until the finished jobs are finished and the ghosts are flagged not
    # responding (SlurmdTimeout=10), both bodies move under our feet.
    wait_for("the failed and completed jobs to end",
             lambda: not c.run("squeue", "-h", "-t", "CONFIGURING,COMPLETING", "-o", "%i")
             .strip(), timeout=60)
    wait_for("the ghosts to be flagged not responding",
             lambda: all(n.get("State", "").endswith("*") or "NOT_RESPONDING" in
                         n.get("State", "") for name, n in c.nodes().items()
                         if name.startswith("ghost")), timeout=90, interval=1)


def main():
    version, plugin_dir = sys.argv[1], sys.argv[2]
    c = Cluster(version, plugin_dir, gpus=2,
                conf_extra=["MetricsType=metrics/openmetrics", "DefMemPerCPU=400",
                            "SlurmdTimeout=10", "ReturnToService=1", "MinJobAge=7200"],
                metrics_conf_extra=["NativeValues=yes"])
    failures = []
    try:
        build_state(c)
        for path in PATHS:
            last = None
            end = time.monotonic() + 60
            while True:
                last = compare(c, path)
                if not last[0] or time.monotonic() > end:
                    break
                time.sleep(1)
            problems, total, equal, tolerated = last
            print(f"/metrics/{path}: {total} native series, {equal} equal, "
                  f"{tolerated} within tolerance, {len(problems)} different",
                  flush=True)
            failures += [f"/metrics/{path}: {p}" for p in problems]
            if total == 0:
                failures.append(f"/metrics/{path}: Slurm's body has no series")
    finally:
        c.cleanup()
    for f in failures:
        print("FAIL: " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
