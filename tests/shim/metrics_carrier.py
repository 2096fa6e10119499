#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""metrics_soperator.so driven like slurmctld 25.11+ (parse -> dump ->
free_set, buffer xfree()d by Slurm's allocator) on all five paths.

The 26.05.3 loopback controller's JSON dumps are replayed, and every series
Slurm's own metrics/openmetrics served for that state (its captured HTTP
responses) must be in ours with the same value when NativeValues=yes. The
only exceptions are the ones docs/native-semantics.md explains (values that
moved between the scrape and the dumps). With the defaults, memory is in
bytes where Slurm prints MB, and Soperator's families share the paths.

usage: metrics_carrier.py SHIM METRICS_SO FIXTURES_DIR SLURM_VERSION
"""
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "scripts", "lib"))
import exposition  # noqa: E402

PATHS = ["nodes", "jobs", "partitions", "scheduler", "jobs-users-accts"]
MIB = 1024 * 1024

# Moved between Slurm's scrape and the JSON dumps taken 12 s later
# (docs/native-semantics.md, "Where the samples disagree").
TIMING = {
    "slurm_nodes_noresp": "the ghosts were flagged not responding in between",
    "slurm_partition_nodes_no_resp": "same, per partition",
    "slurm_server_thread_cnt": "sdiag counts its own RPC thread",
    "slurm_sched_stats_timestamp": "our value is the dump's req_time",
}

# Counters slurmctld 22.05 does not keep at all (schedule_exit and bf_exit
# arrived in 23.02): present, but 0, in a plugin built for 22.05.
NOT_IN_2205 = re.compile(r"^slurm_(sched|bf)_exit_")

# 25.11.0 to 26.05.1 add up each record's nodes where the 26.05.3 capture
# counts a node once (docs/native-semantics.md, section 4); for those the
# oracle is the sum of node_count over the jobs holding nodes in the same
# capture's scontrol JSON.
NODES_ALLOC = {"slurm_jobs_nodes_alloc": None,
               "slurm_user_jobs_nodes_alloc": "user_name",
               "slurm_account_jobs_nodes_alloc": "account"}


def sums_nodes_per_record(version):
    v = tuple(int(x) for x in version.split(".")[:3])
    return (25, 11, 0) <= v < (26, 5, 2)


def per_record_nodes(fixtures, key):
    """What a 25.11.0-26.05.1 plugin prints for `key` in this capture."""
    with open(os.path.join(fixtures, "scontrol_show_jobs.json")) as f:
        jobs = json.load(f)["jobs"]
    label = NODES_ALLOC[key[0]]
    total = 0
    for j in jobs:
        if not j.get("nodes") or "PENDING" in j["job_state"]:
            continue
        value = j.get(label, "") if label else ""
        if label and (f'="{value}"' not in key[1] if value else key[1]):
            continue  # another user's or account's series (no label if unset)
        total += j["node_count"]["number"]
    return float(total)

def series(text):
    """(name, labels as Prometheus stores them) -> value."""
    return {(s.name, exposition.stored_braces(s.labels)): float(s.value)
            for s in exposition.samples(text)}


def render(shim, plugin, fixtures, path, conf, collect=True):
    inputs = [os.path.join(fixtures, f) for f in (
        "scontrol_show_nodes.json", "scontrol_show_jobs.json",
        "scontrol_show_partitions.json", "sdiag.json")]
    r = subprocess.run([shim, "render", "-q", "--plugin", plugin, "--path",
                        f"/metrics/{path}", "--conf", conf] +
                       ([] if collect else ["--no-collect"]) + inputs,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if r.returncode != 0:
        raise SystemExit(f"shim failed for /metrics/{path}: {r.stderr.decode()}")
    return r.stdout.decode()


def main():
    shim, plugin, fixtures, version = sys.argv[1:5]
    samples = os.path.join(fixtures, "..", "native-26.05.3")
    problems = []
    with tempfile.TemporaryDirectory() as d:
        native_conf = os.path.join(d, "native.conf")
        default_conf = os.path.join(d, "default.conf")
        with open(native_conf, "w") as f:
            f.write("NativeValues=yes\n")
        with open(default_conf, "w") as f:
            f.write("# defaults\n")
        for path in PATHS:
            with open(os.path.join(samples, f"http_metrics_{path}.txt")) as f:
                slurm = series(re.split(r"\r?\n\r?\n", f.read(), 1)[1])  # minus headers
            ours = series(render(shim, plugin, fixtures, path, native_conf))
            matched = 0
            for key, value in slurm.items():
                if key[0] in TIMING:
                    if key not in ours:
                        problems.append(f"/metrics/{path}: {key} missing")
                    continue
                if key not in ours:
                    problems.append(f"/metrics/{path}: {key[0]}{key[1]} missing")
                elif version.startswith("22.05") and NOT_IN_2205.match(key[0]):
                    if ours[key] != 0:
                        problems.append(f"{key[0]}: {ours[key]} on 22.05, want 0")
                elif key[0] in NODES_ALLOC and sums_nodes_per_record(version):
                    want = per_record_nodes(fixtures, key)
                    if ours[key] != want:
                        problems.append(f"/metrics/{path}: {key[0]}{key[1]} = "
                                        f"{ours[key]}, {version} adds up records: {want}")
                    else:
                        matched += 1
                elif ours[key] != value:
                    problems.append(f"/metrics/{path}: {key[0]}{key[1]} = "
                                    f"{ours[key]}, Slurm printed {value}")
                else:
                    matched += 1
            print(f"/metrics/{path}: {matched} of {len(slurm)} series of Slurm's own "
                  f"plugin equal, {len([k for k in slurm if k[0] in TIMING])} "
                  f"timing exceptions")

        # Defaults: bytes where Slurm prints MB; Soperator's families too.
        nodes = series(render(shim, plugin, fixtures, "nodes", default_conf))
        want = {("slurm_node_memory_bytes", '{node="vm"}'): 2000 * MIB,
                ("slurm_node_memory_total_bytes", '{node_name="vm"}'): 2000 * MIB,
                ("slurm_node_cpus_total", '{node_name="vm"}'): 2}
        for key, value in want.items():
            if nodes.get(key) != value:
                problems.append(f"defaults: {key} = {nodes.get(key)}, want {value}")
        jobs = series(render(shim, plugin, fixtures, "jobs", default_conf))
        if not any(k[0] == "slurm_job_info" for k in jobs):
            problems.append("defaults: /metrics/jobs lacks slurm_job_info")
        # Before the first collection: slurmctld sends 200 whatever dump
        # leaves, so the body must not be empty (a successful scrape
        # without series) but fail Prometheus' parser on purpose, saying
        # why (docs/scraping.md, "Before the first collection").
        for path in PATHS:
            body = render(shim, plugin, fixtures, path, default_conf, collect=False)
            if ("\n503 Service Unavailable: no collection yet: the metrics are not "
                    "ready\n") not in body:
                problems.append(f"/metrics/{path} before the first collection: {body!r}")
            check = subprocess.run(["promtool", "check", "metrics"], input=body.encode(),
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            if check.returncode != 1:  # 0 parsed, 3 lint only; 1 is a parse error
                problems.append(f"/metrics/{path} before the first collection: promtool "
                                f"exit {check.returncode}, want a parse error")
        sched = series(render(shim, plugin, fixtures, "scheduler", default_conf))
        if not any(k[0] == "slurm_controller_rpc_calls_total" for k in sched):
            problems.append("defaults: /metrics/scheduler lacks the RPC families")
    for p in problems:
        print("FAIL:", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
