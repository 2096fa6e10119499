#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Soperator's own dashboard queries against our metrics: a real
VictoriaMetrics (Debian's victoria-metrics, MetricsQL like Soperator's
stack) scrapes a loopback cluster with the plugin loaded, and every query of
slurm-queries.txt that uses only slurm_* metrics is run. Every one must
execute; the test prints how many return data and fails if a query that the
cluster's state must answer comes back empty.

usage: test_dashboards.py VERSION PLUGIN_DIR [QUERIES_FILE]
"""

import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Cluster, free_port, http_get, wait_for  # noqa: E402

QUERIES = os.path.join(os.path.dirname(__file__), "..", "fixtures",
                       "soperator-dashboards", "slurm-queries.txt")

# Grafana variables, set the way a user looking at everything would.
VARIABLES = {
    "${partition_match_exp}": '=~"^.*$"',
    "$__rate_interval": "1m",
    "$__interval": "30s",
    "$__range": "10m",
    "$slurm_job": ".*",
    "$worker": ".*",
    "$node_name": ".*",
    "$user_name": ".*",
    "$rack": ".*",
    "$ip": ".*",
}
OTHER_EXPORTERS = re.compile(r"DCGM_|kube_|\bnode_(memory|cpu|infiniband|uname)")

# Panels whose queries this cluster's state must answer.
MUST_ANSWER = [
    "cluster_health.json :: Nodes",
    "cluster_health.json :: Running Jobs",
    "cluster_health.json :: Total Node Failures",
    "cluster_health.json :: Queue Length",
    "cluster_health.json :: Avg Draining Time",
]


def load_queries(path):
    """'## dashboard :: panel' headers, each followed by one query."""
    out, title, lines = [], None, []
    with open(path) as f:
        for line in f:
            if line.startswith("## "):
                if title and "".join(lines).strip():
                    out.append((title, "".join(lines).strip()))
                title, lines = line[3:].strip(), []
            else:
                lines.append(line)
    if title and "".join(lines).strip():
        out.append((title, "".join(lines).strip()))
    return out


def substitute(q):
    for var, value in sorted(VARIABLES.items(), key=lambda kv: -len(kv[0])):
        q = q.replace(var, value)
    return q


def main():
    version, plugin_dir = sys.argv[1], sys.argv[2]
    path = sys.argv[3] if len(sys.argv) > 3 else QUERIES
    queries = [(t, substitute(q)) for t, q in load_queries(path)
               if "slurm_" in q and not OTHER_EXPORTERS.search(q)]
    print(f"{len(queries)} queries use only slurm_* metrics")

    c = Cluster(version, plugin_dir, conf_extra=["DefMemPerCPU=900", "SlurmdTimeout=10",
                                                 "ReturnToService=1"])
    vm = None
    try:
        d = tempfile.mkdtemp(dir=c.dir)
        port = free_port()
        target = f"127.0.0.1:{c.metrics_port}"
        with open(os.path.join(d, "scrape.yml"), "w") as f:
            f.write("global:\n  scrape_interval: 1s\nscrape_configs:\n")
            for job, path_ in (("soperator", "/metrics"), ("scheduler", "/metrics/scheduler")):
                f.write(f"  - job_name: {job}\n    metrics_path: {path_}\n"
                        f"    static_configs:\n      - targets: ['{target}']\n")
        vm = subprocess.Popen(["victoria-metrics", f"-promscrape.config={d}/scrape.yml",
                               f"-storageDataPath={d}/data",
                               f"-httpListenAddr=127.0.0.1:{port}",
                               "-search.latencyOffset=0s", "-search.disableCache"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

        # Give the dashboards something to show: jobs, a failure, a drain.
        train = c.sbatch("-J", "train", "--wrap", "sleep 600")
        c.sbatch("-J", "ok", "--wrap", "true")
        c.sbatch("-J", "bad", "--wrap", "exit 1")
        c.sbatch("-J", "queued", "--mem=1900", "--wrap", "true")
        c.sbatch("-J", "arr", "--array=1-3", "--wrap", "sleep 600")
        wait_for("a running job", lambda: c.run("squeue", "-h", "-j", str(train),
                                                 "-o", "%T").strip() == "RUNNING",
                 timeout=60)
        c.wait_collections(2)
        # The busy real node: draining it is a failure and a draining event
        # (the ghosts are DOWN already, so draining them counts nothing).
        # Twice: increase() sees a counter's first appearance as no
        # increase, with Soperator's exporter as with us.
        for _ in range(2):
            c.scontrol("update", "nodename=vm", "state=drain", "reason=dashboard test")
            c.wait_collections(3)
            c.scontrol("update", "nodename=vm", "state=resume")
            c.wait_collections(3)

        api = f"http://127.0.0.1:{port}/api/v1/query?query="

        def query_url(q):
            # An instant query's default subquery step is 5m, longer than
            # this test's data; Grafana sends a step that fits the window
            # (day-long windows at 5 s would pass VictoriaMetrics' point
            # limit per subquery).
            step = "60s" if re.search(r"\[\s*\d+d", q) else "5s"
            return (f"http://127.0.0.1:{port}/api/v1/query?step={step}&query="
                    + urllib.parse.quote(q))

        def scraped():
            r = json.loads(http_get(api + urllib.parse.quote("count(slurm_node_info)"))[2])
            return r["data"]["result"]
        wait_for("VictoriaMetrics has our series", scraped, timeout=90, interval=1)
        time.sleep(5)  # a few more samples for rate()/increase()

        answered, empty, errors = [], [], []
        for title, q in queries:
            try:
                r = json.loads(http_get(query_url(q), timeout=30)[2])
            except Exception as e:  # noqa: BLE001 - an HTTP 422 is an error
                errors.append((title, str(e)))
                continue
            if r.get("status") != "success":
                errors.append((title, r.get("error")))
            elif r["data"]["result"]:
                answered.append(title)
            else:
                empty.append(title)
        print(f"{len(answered)} of {len(queries)} queries return data, "
              f"{len(empty)} return nothing, {len(errors)} fail")
        for t in empty:
            print(f"  empty: {t}")
        for t, e in errors:
            print(f"  error: {t}: {e}")
        missing = [t for t in MUST_ANSWER if t not in answered]
        if errors or missing:
            print(f"FAIL: errors={len(errors)} must-answer missing={missing}")
            return 1
        return 0
    finally:
        if vm:
            vm.send_signal(signal.SIGINT)
            vm.wait(timeout=30)
        c.cleanup()


if __name__ == "__main__":
    sys.exit(main())
