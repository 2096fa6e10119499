#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The accounting-side copies at benchmark scale, through the offline shim
and the real plugin: `generate` makes 10,000 nodes and 50,000 jobs, this
script adds 1,000 users in 2,000 user associations under 100 accounts
(sshare -a --json), 20 QoS with limits (sacctmgr show qos --json), 10
licenses (3 remote) and 20 reservations (scontrol show licenses|reservations
--json), then renders /monitoring and /metrics once and prints each
sub-collector's lock hold as the plugin measured it
(slurm_exporter_controller_last_lock_hold_seconds) and the series per
group.

This is the shim, not slurmctld: nobody else takes the locks, so it gives
the cost of our copies on the real structures, not the waits they impose
(bench/controller_bench.py measures those, without slurmdbd).

usage: bench/accounting_shim_bench.py [--build DIR] [--nodes N] [--jobs M]
                                      [--users U]
       defaults: build-24.11.5, 10,000 nodes, 50,000 jobs, 1,000 users
"""
import argparse
import json
import os
import re
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def num(v):
    return {"set": True, "infinite": False, "number": v}


def dumps(nodes, accounts=100, users=1000, per_user=2, qos=20, licenses=10, resv=20):
    tres = ["cpu", "mem", "energy", "node", "billing", "fs/disk", "vmem", "pages",
            "gres/gpu"] + [f"license/lic{i}" for i in range(licenses)]
    tres_list = [{"name": t, "value": 0} for t in tres]
    lines = [{"id": 1, "name": "root", "parent": "", "type": ["ASSOCIATION"],
              "shares": {"set": False, "infinite": False, "number": 0},
              "shares_normalized": num(1.0), "effective_usage": num(1.0), "usage": 1000000,
              "tres": {"usage": tres_list}}]
    aid = 2
    for a in range(accounts):
        lines.append({"id": aid, "name": f"acct{a}", "parent": "root", "type": ["ASSOCIATION"],
                      "shares": num(1 + a % 7), "shares_normalized": num(1.0 / accounts),
                      "usage_normalized": num(0.01), "effective_usage": num(0.01),
                      "usage": 10000 + a, "fairshare": {"factor": num(0.0), "level": num(1.0)},
                      "tres": {"usage": tres_list}})
        aid += 1
    for u in range(users):
        for k in range(per_user):
            a = (u * per_user + k) % accounts
            lines.append({"id": aid, "name": f"user{u}", "parent": f"acct{a}", "type": ["USER"],
                          "shares": num(1), "shares_normalized": num(0.05),
                          "usage_normalized": num(0.001), "effective_usage": num(0.001),
                          "usage": u + k, "fairshare": {"factor": num(0.5), "level": num(1.0)},
                          "tres": {"usage": tres_list}})
            aid += 1
    q = [{"name": f"qos{i}", "id": i + 1, "priority": num(i),
          "limits": {"max": {"active_jobs": {"count": num(100 + i)},
                             "jobs": {"active_jobs": {"per": {"user": num(10)}}},
                             "tres": {"total": [{"type": "cpu", "name": "", "count": 1000}],
                                      "per": {"user": [{"type": "gres", "name": "gpu",
                                                        "count": 8}]}}}}}
         for i in range(qos)]
    lic = [{"LicenseName": f"lic{i}" + ("@srv" if i < 3 else ""), "Total": 100, "Used": i,
            "Free": 100 - i, "Reserved": 0, "Remote": i < 3, "LastConsumed": i,
            "LastDeficit": 0, "LastUpdate": 1800000000} for i in range(licenses)]
    rv = [{"name": f"resv{i}", "users": "user1", "node_list": nodes[i], "partition": "",
           "flags": ["MAINT"], "start_time": num(1799990000), "end_time": num(1800090000),
           "node_count": 1, "core_count": 64} for i in range(resv)]
    return ({"shares": {"shares": lines, "total_shares": 0}}, {"qos": q},
            {"licenses": lic, "last_update": num(1800000000)},
            {"reservations": rv, "last_update": num(1800000000)})


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
                        "--out", c],
                       check=True, capture_output=True)
        with open(os.path.join(c, "nodes.json")) as f:
            names = [n["name"] for n in json.load(f)["nodes"][:20]]
        files = sorted(os.path.join(c, f) for f in os.listdir(c))
        for name, doc in zip(("sshare.json", "qos.json", "licenses.json", "reservations.json"),
                             dumps(names, users=a.users)):
            p = os.path.join(tmp, name)
            with open(p, "w") as f:
                json.dump(doc, f)
            files.append(p)
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
