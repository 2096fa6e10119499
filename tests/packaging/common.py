# SPDX-License-Identifier: GPL-2.0-or-later
"""Shared pieces of the packaging tests: loopback clusters through
scripts/test-cluster.sh (with or without --plugin-dir), exposition parsing,
ELF reading, and the meson skip convention (exit 77)."""

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPTS = os.path.join(ROOT, "scripts")
sys.path.insert(0, os.path.join(SCRIPTS, "lib"))
import loopback  # noqa: E402
from loopback import free_port  # noqa: E402,F401
import exposition  # noqa: E402
from polling import wait_for  # noqa: E402,F401
from processes import terminate  # noqa: E402
DOCS = os.path.join(ROOT, "docs")
EXAMPLES = os.path.join(DOCS, "examples")
SKIP = 77  # meson: test skipped


def skip(why):
    print(f"SKIP: {why}")
    sys.exit(SKIP)


def run(*args, check=True, **kw):
    """Runs a command, returns its stdout; on failure the output is shown."""
    r = subprocess.run([str(a) for a in args], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, **kw)
    out = r.stdout.decode(errors="replace")
    if check and r.returncode != 0:
        raise AssertionError(f"{' '.join(map(str, args))} exited {r.returncode}:\n{out}")
    return out


# ---------------------------------------------------------------- network

def port_base():
    """slurmctld's port; slurmd takes +1 and the ghost nodes +84."""
    return loopback.port_base((1, 84))


def http_get(url, timeout=10, headers=None):
    req = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


# ---------------------------------------------------------------- exposition

def parse_exposition(text):
    """Prometheus text -> {sample name: [labels dict, ...]}."""
    out = {}
    for s in exposition.samples(text, timestamps=True):
        out.setdefault(s.name, []).append(dict(exposition.label_pairs(s.labels)))
    return out


# ---------------------------------------------------------------- clusters

class Cluster:
    """A loopback cluster (scripts/test-cluster.sh) with JobSubmitPlugins=
    soperator. plugin_dir=None: the plugin comes from Slurm's default
    PluginDir (an installed package)."""

    def __init__(self, version, plugin_dir=None, conf_lines=(), gpus=0,
                 conf_extra=(), job_submit="soperator", metrics_conf=None,
                 no_metrics_conf=False):
        self.version = version
        self.dir = tempfile.mkdtemp(prefix=f"sm-pkg-{version}-")
        self.cdir = os.path.join(self.dir, "c")
        self.metrics_port = free_port()
        self.monitoring_port = free_port()
        while self.monitoring_port == self.metrics_port:
            self.monitoring_port = free_port()
        conf = os.path.join(self.dir, "soperator_metrics.conf.in")
        if metrics_conf is None:
            metrics_conf = (f"MetricsBindAddress=127.0.0.1:{self.metrics_port}\n"
                            f"MonitoringBindAddress=127.0.0.1:{self.monitoring_port}\n"
                            "CollectionInterval=1s\nLogLevel=info\n")
        with open(conf, "w") as f:
            f.write(metrics_conf + "".join(line + "\n" for line in conf_lines))
        self.args = [os.path.join(SCRIPTS, "test-cluster.sh"), "start", version,
                     self.cdir, "--port-base", str(port_base())]
        if not no_metrics_conf:
            self.args += ["--metrics-conf", conf]
        if job_submit:
            self.args += ["--job-submit", job_submit]
        if plugin_dir:
            self.args += ["--plugin-dir", plugin_dir]
        if gpus:
            self.args += ["--gpus", str(gpus)]
        for line in conf_extra:
            self.args += ["--conf-extra", line]
        self.env = None

    def start(self, check=True):
        """Starts the cluster; returns test-cluster.sh's exit status. With
        check, a failed start is retried once on other ports (the machine is
        shared: a port found free may be taken before slurmd binds it), then
        raises."""
        r = subprocess.run(self.args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        self.start_output = r.stdout.decode(errors="replace")
        if check and r.returncode != 0:
            print(f"test-cluster.sh start failed, retrying on other ports:\n{self.start_output}")
            self.stop()
            i = self.args.index("--port-base")
            self.args[i + 1] = str(port_base())
            r = subprocess.run(self.args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            self.start_output = r.stdout.decode(errors="replace")
        if check and r.returncode != 0:
            raise AssertionError(f"test-cluster.sh start failed:\n{self.start_output}")
        if r.returncode == 0:
            self.env = self._read_env(os.path.join(self.cdir, "env.sh"))
        return r.returncode

    @staticmethod
    def _read_env(path):
        out = subprocess.run(["bash", "-c", 'source "$1" && env -0', "bash", path],
                             check=True, stdout=subprocess.PIPE).stdout
        return dict(kv.split("=", 1) for kv in out.decode().split("\0") if "=" in kv)

    def cmd(self, *args, check=True, timeout=30):
        r = subprocess.run(list(args), env=self.env, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=timeout, cwd=self.dir)
        if check and r.returncode != 0:
            raise AssertionError(f"{args} failed: {r.stderr.decode()}")
        return r.stdout.decode()

    def ctld_pid(self):
        with open(os.path.join(self.cdir, "run", "slurmctld.pid")) as f:
            return int(f.read().strip())

    def log(self, name="slurmctld.log"):
        try:
            with open(os.path.join(self.cdir, "log", name), errors="replace") as f:
                return f.read()
        except FileNotFoundError:
            return ""

    def logs(self):
        """slurmctld's log file plus its stdout/stderr (errors from before
        the log file opens land there)."""
        return self.log("slurmctld.log") + self.log("slurmctld.out")

    def url(self, path="/metrics", monitoring=False):
        port = self.monitoring_port if monitoring else self.metrics_port
        return f"http://127.0.0.1:{port}{path}"

    def scrape(self, path="/metrics", monitoring=False):
        status, body = http_get(self.url(path, monitoring))
        assert status == 200, f"GET {path}: HTTP {status}"
        return body.decode()

    def collections(self):
        return float(_value(self.scrape(monitoring=True),
                            "slurm_exporter_collection_attempts_total"))

    def wait_collections(self, n=2):
        # The cluster's start waits for slurmctld to answer, not for the
        # plugin's listener: the first scrape is retried like the rest.
        start = wait_for("the monitoring listener", lambda: (self.collections(),),
                         timeout=30)[0]
        wait_for(f"{n} collections", lambda: self.collections() >= start + n, timeout=30)

    def stop(self):
        subprocess.run([os.path.join(SCRIPTS, "test-cluster.sh"), "stop", self.cdir],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self._kill_leftovers()

    def _leftovers(self):
        """slurmctld/slurmd processes of this cluster that test-cluster.sh
        lost track of (its start can mistake a daemon still being exec'ed
        for a dead one and then forget its PID): matched by the cluster's
        own slurm.conf on their command line."""
        conf = os.path.join(self.cdir, "etc", "slurm.conf")
        pids = []
        for d in os.listdir("/proc"):
            if not d.isdigit():
                continue
            try:
                with open(f"/proc/{d}/comm") as f:
                    comm = f.read().strip()
                with open(f"/proc/{d}/cmdline", "rb") as f:
                    args = f.read().split(b"\0")
            except OSError:
                continue
            if comm in ("slurmctld", "slurmd") and conf.encode() in args:
                pids.append(int(d))
        return pids

    def _kill_leftovers(self):
        pids = self._leftovers()
        if not pids:
            return
        print(f"stopping daemons test-cluster.sh lost track of: {pids}")
        for sig, wait in ((signal.SIGTERM, 15), (signal.SIGKILL, 5)):
            for pid in pids:
                try:
                    os.kill(pid, sig)
                except ProcessLookupError:
                    pass
            deadline = time.time() + wait
            while time.time() < deadline and self._leftovers():
                time.sleep(0.2)
            pids = self._leftovers()
            if not pids:
                return

    def cleanup(self):
        self.stop()
        if not os.environ.get("SM_KEEP_CLUSTER"):
            shutil.rmtree(self.dir, ignore_errors=True)


def _value(text, name):
    for line in text.splitlines():
        if line.startswith(name + " ") or line.startswith(name + "{"):
            return line.rsplit(" ", 1)[1]
    raise AssertionError(f"{name} not in body")


# ---------------------------------------------------------------- processes

class Daemon:
    """A process we started and stop by its PID only."""

    def __init__(self, args, log_path):
        self.log_path = log_path
        self.log = open(log_path, "wb")
        self.proc = subprocess.Popen(args, stdout=self.log, stderr=subprocess.STDOUT,
                                     start_new_session=True)

    def alive(self):
        return self.proc.poll() is None

    def output(self):
        with open(self.log_path, errors="replace") as f:
            return f.read()

    def stop(self):
        terminate(self.proc, 30)
        self.log.close()


# ---------------------------------------------------------------- ELF

def _sections(path):
    """readelf -S -W -> {name: (address, file offset, size)}."""
    out = run("readelf", "-S", "-W", path)
    secs = {}
    for m in re.finditer(r'\]\s+(\S+)\s+\S+\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)', out):
        secs[m.group(1)] = (int(m.group(2), 16), int(m.group(3), 16), int(m.group(4), 16))
    return secs


def symbol_offset(path, symbol):
    """File offset of a defined dynamic symbol's bytes."""
    out = run("nm", "-D", "--defined-only", path)
    m = re.search(r'^([0-9a-f]+) \S ' + re.escape(symbol) + r'$', out, re.M)
    assert m, f"{symbol} not exported by {path}"
    addr = int(m.group(1), 16)
    for name, (sec_addr, off, size) in _sections(path).items():
        if sec_addr and sec_addr <= addr < sec_addr + size:
            return off + addr - sec_addr
    raise AssertionError(f"{symbol} of {path} is in no section")


def plugin_version(path):
    """The uint32 plugin_version a plugin reports to slurmctld."""
    with open(path, "rb") as f:
        f.seek(symbol_offset(path, "plugin_version"))
        return int.from_bytes(f.read(4), "little")


def set_plugin_version(src, dst, version):
    """Copies a plugin with plugin_version replaced: what a build for
    another release of the same series would report."""
    shutil.copyfile(src, dst)
    with open(dst, "r+b") as f:
        f.seek(symbol_offset(dst, "plugin_version"))
        f.write(version.to_bytes(4, "little"))


def version_number(version):
    """'22.05.8' -> 0x160508, as SLURM_VERSION_NUMBER."""
    a, b, c = (int(x) for x in version.split("."))
    return (a << 16) + (b << 8) + c


def version_string(number):
    return f"{number >> 16}.{(number >> 8) & 0xff:02d}.{number & 0xff}"
