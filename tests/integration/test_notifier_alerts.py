#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Soperator's notifier alerts on our series: its chart's rules
(tests/fixtures/soperator-notifier, the VMRule its 04_rule.yml renders with
the chart's default values) loaded into a real vmalert (Debian's
victoria-metrics package), which evaluates them against a real
VictoriaMetrics scraping /metrics of the plugin in a real loopback cluster
and sends what fires to a stand-in Alertmanager. A failed, a cancelled and
a completed job must fire SlurmJobError, SlurmJobWarning and SlurmJobGood,
each with the labels the notifier's Slack message reads (job id, name,
state, reason, user and mail), every one equal to what slurmctld itself
says of the job (scontrol show job; the mail address is sbatch's).

The rendering is checked first against the chart's own helm unit tests
(tests/tools/helm_template.py), so a renderer mistake cannot pass as a
rule.

usage: test_notifier_alerts.py VERSION PLUGIN_DIR
"""

import http.server
import json
import os
import pwd
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "tools"))
import helm_template  # noqa: E402
from harness import Cluster, free_port, http_get, wait_for  # noqa: E402

CHART = os.path.join(HERE, "..", "fixtures", "soperator-notifier")
NAMESPACE = "soperator"
MAIL = "alice@example.com"
# What each alert means, from the chart's job state selectors.
WANT = {"failed": ("SlurmJobError", "error", "SLURM jobs failed"),
        "cancelled": ("SlurmJobWarning", "warning", "SLURM jobs exited"),
        "completed": ("SlurmJobGood", "good", "SLURM jobs completed")}


def rendered_rules(path):
    """The notifier's VMRule with the chart's defaults, as a plain rules
    file (its spec.groups), written to `path`."""
    n = helm_template.check_unittests(CHART, os.path.join(CHART, "tests", "04_rule_test.yaml"))
    print(f"ok: the renderer meets all {n} asserts of the chart's own helm unit tests")
    vmrule = yaml.safe_load(helm_template.render(
        CHART, "04_rule.yml", release={"Name": "soperator-notifier", "Namespace": NAMESPACE}))
    assert vmrule["kind"] == "VMRule", vmrule["kind"]
    with open(path, "w") as f:
        yaml.safe_dump({"groups": vmrule["spec"]["groups"]}, f)
    rules = [r["alert"] for g in vmrule["spec"]["groups"] for r in g["rules"]]
    assert rules == ["SlurmJobError", "SlurmJobWarning", "SlurmJobGood"], rules
    return vmrule


class Alertmanager:
    """Records every alert vmalert posts (POST /api/v2/alerts)."""

    def __init__(self):
        self.alerts = []
        self.lock = threading.Lock()
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 - http.server's name
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                with outer.lock:
                    outer.alerts.extend(json.loads(body))
                self.send_response(200)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def received(self):
        with self.lock:
            return list(self.alerts)

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


def start(args, log):
    return subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)


def stop(proc):
    if proc and proc.poll() is None:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def main():
    version, plugin_dir = sys.argv[1], sys.argv[2]
    t0 = time.time()
    rules_dir = tempfile.mkdtemp(prefix="sm-notifier-")
    rules = os.path.join(rules_dir, "rules.yml")
    rendered_rules(rules)
    c = Cluster(version, plugin_dir)
    work = tempfile.mkdtemp(dir=c.dir)
    am = Alertmanager()
    vm = vmalert = None
    log = open(os.path.join(work, "daemons.log"), "wb")
    try:
        vm_port, vmalert_port = free_port(), free_port()
        with open(os.path.join(work, "scrape.yml"), "w") as f:
            f.write("global:\n  scrape_interval: 1s\nscrape_configs:\n"
                    "  - job_name: soperator-metrics\n    metrics_path: /metrics\n"
                    f"    static_configs:\n      - targets: ['127.0.0.1:{c.metrics_port}']\n")
        vm = start(["victoria-metrics", f"-promscrape.config={work}/scrape.yml",
                    f"-storageDataPath={work}/vm", f"-httpListenAddr=127.0.0.1:{vm_port}",
                    "-search.latencyOffset=1s", "-search.disableCache"], log)
        subprocess.run(["vmalert", f"-rule={rules}", "-dryRun"], check=True,
                       stdout=subprocess.DEVNULL)
        vmalert = start(["vmalert", f"-rule={rules}",
                         f"-datasource.url=http://127.0.0.1:{vm_port}",
                         f"-notifier.url=http://127.0.0.1:{am.port}",
                         f"-httpListenAddr=127.0.0.1:{vmalert_port}",
                         "-evaluationInterval=2s"], log)

        mail = [f"--mail-user={MAIL}"]
        jobs = {"failed": c.sbatch("-J", "fails", *mail, "--wrap", "exit 3"),
                "completed": c.sbatch("-J", "works", *mail, "--wrap", "true"),
                "cancelled": c.sbatch("-J", "stopped", *mail, "--wrap", "sleep 600")}
        wait_for("the job to cancel runs", lambda: c.run(
            "squeue", "-h", "-j", str(jobs["cancelled"]), "-o", "%T").strip() == "RUNNING",
            timeout=60)
        c.run("scancel", str(jobs["cancelled"]))

        def job_says(job_id):
            return c.job_text(job_id)
        wait_for("the three jobs ended", lambda: all(
            job_says(j).get("JobState") in ("FAILED", "COMPLETED", "CANCELLED")
            for j in jobs.values()), timeout=60)

        def fired():
            names = {(a["labels"].get("alertname"), a["labels"].get("job_id"))
                     for a in am.received()}
            return all((WANT[k][0], str(j)) in names for k, j in jobs.items())
        try:
            wait_for("vmalert to fire the three job alerts", fired, timeout=120, interval=1)
        except AssertionError:
            log.flush()
            with open(log.name, errors="replace") as f:
                tail = f.read()[-3000:]
            raise AssertionError(f"received: {json.dumps(am.received(), indent=1)[-3000:]}\n"
                                 f"daemons:\n{tail}")

        failures = []
        for kind, job_id in jobs.items():
            alertname, severity, title = WANT[kind]
            said = job_says(job_id)
            user = pwd.getpwuid(int(said["UserId"].split("(")[1].rstrip(")"))).pw_name
            want = {
                "alertname": alertname,
                "severity": severity,
                "namespace": NAMESPACE,
                "job_id": str(job_id),
                "job_name": said["JobName"],
                "job_state": said["JobState"],
                "job_state_reason": said["Reason"],
                "job_user": user,
                # scontrol prints MailUser only with a MailType; it is
                # what sbatch --mail-user gave.
                "job_user_mail": said.get("MailUser", MAIL),
                "alert_key": f"job_{job_id}_{said['JobState']}",
            }
            got = [a for a in am.received() if a["labels"].get("alertname") == alertname
                   and a["labels"].get("job_id") == str(job_id)][0]
            for k, v in want.items():
                if got["labels"].get(k) != v:
                    failures.append(f"{alertname} for job {job_id}: {k}="
                                    f"{got['labels'].get(k)!r}, slurmctld says {v!r}")
            if got.get("annotations", {}).get("title") != title:
                failures.append(f"{alertname}: title {got.get('annotations')}")
            others = sorted({a["labels"]["alertname"] for a in am.received()
                             if a["labels"].get("job_id") == str(job_id)} - {alertname})
            if others:
                failures.append(f"job {job_id} ({kind}) also fired {others}")
            print(f"ok: {kind} job {job_id}: {alertname} fired with "
                  + ", ".join(f"{k}={got['labels'].get(k)}" for k in
                              ("job_state", "job_state_reason", "job_user", "job_user_mail")))
        for f in failures:
            print("FAIL:", f)
        print(f"notifier alerts checked in {time.time() - t0:.0f}s")
        return 1 if failures else 0
    finally:
        stop(vmalert)
        stop(vm)
        am.stop()
        log.close()
        c.cleanup()
        shutil.rmtree(rules_dir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
