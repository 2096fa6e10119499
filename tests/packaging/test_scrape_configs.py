#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Every scrape config in docs/examples, loaded by the real scrapers and
pointed at a loopback cluster with the plugin loaded (JobSubmitPlugins):

- prometheus-*.yml: `promtool check config` as shipped; then Prometheus
  scrapes, every target's `up` is 1 and the families the file promises are
  there.
- victoriametrics-*.yml: `victoria-metrics -promscrape.config.dryRun` as
  shipped (strict parsing); then VictoriaMetrics scrapes, /api/v1/targets
  says up, `up` is 1 and the same families are there.
- kubernetes-*.yaml: prometheus-operator objects selecting Soperator's
  controller pods, with the intervals of the files above; each endpoint
  becomes the Prometheus job prometheus-operator would make of it (its
  relabelings and metricRelabelings as they are, the target address and
  __meta_kubernetes_pod_ip as Kubernetes discovery gives them) and a real
  Prometheus scrapes it. The PodMonitor once more with an IPv6 pod address.
- Every family exactly once: in each of these scrapers, every slurm_*
  family the plugin serves (everything under /metrics/soperator plus the
  self-monitoring families) comes from exactly one target, with as many
  series as the plugin's own body has; none is missing.
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

# What each file must deliver, as PromQL counts over the scraped data
# (besides every family once, below).
EXPECT = {
    "count(slurm_node_info)": 3,
    'count(slurm_node_info{cluster="my-cluster"})': 3,
    "count(slurm_controller_server_thread_count)": 1,
    "count(slurm_partitions)": 1,
    "count(slurm_bf_active)": 1,
    "count(slurm_jobs)": 1,
    "count(slurm_exporter_render_duration_seconds)": 1,
    "count(slurm_exporter_build_info)": 1,
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


def targets_in(config_text):
    cfg = yaml.safe_load(config_text)
    return sum(len(sc["targets"]) for job in cfg["scrape_configs"]
               for sc in job.get("static_configs", []))


class Scraper:
    """A Prometheus or VictoriaMetrics loading one scrape config (`text`,
    targets already pointed at the cluster), named `name`."""

    def __init__(self, tool, name, text, workdir):
        self.tool, self.name = tool, name
        self.dir = tempfile.mkdtemp(prefix=tool + "-", dir=workdir)
        self.targets = targets_in(text)
        self.config = os.path.join(self.dir, os.path.basename(name))
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

    def active_targets(self):
        assert self.daemon.alive(), f"{self.tool} exited:\n{self.daemon.output()[-3000:]}"
        return self.api("/api/v1/targets")["data"]["activeTargets"]

    def targets_up(self):
        # Up, and no error on the way either: Prometheus still scrapes
        # "::1:8080" (an IPv6 address without brackets) now and then, but
        # reports "too many colons in address" for it.
        active = self.active_targets()
        return len(active) == self.targets and all(
            t["health"] == "up" and not t.get("lastError") for t in active)

    def check(self, expect):
        try:
            wait_for(f"{self.tool} {self.name}: all {self.targets} targets up",
                     self.targets_up, timeout=60, interval=0.5)
        except AssertionError:
            raise AssertionError(f"{self.tool} {self.name}: targets "
                                 f"{json.dumps(self.active_targets(), indent=1)}")

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

    def check_families_once(self, c):
        """Every slurm_* family the plugin serves comes from exactly one of
        this config's targets, with the series count of the plugin's body."""
        by_target = "count by (__name__, job, instance, sm_endpoint) ({__name__=~\"slurm_.+\"})"
        last = []

        def once():
            nonlocal last
            want_before = served_series(c)
            taken = {}
            for r in self.query(by_target):
                m = r["metric"]
                taken.setdefault(m["__name__"], []).append(
                    (m.get("job"), m.get("instance"), m.get("sm_endpoint"), int(r["value"][1])))
            want = served_series(c)
            last = []
            for name, n in sorted(want.items()):
                sources = taken.get(name, [])
                if len(sources) != 1:
                    last.append(f"{name}: from {len(sources)} targets {sources}")
                elif want_before.get(name) == n and sources[0][3] != n:
                    last.append(f"{name}: {sources[0][3]} series scraped, the plugin serves {n}")
            last += [f"{name}: scraped, but the plugin does not serve it" for name in taken
                     if name not in want and name not in want_before]
            return not last
        try:
            wait_for(f"{self.tool} {self.name}: every family once", once, timeout=30,
                     interval=1)
        except AssertionError:
            raise AssertionError(f"{self.tool} {self.name}: not every family once:\n  "
                                 + "\n  ".join(last))
        print(f"ok: {self.tool} {self.name}: each of the {len(served_series(c))} slurm_* "
              "sample names the plugin serves taken from exactly one target, fully")

    def stop(self):
        self.daemon.stop()


def served_series(c):
    """{sample name: series} of every family the plugin serves: everything
    under /metrics/soperator and the self-monitoring."""
    out = {}
    for url in (f"http://127.0.0.1:{c.metrics_port}/metrics/soperator",
                f"http://127.0.0.1:{c.monitoring_port}/metrics"):
        status, body = http_get(url)
        assert status == 200, f"GET {url}: HTTP {status}"
        for name, series in parse_exposition(body.decode()).items():
            out[name] = out.get(name, 0) + len(series)
    return out


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


def snake(key):
    return re.sub(r"[A-Z]", lambda m: "_" + m.group(0).lower(), key)


def relabel(rules):
    """prometheus-operator RelabelConfigs as Prometheus relabel_configs."""
    return [{snake(k): v for k, v in r.items()} for r in rules]


def as_prometheus(obj, c, pod_ip):
    """The scrape config prometheus-operator generates for a PodMonitor or
    ServiceMonitor, with the target Kubernetes discovery would give: the
    controller pod's slurmctld port (PodMonitor; `pod_ip` the pod's address)
    or the Service's slurmctld port, which the plugin's listener stands in
    for (ServiceMonitor). Each endpoint is marked with an sm_endpoint label
    so that two endpoints with the same job still count as two targets."""
    host = f"[{pod_ip}]" if ":" in pod_ip else pod_ip
    if obj["kind"] == "PodMonitor":
        endpoints = obj["spec"]["podMetricsEndpoints"]
        address = f"{host}:{c.slurmctld_port}"
    else:
        endpoints = obj["spec"]["endpoints"]
        address = f"{host}:{c.metrics_port}"
    jobs = []
    for i, ep in enumerate(endpoints):
        rules = relabel(ep.get("relabelings", []))
        for r in rules:  # the plugin's ports stand for 8080 and 8081
            if r.get("target_label") == "__address__":
                r["replacement"] = (r["replacement"].replace(":8080", f":{c.metrics_port}")
                                    .replace(":8081", f":{c.monitoring_port}"))
        jobs.append({
            "job_name": f"{obj['kind']}-{i}",
            "metrics_path": ep["path"],
            "scheme": ep.get("scheme", "http"),
            "scrape_interval": "1s",
            "scrape_timeout": "1s",
            "follow_redirects": ep.get("followRedirects", True),
            "static_configs": [{"targets": [address],
                                "labels": {"__meta_kubernetes_pod_ip": pod_ip}}],
            "relabel_configs": [{"target_label": "sm_endpoint", "replacement": str(i)}]
                               + rules,
            "metric_relabel_configs": relabel(ep.get("metricRelabelings", [])),
        })
    return yaml.safe_dump({"scrape_configs": jobs})


def check_kubernetes_shape():
    """The two prometheus-operator objects: Soperator's controller pods,
    the intervals of the Prometheus files."""
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
    objects = []
    for path in files:
        with open(path) as f:
            docs = [d for d in yaml.safe_load_all(f) if d]
        for obj in docs:
            assert obj["apiVersion"] == "monitoring.coreos.com/v1", obj["apiVersion"]
            labels = obj["spec"]["selector"]["matchLabels"]
            for k, v in SOPERATOR_CONTROLLER.items():
                assert labels.get(k) == v, f"{path}: selector {k} != {v}"
            assert "app.kubernetes.io/instance" in labels, f"{path}: no cluster selector"
            assert obj["kind"] in ("PodMonitor", "ServiceMonitor"), obj["kind"]
            endpoints = obj["spec"]["podMetricsEndpoints" if obj["kind"] == "PodMonitor"
                                   else "endpoints"]
            for ep in endpoints:
                got = interval_s(ep["interval"])
                want = (interval_s(job_submit["global"]["scrape_interval"])
                        if obj["kind"] == "PodMonitor" else per_path[ep["path"]])
                assert got == want, f"{path}: {ep['path']} every {got}s, the scrape configs say {want}s"
            if obj["kind"] == "ServiceMonitor":
                assert sorted(ep["path"] for ep in endpoints) == sorted(per_path), \
                    f"{path}: not the paths of prometheus-metrics-type.yml"
            objects.append((os.path.basename(path), obj))
    print(f"ok: {len(objects)} prometheus-operator objects select Soperator's controller "
          "pods with the scrape configs' intervals")
    return objects


def check_alert_rules(prom, c):
    """docs/examples/alerts.yml against what this cluster serves: every
    slurm_* name it uses is served, every job it selects is one of the
    scrape configs', and every expression runs in Prometheus on the real
    data (promtool test rules holds when each fires)."""
    with open(os.path.join(EXAMPLES, "alerts.yml")) as f:
        rules = [r for g in yaml.safe_load(f)["groups"] for r in g["rules"]]
    served = set(served_series(c))
    n = 0
    for r in rules:
        for name in re.findall(r"\bslurm_\w+", r["expr"]):
            assert name in served, f"alerts.yml {r['alert']}: {name} is not served"
        for job in re.findall(r'job="([^"]+)"', r["expr"]):
            assert prom.query(f'up{{job="{job}"}}'), f"alerts.yml {r['alert']}: no job {job}"
        prom.query(r["expr"])  # HTTP 200: valid on the real series
        n += 1
    print(f"ok: alerts.yml: {n} rules run on the real series, every name and job exists")


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


def run_scraper(tool, name, text, c, expect=EXPECT, once=True):
    s = Scraper(tool, name, text, c.dir)
    try:
        s.check(expect)
        if once:
            s.check_families_once(c)
    finally:
        s.stop()


def main():
    version, plugin_dir = sys.argv[1], sys.argv[2]
    prom_files = sorted(glob.glob(os.path.join(EXAMPLES, "prometheus-*.yml")))
    vm_files = sorted(glob.glob(os.path.join(EXAMPLES, "victoriametrics-*.yml")))
    assert prom_files and vm_files, "no scrape configs in docs/examples"
    check_shipped_files(prom_files, vm_files)
    k8s = check_kubernetes_shape()

    # Both listeners on every address, IPv6 too (the PodMonitor's IPv6 pod).
    metrics_port, monitoring_port = free_port(), free_port()
    while monitoring_port == metrics_port:
        monitoring_port = free_port()
    c = Cluster(version, plugin_dir, metrics_conf=(
        f"MetricsBindAddress=:{metrics_port}\nMonitoringBindAddress=:{monitoring_port}\n"
        "CollectionInterval=1s\nLogLevel=info\n"))
    c.metrics_port, c.monitoring_port = metrics_port, monitoring_port
    prom = None
    t0 = time.time()
    try:
        c.start()
        c.slurmctld_port = int(c.env["SM_SLURMCTLD_PORT"])
        # /metrics/jobs-users-accts has series only with jobs.
        c.cmd("sbatch", "-Q", "-H", "-J", "held", "--wrap", "true")
        c.wait_collections(2)
        for f in prom_files + vm_files:
            tool = "prometheus" if os.path.basename(f).startswith("prometheus") else "victoria-metrics"
            with open(f) as fh:
                text = substitute(fh.read(), c)
            if tool == "prometheus" and "job-submit" in f:
                # Kept running for the dashboard's queries below.
                prom = Scraper(tool, os.path.basename(f), text, c.dir)
                prom.check(EXPECT)
                prom.check_families_once(c)
            else:
                run_scraper(tool, os.path.basename(f), text, c)
        for name, obj in k8s:
            run_scraper("prometheus", f"{name} ({obj['kind']})", as_prometheus(obj, c, "127.0.0.1"), c)
            if obj["kind"] == "PodMonitor":
                run_scraper("prometheus", f"{name} ({obj['kind']}, IPv6 pod ::1)",
                            as_prometheus(obj, c, "::1"), c)
        check_dashboard(prom, c)
        check_alert_rules(prom, c)
    finally:
        if prom:
            prom.stop()
        c.cleanup()
    print(f"all scrape configs exercised in {time.time() - t0:.0f}s")


if __name__ == "__main__":
    main()
