#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The accounting-side copies at benchmark scale, through the offline shim
and the real plugin: `generate` makes 10,000 nodes and 50,000 jobs with
their accounting side (1,000 users in 2,000 user associations under 100
accounts as sshare -a --json, 20 QoS with limits as sacctmgr show qos
--json, 10 licenses (3 remote) and 20 reservations as scontrol show
licenses|reservations --json), then this script renders /monitoring and
/metrics once and prints each sub-collector's lock hold as the plugin
measured it (slurm_exporter_controller_last_lock_hold_seconds) and the
series per group.

This is the shim, not slurmctld: nobody else takes the locks, so it gives
the cost of our copies on the real structures, not the waits they impose
(bench/controller_bench.py measures those, without slurmdbd).

usage: bench/accounting_shim_bench.py [--build DIR] [--nodes N] [--jobs M]
                                      [--users U]
       defaults: build-24.11.5, 10,000 nodes, 50,000 jobs, 1,000 users
"""
import argparse
import os
import re
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build-24.11.5"))
    ap.add_argument("--nodes", type=int, default=10000)
    ap.add_argument("--jobs", type=int, default=50000)
    ap.add_argument("--users", type=int, default=1000)
    a = ap.parse_args()
    build = a.build
    shim = os.path.join(build, "shim", "soperator-metrics-shim")
    plugin = os.path.join(build, "shim", "job_submit_soperator_shim.so")
    with tempfile.TemporaryDirectory(prefix="sm-acct-bench.") as tmp:
        c = os.path.join(tmp, "c")
        subprocess.run([shim, "generate", "--nodes", str(a.nodes), "--jobs", str(a.jobs),
                        "--users", str(a.users), "--accounts", "100", "--user-accounts", "2",
                        "--qos", "20", "--licenses", "10", "--reservations", "20",
                        "--odd-names", "0", "--out", c],
                       check=True, capture_output=True)
        files = sorted(os.path.join(c, f) for f in os.listdir(c))
        mon = subprocess.run([shim, "render", "-q", "--plugin", plugin, "--path", "/monitoring"]
                             + files, check=True, capture_output=True, text=True).stdout
        body = subprocess.run([shim, "render", "-q", "--plugin", plugin] + files,
                              check=True, capture_output=True, text=True).stdout
    def by_collector(family):
        return {m.group(1): float(m.group(2)) for m in re.finditer(
            family + r'\{collector="([^"]+)"\} (\S+)', mon)}
    # The shim's collector durations follow its virtual clock (docs/shim.md);
    # lock holds are timed on the real one.
    hold = by_collector("slurm_exporter_controller_last_lock_hold_seconds")
    groups = {"fairshare": r"slurm_(account|user)_fairshare", "QoS": r"slurm_qos_",
              "licenses": r"slurm_license_", "reservations": r"slurm_reservation_",
              "GRES per node": r"slurm_node_gres_", "pending jobs": r"slurm_(queue|cores)_pending",
              "queue waits": r"slurm_job_queue_wait_seconds"}
    series = {g: sum(1 for l in body.splitlines() if not l.startswith("#") and re.match(p, l))
              for g, p in groups.items()}
    print("| sub-collector | lock hold |")
    print("|---|---|")
    for col in sorted(hold):
        print(f"| {col} | {hold[col] * 1000:.2f} ms |")
    print()
    print("| group | series |")
    print("|---|---|")
    for g, n in series.items():
        print(f"| {g} | {n} |")


if __name__ == "__main__":
    main()
