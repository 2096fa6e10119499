#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""`generate` then `render`: the synthetic cluster is consistent and valid.

usage: generate_test.py --shim SHIM --plugin SO --check-exposition PY
                        [--nodes N] [--jobs M]

Generates a cluster, renders it through the plugin and checks that what
the plugin derives agrees with what the node dump says (allocated CPUs and
memory, the base state, MIXED included: those come from the jobs'
allocations), that every job is exported, that every line of the generated
sshare.json, every QoS, license and reservation gives its series, that two
runs with one seed give identical files, and that promtool and the
OpenMetrics parser accept the output (hostile accounting names included).
"""
import argparse
import filecmp
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
    ap.add_argument("--check-exposition", required=True)
    ap.add_argument("--nodes", type=int, default=300)
    ap.add_argument("--jobs", type=int, default=3000)
    a = ap.parse_args()
    problems = []
    with tempfile.TemporaryDirectory(prefix="shim-generate.") as tmp:
        gen = [a.shim, "generate", "--nodes", str(a.nodes), "--jobs", str(a.jobs),
               "--partitions", "5", "--reservations", "3", "--users", "40", "--rpc-types", "30",
               "--accounts", "9", "--user-accounts", "2", "--qos", "7", "--licenses", "8",
               "--odd-names", "3", "--seed", "7"]
        subprocess.run(gen + ["--out", os.path.join(tmp, "a")], check=True)
        subprocess.run(gen + ["--out", os.path.join(tmp, "b")], check=True,
                       stderr=subprocess.DEVNULL)
        written = sorted(os.listdir(os.path.join(tmp, "a")))
        dumps = ["jobs.json", "licenses.json", "nodes.json", "qos.json", "reservations.json",
                 "sdiag.json", "sshare.json"]
        if written != dumps:
            problems.append(f"generate wrote {written}, expected {dumps}")
        for f in written:
            if not filecmp.cmp(os.path.join(tmp, "a", f), os.path.join(tmp, "b", f), shallow=False):
                problems.append(f"{f} differs between two runs with the same seed")
        inputs = [os.path.join(tmp, "a", f) for f in ("nodes.json", "jobs.json", "sdiag.json")]
        inputs += [os.path.join(tmp, "a", f) for f in written if f not in
                   ("nodes.json", "jobs.json", "sdiag.json")]
        render = [a.shim, "render", "--plugin", a.plugin] + inputs
        out = subprocess.run(render, check=True, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True).stdout
        for fmt, extra in (("text", []), ("openmetrics", ["--openmetrics"])):
            if subprocess.run([sys.executable, a.check_exposition, fmt] + render + extra,
                              stderr=subprocess.DEVNULL).returncode:
                problems.append(f"check_exposition.py {fmt} failed")
        with open(inputs[0]) as f:
            nodes = json.load(f)["nodes"]
        with open(inputs[1]) as f:
            jobs = json.load(f)["jobs"]
        values, bases = {}, {}
        for line in out.splitlines():
            m = re.match(r'^(slurm_node_cpus_allocated|slurm_node_memory_allocated_bytes)'
                         r'\{node_name="([^"]*)"\} (\S+)$', line)
            if m:
                values[(m.group(1), m.group(2))] = float(m.group(3))
            elif line.startswith("slurm_node_info{"):
                bases[re.search(r'node_name="([^"]*)"', line).group(1)] = \
                    re.search(r'state_base="(\w*)"', line).group(1)
        for n in nodes:
            name = n["name"]
            if values.get(("slurm_node_cpus_allocated", name)) != n["alloc_cpus"]:
                problems.append(f"{name}: alloc_cpus {n['alloc_cpus']}, plugin "
                                f"{values.get(('slurm_node_cpus_allocated', name))}")
            if values.get(("slurm_node_memory_allocated_bytes", name)) != n["alloc_memory"] * 1048576:
                problems.append(f"{name}: alloc_memory {n['alloc_memory']} MB differs")
            if bases.get(name) != n["state"][0]:
                problems.append(f"{name}: state {n['state']}, plugin {bases.get(name)}")
        info = sum(1 for l in out.splitlines() if l.startswith("slurm_job_info{"))
        if info != len(jobs):
            problems.append(f"{info} slurm_job_info series for {len(jobs)} jobs")
        # One series per record of each accounting dump (sshare: per line
        # with RawShares of its own, accounts and users apart; docs/metrics.md).
        def load(f, *keys):
            with open(os.path.join(tmp, "a", f)) as fh:
                d = json.load(fh)
            for k in keys:
                d = d[k]
            return d
        lines = load("sshare.json", "shares", "shares")
        want = {
            "slurm_account_fairshare_raw_usage_cpu_seconds{":
                sum(1 for l in lines if l["type"] == ["ASSOCIATION"]),
            "slurm_user_fairshare_raw_shares{":
                sum(1 for l in lines if l["type"] == ["USER"] and l["shares"]["set"]),
            "slurm_qos_priority{": len(load("qos.json", "qos")),
            "slurm_license_total{": len(load("licenses.json", "licenses")),
            "slurm_reservation_info{": len(load("reservations.json", "reservations")),
        }
        for prefix, n in want.items():
            got = sum(1 for l in out.splitlines() if l.startswith(prefix))
            if got != n:
                problems.append(f"{got} {prefix[:-1]} series for {n} records")
    for p in problems[:30]:
        print("FAIL: " + p)
    if not problems:
        print(f"generate: {len(nodes)} nodes, {len(jobs)} jobs and the accounting dumps "
              "replayed consistently")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
