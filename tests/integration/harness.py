# SPDX-License-Identifier: GPL-2.0-or-later
"""Shared pieces of the real-daemon tests: a loopback Slurm cluster driven
through scripts/test-cluster.sh, an exposition parser, and readers for what
the daemons themselves report (scontrol, squeue --json, sdiag)."""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPTS = os.path.join(ROOT, "scripts")
sys.path.insert(0, os.path.join(SCRIPTS, "lib"))
import loopback  # noqa: E402
from loopback import free_port  # noqa: E402,F401
import exposition  # noqa: E402
from polling import wait_for  # noqa: E402,F401
TESTS = os.path.join(ROOT, "tests")

# ---------------------------------------------------------------- exposition


def parse_exposition(text):
    """Prometheus text -> {family sample name: [(labels dict, float)]}."""
    out = {}
    for s in exposition.samples(text):
        labels = {k: exposition.unescape(v) for k, v in exposition.label_pairs(s.labels)}
        out.setdefault(s.name, []).append((labels, float(s.value)))
    return out


def series(expo, name, **match):
    """Samples of `name` whose labels include `match`."""
    return [(l, v) for l, v in expo.get(name, [])
            if all(l.get(k) == want for k, want in match.items())]


def one(expo, name, **match):
    found = series(expo, name, **match)
    if len(found) != 1:
        raise AssertionError(f"{name}{match}: expected one series, got {found}")
    return found[0]


def until_agree(test, what, compare, timeout=60):
    """compare() -> (result, [differences]) between one of our bodies and
    the daemon command run after it, retried until no difference is left:
    jobs start, end and split off array tasks in between. A difference
    that persists fails `test` with the last list (or, when the last
    attempt raised, with wait_for's report of that exception)."""
    last = []

    def attempt():
        nonlocal last
        last = []
        result, last = compare()
        return (result,) if not last else None
    try:
        return wait_for(what, attempt, timeout=timeout, interval=0)[0]
    except AssertionError as e:
        test.fail(f"{what}:\n" + ("\n".join(map(str, last)) if last else str(e)))


# ---------------------------------------------------------------- processes

def http_get(url, headers=None, timeout=10):
    req = urllib.request.Request(url, headers=headers or {})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return r.status, dict(r.headers), r.read()


class Cluster:
    """A loopback cluster with our plugin loaded as JobSubmitPlugins.
    gpus: a count or test-cluster.sh's TYPE:N[,TYPE:N] list; accounting: run
    MariaDB + slurmdbd and the association tree test-cluster.sh describes;
    addr: test-cluster.sh --addr; metrics_host: our listener's address (""
    for every address); job_submit: None runs Slurm without our plugin;
    systemd: slurmctld runs as `slurmctld --systemd` (test-cluster.sh
    --systemd; NOTIFY_SOCKET must be in this process's environment);
    topology_conf: a topology.conf for slurm.conf's TopologyPlugin."""

    def __init__(self, version, plugin_dir, gpus=0, conf_extra=(),
                 collection_interval="1s", metrics_conf_extra=(),
                 accounting=False, addr=None, metrics_host="127.0.0.1",
                 job_submit="soperator", systemd=False, topology_conf=None):
        self.version = version
        self.dir = tempfile.mkdtemp(prefix=f"sm-it-{version}-")
        # Open to others: jobs of other users (sbatch --uid) run their
        # script from the cluster's spool directory below (execve fails with
        # EACCES under a 0700 mkdtemp directory).
        os.chmod(self.dir, 0o755)
        self.metrics_port = free_port()
        self.monitoring_port = free_port()
        conf = os.path.join(self.dir, "soperator_metrics.conf.in")
        with open(conf, "w") as f:
            f.write(f"MetricsBindAddress={metrics_host}:{self.metrics_port}\n"
                    f"MonitoringBindAddress=127.0.0.1:{self.monitoring_port}\n"
                    f"CollectionInterval={collection_interval}\n"
                    "LogLevel=info\n")
            for line in metrics_conf_extra:  # soperator_metrics.conf lines
                f.write(line + "\n")
        args = [os.path.join(SCRIPTS, "test-cluster.sh"), "start", version,
                os.path.join(self.dir, "c"), "--plugin-dir", plugin_dir,
                "--metrics-conf", conf,
                "--port-base", str(self._port_base())]
        if gpus:
            args += ["--gpus", str(gpus)]
        if accounting:
            args.append("--accounting")
        if addr:
            args += ["--addr", addr]
        if job_submit:
            args += ["--job-submit", job_submit]
        if systemd:
            args.append("--systemd")
        if topology_conf:
            args += ["--topology-conf", topology_conf]
        for line in conf_extra:
            args += ["--conf-extra", line]
        subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
        self.env = self._read_env(os.path.join(self.dir, "c", "env.sh"))

    @staticmethod
    def _port_base():
        # slurmctld's port; slurmd takes +1, slurmdbd +2, MariaDB +3 (with
        # accounting) and the ghost nodes +84.
        return loopback.port_base((1, 2, 3, 84))

    @staticmethod
    def _read_env(path):
        out = subprocess.run(["bash", "-c", f"source {path} && env -0"],
                             check=True, stdout=subprocess.PIPE).stdout
        env = dict(kv.split("=", 1) for kv in out.decode().split("\0") if "=" in kv)
        return env

    @property
    def cdir(self):
        return os.path.join(self.dir, "c")

    def run(self, *args, check=True, timeout=30):
        # The cluster's own directory: sbatch writes slurm-N.out there.
        r = subprocess.run(list(args), env=self.env, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=timeout, cwd=self.dir)
        if check and r.returncode != 0:
            raise AssertionError(f"{args} failed: {r.stderr.decode()}")
        return r.stdout.decode()

    def sbatch(self, *args):
        out = self.run("sbatch", "--parsable", *args)
        return int(out.strip().split(";")[0].split("_")[0])

    def scontrol(self, *args):
        return self.run("scontrol", *args)

    def nodes(self):
        """scontrol show node -o, parsed: the daemon's own view."""
        out = {}
        for line in self.scontrol("show", "node", "-o").splitlines():
            if not line.strip():
                continue
            fields = _kv_line(line)
            out[fields["NodeName"]] = fields
        return out

    def job_text(self, job_id):
        """scontrol show job -o, parsed, for this job id only: asked for an
        array's id, scontrol prints one line per record of the array (the
        pending meta record and every task split off under its own id)."""
        for line in self.scontrol("show", "job", "-o", str(job_id)).splitlines():
            fields = _kv_line(line)
            if fields.get("JobId") == str(job_id):
                return fields
        return {}

    def squeue_json(self):
        # 23.02+ applies squeue's default filter (no finished jobs) to --json.
        return json.loads(self.run("squeue", "--json", "--states=all"))["jobs"]

    def sdiag(self):
        return self.run("sdiag")

    def metrics_url(self, path="/metrics"):
        return f"http://127.0.0.1:{self.metrics_port}{path}"

    def scrape(self, path="/metrics", headers=None):
        status, hdrs, body = http_get(self.metrics_url(path), headers)
        return status, hdrs, body

    def expo(self):
        return parse_exposition(self.scrape()[2].decode())

    def monitoring(self):
        _, _, body = http_get(f"http://127.0.0.1:{self.monitoring_port}/metrics")
        return parse_exposition(body.decode())

    def collections(self):
        m = self.monitoring()
        return one(m, "slurm_exporter_collection_attempts_total")[1]

    def wait_collections(self, n=2):
        """Waits until `n` more collections have completed: state seen by
        the daemon now is then in the next body."""
        start = self.collections()
        wait_for(f"{n} collections", lambda: self.collections() >= start + n,
                 timeout=30, interval=0.2)

    def ctld_log(self):
        with open(os.path.join(self.cdir, "log", "slurmctld.log"),
                  errors="replace") as f:
            return f.read()

    def restart_ctld(self):
        subprocess.run([os.path.join(SCRIPTS, "test-cluster.sh"), "restart-ctld",
                        self.cdir], check=True, stdout=subprocess.DEVNULL)

    def stop_dbd(self):
        subprocess.run([os.path.join(SCRIPTS, "test-cluster.sh"), "stop-dbd",
                        self.cdir], check=True, stdout=subprocess.DEVNULL)

    def start_dbd(self):
        subprocess.run([os.path.join(SCRIPTS, "test-cluster.sh"), "start-dbd",
                        self.cdir], check=True, stdout=subprocess.DEVNULL)

    def ctld_alive(self):
        return subprocess.run([os.path.join(SCRIPTS, "test-cluster.sh"), "status",
                               self.cdir], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL).returncode == 0

    def stop(self):
        subprocess.run([os.path.join(SCRIPTS, "test-cluster.sh"), "stop", self.cdir],
                       stdout=subprocess.DEVNULL)

    def cleanup(self):
        self.stop()
        if not os.environ.get("SM_KEEP_CLUSTER"):
            shutil.rmtree(self.dir, ignore_errors=True)


def _kv_line(line):
    """scontrol -o output: Key=Value pairs; values may contain spaces only in
    the last fields (Reason, Comment), so split on ' Key=' boundaries."""
    fields = {}
    for m in re.finditer(r'(?:^|\s)([A-Za-z/:]+)=(.*?)(?=\s+[A-Za-z/:]+=|$)', line):
        fields[m.group(1)] = m.group(2).strip()
    return fields


def json_number(v):
    """squeue --json numbers: plain (22.05) or {set, infinite, number}."""
    if isinstance(v, dict):
        return v.get("number") if v.get("set") and not v.get("infinite") else None
    return v


def json_state(v):
    """job_state: "RUNNING" (22.05) or ["RUNNING", ...] (23.02+)."""
    return v[0] if isinstance(v, list) else v


def promtool_ok(body):
    """Runs tests/check_exposition.py's rules on a body; '' when accepted."""
    r = subprocess.run(["/usr/bin/python3", os.path.join(TESTS, "check_exposition.py"),
                        "text", "cat"], input=body, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT)
    return "" if r.returncode == 0 else r.stdout.decode()
