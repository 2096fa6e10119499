#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Every scrape config in docs/examples, loaded by the real scrapers and
pointed at a loopback cluster with the plugin loaded (JobSubmitPlugins):

- prometheus-*.yml: `promtool check config` as shipped; then Prometheus
  scrapes, every target's `up` is 1 and the families the file promises are
  there (once: the relabel rules that avoid duplicates work).
- victoriametrics-*.yml: `victoria-metrics -promscrape.config.dryRun` as
  shipped (strict parsing); then VictoriaMetrics scrapes, /api/v1/targets
  says up, `up` is 1 and the same families are there.
- kubernetes-*.yaml: well-formed prometheus-operator objects selecting
  Soperator's controller pods, with the intervals of the files above, and
  every endpoint (port, path) answered by the plugin.
- grafana-soperator-metrics-self.json: every panel query answers in
  Prometheus.

Only targets and intervals are substituted: slurmctld.example.com:8080 and
:8081 become the plugin's two listeners, and slurmctld.example.com:6817
(slurmctld's own port under MetricsType, Slurm 25.11+) becomes the plugin's
listener too, which serves the same /metrics/soperator paths with the same
bodies on every release (slurmctld's side of them runs in the shim's
slurmctld_routes.py); intervals become 1s. Everything else is loaded
verbatim.

usage: test_scrape_configs.py VERSION PLUGIN_DIR
"""

import glob
import json
import os
import re
import sys
import tempfile
import time
import urllib.parse

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import (EXAMPLES, Cluster, Daemon, free_port, http_get,  # noqa: E402
                    parse_exposition, run, wait_for)

PLACEHOLDER = "slurmctld.example.com"
SOPERATOR_CONTROLLER = {"app.kubernetes.io/name": "slurmcluster",
                        "app.kubernetes.io/component": "controller"}

# What each file must deliver, as PromQL counts over the scraped data.
EXPECT = {
    "job-submit": {
        "count(slurm_node_info)": 3,
        'count(slurm_node_info{cluster="my-cluster"})': 3,
        # /metrics and /metrics/scheduler both carry it; the relabel rule
        # keeps one.
        "count(slurm_controller_server_thread_count)": 1,
        "count(slurm_bf_active)": 1,
        "count(slurm_exporter_render_duration_seconds)": 1,
    },
    "metrics-type": {
        "count(slurm_node_info)": 3,
        'count(slurm_node_info{cluster="my-cluster"})': 3,
        "count(slurm_controller_server_thread_count)": 1,
        "count(slurm_partitions)": 1,
        "count(slurm_bf_active)": 1,
        "count(slurm_jobs)": 1,
        "count(slurm_exporter_render_duration_seconds)": 1,
    },
}


def substitute(text, c):
    out = text.replace(f"{PLACEHOLDER}:8080", f"127.0.0.1:{c.metrics_port}")
    out = out.replace(f"{PLACEHOLDER}:8081", f"127.0.0.1:{c.monitoring_port}")
    out = out.replace(f"{PLACEHOLDER}:6817", f"127.0.0.1:{c.metrics_port}")
    cfg = yaml.safe_load(out)
    for job in cfg["scrape_configs"]:
        for sc in job.get("static_configs", []):
            for t in sc["targets"]:
                assert t.startswith("127.0.0.1:"), f"a target the test does not know: {t}"
    out = re.sub(r'(scrape_interval:\s*)\d+[smh]', r'\g<1>1s', out)
    out = re.sub(r'(scrape_timeout:\s*)\d+[smh]', r'\g<1>1s', out)
    return out


def kind_of(path):
    return "job-submit" if "job-submit" in path else "metrics-type"


def targets_in(config_text):
    cfg = yaml.safe_load(config_text)
    return sum(len(sc["targets"]) for job in cfg["scrape_configs"]
               for sc in job.get("static_configs", []))


class Scraper:
    """A Prometheus or VictoriaMetrics loading one substituted file."""

    def __init__(self, tool, src, c, workdir):
        self.tool, self.src = tool, src
        self.name = os.path.basename(src)
        self.dir = tempfile.mkdtemp(prefix=tool + "-", dir=workdir)
        with open(src) as f:
            text = substitute(f.read(), c)
        self.targets = targets_in(text)
        self.config = os.path.join(self.dir, self.name)
        with open(self.config, "w") as f:
            f.write(text)
        self.port = free_port()
        if tool == "prometheus":
            args = ["/usr/bin/prometheus", f"--config.file={self.config}",
                    f"--storage.tsdb.path={self.dir}/data",
                    f"--web.listen-address=127.0.0.1:{self.port}"]
        else:
            args = ["/usr/bin/victoria-metrics", f"-promscrape.config={self.config}",
                    "-promscrape.config.strictParse=true",
                    f"-storageDataPath={self.dir}/data",
                    f"-httpListenAddr=127.0.0.1:{self.port}",
                    # Recent samples are hidden for 30s by default.
                    "-search.latencyOffset=1s", "-search.disableCache"]
        self.daemon = Daemon(args, os.path.join(self.dir, "log"))

    def api(self, path):
        status, body = http_get(f"http://127.0.0.1:{self.port}{path}")
        assert status == 200, f"{self.tool} {path}: HTTP {status}: {body[:300]!r}"
        return json.loads(body)

    def query(self, q):
        res = self.api("/api/v1/query?query=" + urllib.parse.quote(q))["data"]["result"]
        return res

    def targets_up(self):
        assert self.daemon.alive(), f"{self.tool} exited:\n{self.daemon.output()[-3000:]}"
        active = self.api("/api/v1/targets")["data"]["activeTargets"]
        return len(active) == self.targets and all(t["health"] == "up" for t in active)

    def check(self, expect):
        wait_for(f"{self.tool} {self.name}: all {self.targets} targets up",
                 self.targets_up, timeout=60, interval=0.5)

        def up_is_one():
            res = self.query("up")
            return len(res) == self.targets and all(r["value"][1] == "1" for r in res)
        wait_for(f"{self.tool} {self.name}: up == 1 for every target", up_is_one,
                 timeout=60, interval=0.5)
        for q, want in expect.items():
            def answered(q=q, want=want):
                res = self.query(q)
                return res and float(res[0]["value"][1]) == want
            wait_for(f"{self.tool} {self.name}: {q} == {want}", answered, timeout=30,
                     interval=0.5)
        print(f"ok: {self.tool} loads {self.name}: {self.targets} targets up, "
              f"{len(expect)} expectations met")

    def stop(self):
        self.daemon.stop()


def check_shipped_files(prom_files, vm_files):
    for f in prom_files:
        out = run("promtool", "check", "config", f)
        assert "SUCCESS" in out, out
        print(f"ok: promtool check config {os.path.basename(f)}")
    for f in vm_files:
        run("/usr/bin/victoria-metrics", f"-promscrape.config={f}",
            "-promscrape.config.strictParse=true", "-promscrape.config.dryRun",
            "-loggerLevel=ERROR")
        print(f"ok: victoria-metrics -promscrape.config.dryRun {os.path.basename(f)}")


def interval_s(v):
    m = re.fullmatch(r'(\d+)([smh])', str(v))
    assert m, f"bad interval {v!r}"
    return int(m.group(1)) * {"s": 1, "m": 60, "h": 3600}[m.group(2)]


def check_kubernetes(c):
    """The two prometheus-operator objects, endpoint by endpoint, against the
    plugin; their intervals against the Prometheus files'."""
    with open(os.path.join(EXAMPLES, "prometheus-job-submit.yml")) as f:
        job_submit = yaml.safe_load(f)
    with open(os.path.join(EXAMPLES, "prometheus-metrics-type.yml")) as f:
        metrics_type = yaml.safe_load(f)
    per_path = {}
    for job in metrics_type["scrape_configs"]:
        per_path[job["metrics_path"]] = interval_s(
            job.get("scrape_interval", metrics_type["global"]["scrape_interval"]))
    files = sorted(glob.glob(os.path.join(EXAMPLES, "kubernetes-*.yaml")))
    assert files, "no Kubernetes examples"
    for path in files:
        with open(path) as f:
            docs = [d for d in yaml.safe_load_all(f) if d]
        for obj in docs:
            assert obj["apiVersion"] == "monitoring.coreos.com/v1", obj["apiVersion"]
            labels = obj["spec"]["selector"]["matchLabels"]
            for k, v in SOPERATOR_CONTROLLER.items():
                assert labels.get(k) == v, f"{path}: selector {k} != {v}"
            assert "app.kubernetes.io/instance" in labels, f"{path}: no cluster selector"
            if obj["kind"] == "PodMonitor":
                endpoints = obj["spec"]["podMetricsEndpoints"]
            else:
                assert obj["kind"] == "ServiceMonitor", obj["kind"]
                endpoints = obj["spec"]["endpoints"]
            for ep in endpoints:
                port = c.metrics_port  # slurmctld's port: the same paths
                for rl in ep.get("relabelings", []):
                    if rl.get("targetLabel") == "__address__":
                        want = rl["replacement"].rsplit(":", 1)[1]
                        assert want in ("8080", "8081"), rl
                        port = c.metrics_port if want == "8080" else c.monitoring_port
                status, body = http_get(f"http://127.0.0.1:{port}{ep['path']}")
                assert status == 200, f"{path}: {ep['path']} on :{port}: HTTP {status}"
                assert parse_exposition(body.decode()), f"{path}: {ep['path']} is empty"
                got = interval_s(ep["interval"])
                if obj["kind"] == "PodMonitor":
                    want = interval_s(job_submit["global"]["scrape_interval"])
                else:
                    want = per_path[ep["path"]]
                assert got == want, f"{path}: {ep['path']} every {got}s, the scrape configs say {want}s"
                for mr in ep.get("metricRelabelings", []):
                    if mr.get("action") == "drop":
                        assert ep["path"] == "/metrics/scheduler", mr
                        assert mr["regex"] == "slurm_controller_.*", mr
            if obj["kind"] == "ServiceMonitor":
                assert sorted(ep["path"] for ep in endpoints) == sorted(per_path), \
                    f"{path}: not the paths of prometheus-metrics-type.yml"
            print(f"ok: {os.path.basename(path)}: {obj['kind']}, {len(endpoints)} endpoints answered")


def check_dashboard(prom, c):
    """Our self-monitoring dashboard: every panel query is valid PromQL and
    every panel has data (error and skip counters exist only once non-zero,
    so a panel may rely on its other queries)."""
    path = os.path.join(EXAMPLES, "grafana-soperator-metrics-self.json")
    with open(path) as f:
        dash = json.load(f)
    n = 0
    for panel in dash["panels"]:
        exprs = [t["expr"].replace("$__rate_interval", "10s").replace("$cluster", ".*")
                 for t in panel.get("targets", [])]
        assert exprs, f"panel {panel['title']!r} has no query"
        n += len(exprs)

        def any_answer(exprs=exprs):
            return any(prom.query(q) for q in exprs)  # query() checks HTTP 200
        wait_for(f"data for panel {panel['title']!r}", any_answer, timeout=30, interval=0.5)
    print(f"ok: {os.path.basename(path)}: {n} queries of {len(dash['panels'])} panels answered")


def main():
    version, plugin_dir = sys.argv[1], sys.argv[2]
    prom_files = sorted(glob.glob(os.path.join(EXAMPLES, "prometheus-*.yml")))
    vm_files = sorted(glob.glob(os.path.join(EXAMPLES, "victoriametrics-*.yml")))
    assert prom_files and vm_files, "no scrape configs in docs/examples"
    check_shipped_files(prom_files, vm_files)

    c = Cluster(version, plugin_dir)
    scrapers = []
    t0 = time.time()
    try:
        c.start()
        # /metrics/jobs-users-accts has series only with jobs.
        c.cmd("sbatch", "-Q", "-H", "-J", "held", "--wrap", "true")
        c.wait_collections(2)
        for f in prom_files:
            scrapers.append(Scraper("prometheus", f, c, c.dir))
        for f in vm_files:
            scrapers.append(Scraper("victoria-metrics", f, c, c.dir))
        for s in scrapers:
            s.check(EXPECT[kind_of(s.src)])
        check_kubernetes(c)
        prom = next(s for s in scrapers if s.tool == "prometheus" and kind_of(s.src) == "job-submit")
        check_dashboard(prom, c)
    finally:
        for s in scrapers:
            s.stop()
        c.cleanup()
    print(f"all scrape configs exercised in {time.time() - t0:.0f}s")


if __name__ == "__main__":
    main()
