#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""docs/troubleshooting.md quotes slurmctld's log; this test makes each
quoted situation happen on real daemons and checks that every quoted line
is in the log. A block of the page marked `<!-- repro:NAME -->` is checked
against scenario NAME below; paths, numbers and versions may differ (they
are normalised on both sides), the words may not.

Scenarios: a normal start, and one with LogLevel=warn; this build's plugin
with plugin_version rewritten to the previous micro release (what a build
for another release reports); this build loaded by Debian's 22.05.8
slurmctld, with LD_BIND_NOW=1 as in -z now builds; no plugin in PluginDir;
MetricsType on a release without it; a busy listener port; bad values in
soperator_metrics.conf; the two listeners on conflicting addresses; no file
at all, environment variables only.

usage: test_troubleshooting.py SLURM_VERSION PLUGIN_DIR [--print]
(--print shows each scenario's log lines instead of checking)
"""

import os
import re
import shutil
import socket
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import (DOCS, Cluster, free_port, http_get, set_plugin_version,  # noqa: E402
                    version_number, wait_for)

PAGE = os.path.join(DOCS, "troubleshooting.md")
OTHER_RELEASE = "22.05.8"  # Debian's daemons: always there on Debian 12


def normalise(line):
    line = re.sub(r'^\[[0-9T:.-]+\] ', '', line.strip())
    line = re.sub(r'^slurmctld: ', '', line)
    line = re.sub(r'/[^\s:)"]+', '<path>', line)
    line = re.sub(r'[0-9]+', '0', line)
    return line


def quoted_blocks():
    """{scenario: [lines]} from the page's marked ```text blocks."""
    with open(PAGE) as f:
        text = f.read()
    blocks = {}
    for m in re.finditer(r'<!-- repro:([a-z0-9-]+) -->\s*```text\n(.*?)```', text, re.S):
        assert m.group(1) not in blocks, f"two blocks for {m.group(1)}"
        blocks[m.group(1)] = [l for l in m.group(2).splitlines() if l.strip()]
    return blocks


class Scenarios:
    def __init__(self, version, plugin_dir):
        self.version = version
        self.plugin_dir = plugin_dir
        self.tmp = tempfile.mkdtemp(prefix="sm-trouble-")

    def _run(self, version, plugin_dir, env=None, wait=None, **kw):
        c = Cluster(version, plugin_dir, **kw)
        saved = dict(os.environ)
        try:
            os.environ.update(env or {})
            rc = c.start(check=False)
        finally:
            os.environ.clear()
            os.environ.update(saved)
        try:
            if rc == 0 and wait:
                wait(c)
            return rc, c.logs() + "\n" + c.start_output
        finally:
            c.cleanup()

    def start(self):
        # ":port" (every address), as the default ":8080" is written.
        rc, log = self._run(self.version, self.plugin_dir, metrics_conf=(
            f"MetricsBindAddress=:{free_port()}\nMonitoringBindAddress=:{free_port()}\n"))
        assert rc == 0, log[-3000:]
        return log

    def version_mismatch(self):
        d = os.path.join(self.tmp, "wrong-micro")
        os.makedirs(d, exist_ok=True)
        a, b, c = (int(x) for x in self.version.split("."))
        set_plugin_version(os.path.join(self.plugin_dir, "job_submit_soperator.so"),
                           os.path.join(d, "job_submit_soperator.so"),
                           version_number(f"{a}.{b:02d}.{c - 1 if c else c + 1}"))
        rc, log = self._run(self.version, d)
        assert rc != 0, "slurmctld started with a plugin of another release"
        return log

    def undefined_symbol(self):
        if self.version == OTHER_RELEASE:
            return None  # needs a build of another release than the daemons
        rc, log = self._run(OTHER_RELEASE, self.plugin_dir, env={"LD_BIND_NOW": "1"})
        assert rc != 0
        return log

    def plugin_not_found(self):
        rc, log = self._run(self.version, None)
        assert rc != 0
        return log

    def metricstype_unknown(self):
        if version_number(self.version) >= version_number("25.11.0"):
            return None
        rc, log = self._run(self.version, self.plugin_dir, job_submit=None,
                            conf_extra=["MetricsType=metrics/soperator"])
        assert rc != 0
        return log

    def busy_port(self):
        port = free_port()
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", port))
        s.listen()

        def free_it(c):
            wait_for("the busy-port error", lambda: "cannot listen" in c.log(), timeout=20)
            s.close()
            wait_for("the retried bind",
                     lambda: http_get(f"http://127.0.0.1:{port}/health")[0] == 200, timeout=20)
        try:
            rc, log = self._run(self.version, self.plugin_dir, wait=free_it, metrics_conf=(
                f"MetricsBindAddress=127.0.0.1:{port}\n"
                f"MonitoringBindAddress=127.0.0.1:{free_port()}\n"))
        finally:
            s.close()
        assert rc == 0, "a busy port must not stop slurmctld:\n" + log[-3000:]
        return log

    def bad_config(self):
        conf = "\n".join([
            f"MetricsBindAddress=127.0.0.1:{free_port()}",
            f"MonitoringBindAddress=127.0.0.1:{free_port()}",
            "CollectionInterval=fast",
            "MetricsBindAdress=:9090",
            "ListenerThreads=0",
            "LogLevel=verbose",
            "SlurmApiServer=http://localhost:6820",
            "JobSource=accounting",
            "NativeValues=maybe",
            "DisabledFamilies slurm_job_info",
        ]) + "\n"
        rc, log = self._run(self.version, self.plugin_dir, metrics_conf=conf,
                            wait=lambda c: time.sleep(1))
        assert rc == 0, "a bad config value must not stop slurmctld:\n" + log[-3000:]
        return log

    def log_level_warn(self):
        p1, p2 = free_port(), free_port()

        def served(c):
            wait_for("the listener", lambda: http_get(f"http://127.0.0.1:{p1}/health")[0] == 200,
                     timeout=20)
        rc, log = self._run(self.version, self.plugin_dir, wait=served, metrics_conf=(
            f"MetricsBindAddress=127.0.0.1:{p1}\nMonitoringBindAddress=127.0.0.1:{p2}\n"
            "LogLevel=warn\n"))
        assert rc == 0, log[-3000:]
        return log

    def bind_conflict(self):
        port = free_port()

        def served(c):
            wait_for("the listener", lambda: http_get(f"http://127.0.0.1:{port}/health")[0] == 200,
                     timeout=20)
            status, body = http_get(f"http://127.0.0.1:{port}/metrics/soperator/monitoring")
            assert status == 200 and b"slurm_exporter_collection_attempts_total" in body, status
        rc, log = self._run(self.version, self.plugin_dir, wait=served, metrics_conf=(
            f"MetricsBindAddress=:{port}\nMonitoringBindAddress=[::]:{port}\n"))
        assert rc == 0, log[-3000:]
        assert "monitoring listener listening" not in log, "the conflicting listener started"
        return log

    def environment_only(self):
        p1, p2 = free_port(), free_port()
        c_env = {"SLURM_EXPORTER_METRICS_BIND_ADDRESS": f"127.0.0.1:{p1}",
                 "SLURM_EXPORTER_MONITORING_BIND_ADDRESS": f"127.0.0.1:{p2}"}

        def served(c):
            wait_for("the listener", lambda: http_get(f"http://127.0.0.1:{p1}/health")[0] == 200,
                     timeout=20)
        rc, log = self._run(self.version, self.plugin_dir, env=c_env, wait=served,
                            metrics_conf=None, no_metrics_conf=True)
        assert rc == 0
        return log

    def cleanup(self):
        shutil.rmtree(self.tmp, ignore_errors=True)


SCENARIOS = ["start", "log-level-warn", "version-mismatch", "undefined-symbol",
             "plugin-not-found", "metricstype-unknown", "busy-port", "bad-config",
             "bind-conflict", "environment-only"]


def main():
    version, plugin_dir = sys.argv[1], sys.argv[2]
    show = "--print" in sys.argv
    blocks = {} if show else quoted_blocks()
    unknown = set(blocks) - set(SCENARIOS)
    assert not unknown, f"{PAGE}: blocks for unknown scenarios {sorted(unknown)}"
    s = Scenarios(version, plugin_dir)
    failures = []

    def attempt(name):
        """'' when the scenario's quoted lines are all in its log, None when
        it cannot be reproduced here, else what went wrong."""
        try:
            log = getattr(s, name.replace("-", "_"))()
        except AssertionError as e:
            return f"{name}: {e}"
        if log is None:
            return None
        if show:
            print(f"== {name}")
            for l in log.splitlines():
                if re.search(r'soperator|plugin|fatal|MetricsType|symbol|Incompatible', l):
                    print("   " + re.sub(r'^\[[^]]*\] ', '', l))
            return ""
        if name not in blocks:
            return f"{name}: no <!-- repro:{name} --> block in {PAGE}"
        lines = {normalise(l) for l in log.splitlines()}
        missing = [l for l in blocks[name] if normalise(l) not in lines]
        if not missing:
            return ""
        tail = [l for l in log.splitlines() if l.strip()][-25:]
        return (f"{name}: quoted but not logged:\n    " + "\n    ".join(missing)
                + "\n  the log ends with:\n    " + "\n    ".join(tail))

    try:
        for name in SCENARIOS:
            t0 = time.time()
            problem = attempt(name)
            if problem:
                # The machine is shared and test-cluster.sh's start can lose
                # a race with exec(): one more try before failing.
                print(f"-- {name}: retrying after:\n{problem}")
                problem = attempt(name)
            if problem is None:
                print(f"-- {name}: not reproducible with Slurm {version} (skipped)")
            elif problem:
                failures.append(problem)
                print(f"FAIL: {name} ({time.time() - t0:.0f}s)")
            elif not show:
                print(f"ok: {name}: all {len(blocks[name])} quoted lines in the real log "
                      f"({time.time() - t0:.0f}s)")
    finally:
        s.cleanup()
    for f in failures:
        print("FAIL:", f)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
