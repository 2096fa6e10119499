#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Live plugin vs. shim replay, series for series, on a real test cluster.

usage: live_vs_replay.py --version 22.05.8|24.11.5 --shim SHIM --plugin SO
                         --shim-plugin SHIM_SO [--keep-dumps DIR] [--keep-cluster]

Starts a loopback cluster (scripts/test-cluster.sh) with the plugin as its
job_submit carrier, puts it in a varied state (running, pending, held,
array, completed jobs; a drained, a down and a commented node), scrapes the
live plugin, dumps the controller with Slurm's own clients (22.05: squeue
--json, sinfo --json, sdiag; 24.11: squeue --json, scontrol show nodes
--json, sdiag --json), replays the dumps through the shim with its build
of the same carrier (the same objects plus the shim's hooks) and compares every series: names, labels and values.

What cannot agree is stated in docs/shim.md ("Live and replay") and
checked loosely here:
- history: slurm_node_fails_total, slurm_node_gpu_seconds_total, the two
  duration histograms and the queue-wait histogram remember every state the
  live plugin saw since it started, a single dump only the current one. Each series of the replay
  must exist live; values are not compared (GPU-seconds also depend on the
  clock).
- clock: slurm_job_duration_seconds (now - start) and the slurm_controller_*
  families, whose RPC counters move with every client call, the dumps
  included. The families must exist on both sides; series are not compared.
Everything else must match exactly. Exit 0 when it does; the cluster is
always stopped.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TEST_CLUSTER = os.path.join(ROOT, "scripts", "test-cluster.sh")
sys.path.insert(0, os.path.join(ROOT, "scripts", "lib"))
from loopback import free_port, port_base  # noqa: E402
import exposition  # noqa: E402

# The replay's series must exist live; values not compared.
HISTORY_FAMILIES = (
    "slurm_node_fails_total",
    "slurm_node_gpu_seconds_total",
    "slurm_node_unavailability_duration_seconds",
    "slurm_node_draining_duration_seconds",
    "slurm_job_queue_wait_seconds",
)
# Families whose series depend on when they are read: only their presence
# is compared.
MOVING_FAMILIES = (
    "slurm_job_duration_seconds",
    "slurm_controller_rpc_calls_total",
    "slurm_controller_rpc_duration_seconds_total",
    "slurm_controller_rpc_user_calls_total",
    "slurm_controller_rpc_user_duration_seconds_total",
    "slurm_controller_server_thread_count",
)


def log(msg):
    print(f"live_vs_replay: {msg}", file=sys.stderr, flush=True)


def parse(text):
    """{(name, labels): value} and the set of families (by TYPE line)."""
    series = {(s.name, tuple(sorted(exposition.label_pairs(s.labels)))): float(s.value)
              for s in exposition.samples(text)}
    families = {line.split()[2] for line in text.splitlines() if line.startswith("# TYPE ")}
    return series, families


def family_of(name):
    for suffix in ("_bucket", "_sum", "_count"):
        if name.endswith(suffix) and name[: -len(suffix)] in HISTORY_FAMILIES:
            return name[: -len(suffix)]
    return name


def compare(live_text, replay_text):
    live, live_fam = parse(live_text)
    replay, replay_fam = parse(replay_text)
    problems = []
    only_live = {f for f in live_fam - replay_fam if f not in HISTORY_FAMILIES}
    if only_live or replay_fam - live_fam:
        problems.append(f"families only live: {sorted(only_live)}; "
                        f"only replay: {sorted(replay_fam - live_fam)}")
    compared = 0  # series whose values were compared (history's are not)
    for key in sorted(set(live) | set(replay)):
        fam = family_of(key[0])
        if fam in MOVING_FAMILIES:
            continue
        if key not in live:
            problems.append(f"only in replay: {key[0]}{dict(key[1])} {replay[key]}")
            continue
        if key not in replay:
            if fam not in HISTORY_FAMILIES:
                problems.append(f"only live: {key[0]}{dict(key[1])} {live[key]}")
            continue
        if fam in HISTORY_FAMILIES:
            continue
        compared += 1
        if live[key] != replay[key]:
            problems.append(f"value differs: {key[0]}{dict(key[1])} live {live[key]} "
                            f"replay {replay[key]}")
    return problems, compared


def run(cmd, env, **kw):
    return subprocess.run(cmd, env=env, check=True, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, **kw).stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--version", required=True)
    ap.add_argument("--shim", required=True)
    ap.add_argument("--plugin", required=True,
                    help="the installed-form job_submit_soperator.so the cluster loads")
    ap.add_argument("--shim-plugin", required=True,
                    help="the shim's build of it (job_submit_soperator_shim.so)")
    ap.add_argument("--keep-dumps")
    ap.add_argument("--keep-cluster", action="store_true")
    a = ap.parse_args()

    work = tempfile.mkdtemp(prefix="shim-live-vs-replay.")
    cluster = os.path.join(work, "cluster")
    out = os.path.join(work, "out")
    dumps = os.path.join(work, "dumps")
    os.makedirs(out)
    os.makedirs(dumps)
    metrics_port, monitoring_port = free_port(), free_port()
    conf = os.path.join(work, "soperator_metrics.conf")
    with open(conf, "w") as f:
        f.write(f"MetricsBindAddress=127.0.0.1:{metrics_port}\n"
                f"MonitoringBindAddress=127.0.0.1:{monitoring_port}\n"
                "CollectionInterval=1s\nLogLevel=info\n")
    plugin_dir = os.path.dirname(os.path.abspath(a.plugin))
    started = False
    ok = False
    try:
        log(f"starting Slurm {a.version} in {cluster}")
        subprocess.run([TEST_CLUSTER, "start", a.version, cluster,
                        "--plugin-dir", plugin_dir, "--job-submit", "soperator",
                        "--metrics-conf", conf, "--port-base", str(port_base((1, 84)))],
                       check=True, stdout=subprocess.DEVNULL)
        started = True
        # The clients' environment, as `source DIR/env.sh` makes it.
        raw = subprocess.run(["bash", "-c", 'source "$1" && env -0', "bash",
                              os.path.join(cluster, "env.sh")],
                             check=True, stdout=subprocess.PIPE).stdout.decode()
        env = dict(kv.split("=", 1) for kv in raw.split("\0") if "=" in kv)
        sb = ["sbatch", "-D", out, "-o", os.path.join(out, "slurm-%j.out"), "--mem=500"]
        # vm has 2 CPUs: two long jobs fill it, the rest waits.
        run(sb + ["-J", "quick", "--wrap", "true"], env)
        time.sleep(2)
        run(sb + ["-J", "sleeper", "--wrap", "sleep 600"], env)
        run(sb + ["-J", "held", "-H", "--wrap", "sleep 600"], env)
        run(sb + ["-J", "arr", "--array=0-3", "--wrap", "sleep 600"], env)
        run(sb + ["-J", 'quoted "name" \\ x', "--comment", "c \"q\"",
                  "--wrap", "sleep 600"], env)
        run(sb + ["-J", "batchpart", "-p", "batch", "-t", "10", "--wrap", "sleep 600"], env)
        run(["scontrol", "update", "nodename=vm", 'comment=node "comment" test'], env)
        run(["scontrol", "update", "nodename=ghost1", "state=drain",
             "reason=maintenance \"test\""], env)
        run(["scontrol", "update", "nodename=ghost2", "state=down",
             "reason=manual down test"], env)
        # Until two jobs run and the quick one has finished.
        deadline = time.time() + 60
        while True:
            states = run(["squeue", "-h", "-o", "%T"], env).split()
            if states.count("RUNNING") == 2 and "COMPLETING" not in states:
                break
            if time.time() > deadline:
                raise SystemExit(f"cluster did not settle: {states}")
            time.sleep(0.5)
        # The scrape and the dumps are moments apart and slurmctld keeps
        # scheduling: a job starting in between is a difference that is not
        # ours. Up to three tries; one must agree series for series.
        for attempt in range(1, 4):
            time.sleep(3)  # a few of the plugin's 1 s collections
            live = urllib.request.urlopen(
                f"http://127.0.0.1:{metrics_port}/metrics", timeout=30).read().decode()
            # Dump right after, like an operator would.
            if a.version.startswith("22.05"):
                files = {"squeue.json": ["squeue", "--json"],
                         "sinfo.json": ["sinfo", "--json"],
                         "sdiag.txt": ["sdiag"]}
            else:
                # Since 23.02 squeue --json lists finished jobs only with
                # --states=all; scontrol show jobs --json lists what slurmctld
                # holds, as the plugin does. squeue's is kept as a sample only.
                files = {"scontrol_show_jobs.json": ["scontrol", "show", "jobs", "--json"],
                         "scontrol_show_nodes.json": ["scontrol", "show", "nodes", "--json"],
                         "scontrol_show_partitions.json": ["scontrol", "show", "partitions", "--json"],
                         "sdiag.json": ["sdiag", "--json"],
                         "squeue.json": ["squeue", "--json"]}
            paths = []
            for name, cmd in files.items():
                path = os.path.join(dumps, name)
                with open(path, "w") as f:
                    f.write(run(cmd, env))
                if name != "squeue.json" or a.version.startswith("22.05"):
                    paths.append(path)
            if not a.version.startswith("22.05"):
                paths_all = os.path.join(dumps, "squeue_states_all.json")
                with open(paths_all, "w") as f:
                    f.write(run(["squeue", "--json", "--states=all"], env))
                files["squeue_states_all.json"] = None
            if a.keep_dumps:
                os.makedirs(a.keep_dumps, exist_ok=True)
                for name in files:
                    shutil.copy(os.path.join(dumps, name), a.keep_dumps)
                with open(os.path.join(a.keep_dumps, "live_metrics.txt"), "w") as f:
                    f.write(live)
            replay = subprocess.run([a.shim, "render", "--plugin", a.shim_plugin] + paths,
                                    check=True, stdout=subprocess.PIPE, text=True).stdout
            problems, compared = compare(live, replay)
            if compared == 0:
                problems.append("no series compared")
            if not problems:
                break
            log(f"try {attempt}: {len(problems)} difference(s) between the live "
                "plugin and the replay:")
            for p in problems:
                print("  " + p, file=sys.stderr)
            if attempt == 3:
                with open(os.path.join(work, "live.txt"), "w") as f:
                    f.write(live)
                with open(os.path.join(work, "replay.txt"), "w") as f:
                    f.write(replay)
                log(f"kept {work}")
                return 1
        log(f"{compared} series agree in value (Slurm {a.version}); history series "
            "only exist on both sides")
        ok = True
        return 0
    finally:
        if started and not a.keep_cluster:
            subprocess.run([TEST_CLUSTER, "stop", cluster], stdout=subprocess.DEVNULL)
        if ok and not a.keep_cluster:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
