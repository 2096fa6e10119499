#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Soperator's own test fixtures through the shim: an outside oracle.

usage: soperator_fixtures.py --shim SHIM --plugin SO FIXTURE_DIR

FIXTURE_DIR is tests/fixtures/soperator-slurmapi: three files of
nebius/soperator's internal/slurmapi/testdata (a single node object as
slurmrestd v0.0.44 prints it, a single job object, a /diag response; see
its NOTICE). Soperator's own Go tests pin what its exporter reads from each
of them; the tables below copy those assertions (file and line at the
commit in NOTICE), and the rules after them are how Soperator's collector
turns the values it read into series (internal/exporter/collector.go). The
expected lines are built from those two alone, never from our code, and
every one must be in our /metrics exactly (name, every label, value).
"""
import argparse
import json
import os
import re
import subprocess
import sys
from decimal import Decimal

MIB = 1024 * 1024

# internal/slurmapi/node_test.go:22-45 (TestNodeFromAPI, usual_node_rest.json).
NODE = {
    "Name": "worker-1", "InstanceID": "computeinstance-xxxxxxxxxxxxx",
    "States": {"IDLE", "DYNAMIC_NORM"}, "Reason": None, "Partitions": ["main"],
    "Address": "10.0.0.1", "Comment": "comment",
    "CPUs": 16, "AllocCPUs": 0, "AllocIdleCPUs": 16, "EffectiveCPUs": 16,
    "AllocMemoryMB": 0, "RealMemoryMB": 191356, "FreeMemoryMB": 168840,
    "SpecializedMemoryMB": 0,
}
# internal/slurmapi/job_test.go:575-628 (TestJobFromAPI_SmokeTest, 2_node_job.json).
JOB = {
    "ID": 349, "Name": "wrap", "State": "COMPLETED", "StateReason": "None",
    "Partition": "main", "UserName": "root",
    "StandardError": "/root/slurm-349.out", "StandardOutput": "/root/slurm-349.out",
    "NodeList": ["worker-1", "worker-0"], "NodeCount": 2,
}
# internal/slurmapi/client_test.go:20-51 (TestClient_GetDiag_LargeScheduleCycleSum).
DIAG = {
    "ServerThreadCount": 3, "RpcsByMessageType": 2,
    "RpcsByMessageType[0].TotalTime": 6_871_947_674,
    "RpcsByUser": 1, "RpcsByUser[0].TotalTime": 7_384_185_912,
}

# node.go:243-251: the first of these in the node's states is its base.
BASE_STATES = ["UNKNOWN", "DOWN", "IDLE", "ALLOCATED", "ERROR", "MIXED", "FUTURE"]
# collector.go:630-653: three flags print "true"/"false", the newer ones
# "true"/"" (node.go:123-222 names the state word behind each).
OLD_FLAGS = {"state_is_drain": "DRAIN", "state_is_maintenance": "MAINTENANCE",
             "state_is_reserved": "RESERVED"}
NEW_FLAGS = {"state_is_completing": "COMPLETING", "state_is_fail": "FAIL",
             "state_is_planned": "PLANNED", "state_is_not_responding": "NOT_RESPONDING",
             "state_is_invalid": "INVALID", "state_is_cloud": "CLOUD",
             "state_is_power_down": "POWER_DOWN", "state_is_power_drain": "POWER_DRAIN",
             "state_is_powered_down": "POWERED_DOWN",
             "state_is_powering_down": "POWERING_DOWN",
             "state_is_powering_up": "POWERING_UP", "state_is_power_up": "POWER_UP"}


def series(name, labels, value):
    inner = ",".join(f'{k}="{v}"' for k, v in sorted(labels.items()))
    return f"{name}{{{inner}}} {value}" if labels else f"{name} {value}"


def number(v):
    """A sample value as client_golang prints it: Go's strconv.FormatFloat(v,
    'g', -1, 64), the shortest digits, exponent form from 1e6 and below
    1e-4."""
    f = float(v)
    if f == 0:
        return "0"
    sign, digits, exp = Decimal(repr(f)).normalize().as_tuple()
    x = len(digits) - 1 + exp
    ds = "".join(map(str, digits))
    if x < -4 or x >= 6:
        mant = ds[0] + ("." + ds[1:] if len(ds) > 1 else "")
        return f"{'-' if sign else ''}{mant}e{'+' if x >= 0 else '-'}{abs(x):02d}"
    return format(Decimal(repr(f)).normalize(), "f")


def node_lines(n, reservation):
    """collector.go:610-721 (slurmNodeMetrics)."""
    states = n["States"]
    base = next(b for b in BASE_STATES if b in states)
    drained_idle = base == "IDLE" and "DRAIN" in states
    unavailable = "DOWN" in states or "NOT_RESPONDING" in states or drained_idle
    info = {"node_name": n["Name"], "instance_id": n["InstanceID"], "state_base": base,
            "is_unavailable": "true" if unavailable else "",
            "reservation_name": reservation, "address": n["Address"],
            "reason": n["Reason"] or "", "comment": n["Comment"]}
    info.update({k: str(w in states).lower() for k, w in OLD_FLAGS.items()})
    info.update({k: "true" if w in states else "" for k, w in NEW_FLAGS.items()})
    name = {"node_name": n["Name"]}
    out = [series("slurm_node_info", info, 1),
           series("slurm_node_cpus_total", name, n["CPUs"]),
           series("slurm_node_cpus_allocated", name, n["AllocCPUs"]),
           series("slurm_node_cpus_idle", name, n["AllocIdleCPUs"]),
           series("slurm_node_cpus_effective", name, n["EffectiveCPUs"]),
           series("slurm_node_memory_total_bytes", name, number(n["RealMemoryMB"] * MIB)),
           series("slurm_node_memory_allocated_bytes", name, number(n["AllocMemoryMB"] * MIB)),
           series("slurm_node_memory_free_bytes", name, number(n["FreeMemoryMB"] * MIB)),
           series("slurm_node_memory_effective_bytes", name,
                  number(max(0, n["RealMemoryMB"] - n["SpecializedMemoryMB"]) * MIB))]
    out += [series("slurm_node_partition", {"node_name": n["Name"], "partition": p}, 1)
            for p in n["Partitions"]]
    return out


def job_lines(j):
    """collector.go:729-817 (slurmJobMetrics): the labels of slurm_job_info
    Soperator's test pins, and one slurm_node_job per node of its list."""
    pinned = {"job_id": str(j["ID"]), "job_name": j["Name"], "job_state": j["State"],
              "job_state_reason": j["StateReason"], "slurm_partition": j["Partition"],
              "user_name": j["UserName"], "standard_error": j["StandardError"],
              "standard_output": j["StandardOutput"]}
    nodes = [series("slurm_node_job", {"job_id": str(j["ID"]), "node_name": n,
                                       "nodeset_name": "", "nvlink_instance_group": ""}, 1)
             for n in j["NodeList"]]
    return pinned, nodes


def diag_lines(d, fixture_types, fixture_users):
    """collector.go:876-930 (slurmRPCMetrics): total_time in microseconds
    becomes seconds. Which message type and user index 0 is comes from the
    fixture (Soperator's test pins only the numbers)."""
    t0, u0 = fixture_types[0], fixture_users[0]
    return [
        series("slurm_controller_server_thread_count", {}, d["ServerThreadCount"]),
        series("slurm_controller_rpc_duration_seconds_total",
               {"message_type": t0["message_type"]},
               number(d["RpcsByMessageType[0].TotalTime"] / 1e6)),
        series("slurm_controller_rpc_user_duration_seconds_total",
               {"user": u0["user"], "user_id": str(u0["user_id"])},
               number(d["RpcsByUser[0].TotalTime"] / 1e6)),
    ]


def labels_of(line):
    m = re.match(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)\{(.*)\} (\S+)$', line)
    if not m:
        return None, {}, None
    return m.group(1), dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', m.group(2))), m.group(3)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shim", required=True)
    ap.add_argument("--plugin", required=True)
    ap.add_argument("fixtures")
    a = ap.parse_args()
    files = [os.path.join(a.fixtures, f)
             for f in ("usual_node_rest.json", "2_node_job.json", "sdiag_rest.json")]
    with open(files[0]) as f:
        node_doc = json.load(f)
    with open(files[2]) as f:
        stats = json.load(f)["statistics"]
    # The three files were captured at different times (sdiag's req_time is
    # before the job ran): the replay's clock is set after the job ended.
    r = subprocess.run([a.shim, "render", "-q", "--now", "1749564100", "--plugin", a.plugin]
                       + files, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode:
        print(f"FAIL: render exited {r.returncode}: {r.stderr.strip()}")
        return 1
    body = [l for l in r.stdout.splitlines() if l and not l.startswith("#")]
    version = subprocess.run([a.shim, "version"], stdout=subprocess.PIPE, text=True,
                             check=True).stdout.split()[-1]
    node = dict(NODE)
    if tuple(int(x) for x in version.split(".")[:2]) < (23, 11):
        # Slurm before 23.11 has no instance_id (docs/shim.md: the plugin
        # exports "" there).
        node["InstanceID"] = ""
    have = set(body)
    problems = []
    expected = node_lines(node, node_doc["reservation"]) + diag_lines(
        DIAG, stats["rpcs_by_message_type"], stats["rpcs_by_user"])
    pinned, node_jobs = job_lines(JOB)
    expected += node_jobs
    for line in expected:
        if line not in have:
            name = line.split("{")[0].split(" ")[0]
            ours = [l for l in body if l.split("{")[0].split(" ")[0] == name]
            problems.append(f"expected {line}\n  ours: {ours or 'none'}")
    # Exactly as many series as Soperator emits for what its tests pin.
    counts = {"slurm_node_info": 1, "slurm_job_info": 1,
              "slurm_node_job": len(JOB["NodeList"]),
              "slurm_node_partition": len(NODE["Partitions"]),
              "slurm_controller_rpc_calls_total": DIAG["RpcsByMessageType"],
              "slurm_controller_rpc_user_calls_total": DIAG["RpcsByUser"]}
    for name, n in counts.items():
        got = sum(1 for l in body if l.split("{")[0].split(" ")[0] == name)
        if got != n:
            problems.append(f"{name}: {got} series, Soperator emits {n}")
    infos = [labels_of(l) for l in body if l.startswith("slurm_job_info{")]
    for _, labels, value in infos:
        for k, v in pinned.items():
            if labels.get(k) != v:
                problems.append(f"slurm_job_info {k}={labels.get(k)!r}, Soperator's test: {v!r}")
        if value != "1":
            problems.append(f"slurm_job_info value {value}")
    for p in problems:
        print("FAIL: " + p)
    if not problems:
        print(f"Soperator's fixtures: {len(expected)} series and {len(pinned)} job labels "
              f"as Soperator's tests pin them")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
