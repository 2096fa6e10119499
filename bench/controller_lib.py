#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""What the controller benchmarks share: a loopback slurmctld (Controller,
Accounting), job submission, lock tracing with uprobes (LockTracer), CPU and
gauge sampling, wrk and curl scrapes, formatting. Used by
bench/controller_bench.py (the job_submit carrier) and bench/ctld_paths.py
(slurmctld's own port, 25.11+); imports neither.
"""

import bisect
import contextlib
import hashlib
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CACHE = os.environ.get("SM_CACHE", "/var/cache/soperator-metrics")
TRACEFS = "/sys/kernel/tracing"
UPROBE_GROUP = "smbench"
TICKS = os.sysconf("SC_CLK_TCK")
USER_PREFIX = "smbench"
sys.path.insert(0, os.path.join(ROOT, "scripts", "lib"))
import loopback  # noqa: E402
from loopback import free_port  # noqa: E402
import exposition  # noqa: E402
from processes import terminate  # noqa: E402


def log(msg):
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


# ------------------------------------------------------------------ helpers

def pct(values, p):
    """Nearest-rank percentile."""
    if not values:
        return None
    v = sorted(values)
    k = max(1, min(len(v), int(p / 100.0 * len(v) + 0.999999)))
    return v[k - 1]


def median(values):
    return statistics.median(values) if values else None


def cpu_seconds(pid):
    """utime + stime of the whole process (all threads), in seconds."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def rss_bytes(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def http_get(url, headers=None, timeout=60):
    req = urllib.request.Request(url, headers=headers or {})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return r.status, r.read()


def parse_flat(text):
    """Prometheus text -> {'name{labels}': value} (no unescaping needed here)."""
    return {s.name + s.braces: float(s.value) for s in exposition.samples(text)}


def fmt_ms(s):
    if s is None:
        return "–"
    ms = s * 1e3
    if ms >= 10000:
        return f"{s:.0f} s" if s >= 100 else f"{s:.1f} s"
    if ms >= 100:
        return f"{ms:.0f} ms"
    if ms >= 10:
        return f"{ms:.1f} ms"
    return f"{ms:.2f} ms"


def fmt_bytes(b):
    if b is None:
        return "–"
    if b >= 1e9:
        return f"{b / 1e9:.2f} GB"
    if b >= 1e6:
        return f"{b / 1e6:.1f} MB"
    if b >= 1e3:
        return f"{b / 1e3:.1f} kB"
    return f"{b} B"


# ------------------------------------------------------------- quiet check

def busy_processes(own_pids):
    """Other engineers' daemons and compilers that would skew the numbers."""
    pat = re.compile(r"^(slurmctld|slurmd|slurmstepd|cc1plus|cc1|ninja|ld|wrk)$")
    found = []
    for p in os.listdir("/proc"):
        if not p.isdigit() or int(p) in own_pids:
            continue
        try:
            with open(f"/proc/{p}/comm") as f:
                comm = f.read().strip()
            with open(f"/proc/{p}/stat") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state not in "ZX" and pat.match(comm):
            found.append(f"{comm}({p})")
    return found


def quiet_state(own_pids=()):
    load1 = os.getloadavg()[0]
    return {"load1": round(load1, 2), "busy": busy_processes(set(own_pids))}


def wait_quiet(max_minutes, threshold):
    """Waits (60 s steps) for load < threshold and no foreign slurm/compilers."""
    deadline = time.time() + max_minutes * 60
    while True:
        q = quiet_state()
        if q["load1"] < threshold and not q["busy"]:
            log(f"machine quiet: load {q['load1']}")
            return q
        if time.time() >= deadline:
            log(f"machine still busy after {max_minutes} min (load {q['load1']}, "
                f"{' '.join(q['busy'][:8]) or 'no foreign processes'}): running anyway")
            return q
        log(f"waiting for a quiet machine: load {q['load1']}, "
            f"{' '.join(q['busy'][:8]) or 'no foreign processes'}")
        time.sleep(60)


# ----------------------------------------------------------------- builds

def slurm_version(prefix):
    """The release of the slurmctld under prefix, as `slurmctld -V` prints
    it ("?" if it prints nothing)."""
    out = subprocess.run([os.path.join(prefix, "sbin", "slurmctld"), "-V"],
                         capture_output=True, text=True).stdout.split()
    return out[-1] if out else "?"


def start_record(args):
    """A run's results: its arguments, when and where, and how quiet the
    machine was before it (after waiting for quiet when asked)."""
    R = {"args": vars(args), "date": time.strftime("%Y-%m-%d %H:%M %Z"),
         "machine": f"{os.cpu_count()} cores, Linux {os.uname().release}"}
    R["quiet_before"] = (wait_quiet(args.wait_quiet, args.quiet_load) if args.wait_quiet
                         else quiet_state())
    return R


def cluster_args(ap, workdir):
    """The arguments every benchmark's cluster takes (Controller and submit
    read them): where it lives, its size and its users, the idle windows."""
    ap.add_argument("--workdir", default=workdir)
    ap.add_argument("--nodes", type=int, default=10000)
    ap.add_argument("--jobs", type=int, default=50000)
    ap.add_argument("--users", type=int, default=25)
    ap.add_argument("--uid-base", type=int, default=20001)
    ap.add_argument("--idle-seconds", type=int, default=60)


def fresh_workdir(args, plugin_name):
    """Empties args.workdir (only if it is one of ours) and puts a private
    copy of args.plugin in it under plugin_name; returns that copy's path.
    A private copy: a rebuild of the build directory during the run must not
    change what a restarted slurmctld loads."""
    if os.path.exists(args.workdir):
        if (os.listdir(args.workdir)
                and not os.path.exists(os.path.join(args.workdir, "etc", "slurm.conf"))):
            sys.exit(f"{args.workdir} exists and is not ours")
        shutil.rmtree(args.workdir)
    os.makedirs(args.workdir)
    plugin_dir = os.path.join(args.workdir, "plugins")
    os.makedirs(plugin_dir)
    plugin_so = os.path.join(plugin_dir, plugin_name)
    shutil.copy2(args.plugin, plugin_so)
    return plugin_so


def save_results(args, R):
    """The results as JSON in --json (if given) and in the work directory."""
    for path in [args.json, os.path.join(args.workdir, "results.json")]:
        if path:
            with open(path, "w") as f:
                json.dump(R, f, indent=1, default=str)


def build_submitter(prefix):
    src = os.path.join(ROOT, "bench", "submit_jobs.c")
    with open(src, "rb") as f:
        digest = hashlib.sha256(f.read() + prefix.encode()).hexdigest()[:12]
    out_dir = os.path.join(CACHE, "bench")
    exe = os.path.join(out_dir, f"submit_jobs-{digest}")
    if not os.path.exists(exe):
        os.makedirs(out_dir, exist_ok=True)
        tmp = exe + ".tmp"
        subprocess.run(["cc", "-O2", "-std=gnu11", "-pthread",
                        f"-I{prefix}/include", src, "-o", tmp,
                        f"-L{prefix}/lib", "-lslurm", f"-Wl,-rpath,{prefix}/lib"],
                       check=True)
        os.rename(tmp, exe)
    return exe


# ------------------------------------------------------------------- users

class Users:
    """smbench01..NN with uids uid_base..: created when missing, removed at
    the end if we created them (job records of unknown uids would carry no
    user name, unlike a real cluster's)."""

    def __init__(self, count, uid_base):
        self.count, self.uid_base, self.created = count, uid_base, []

    def ensure(self):
        import pwd
        for i in range(self.count):
            uid = self.uid_base + i
            name = f"{USER_PREFIX}{i + 1:02d}"
            try:
                pw = pwd.getpwuid(uid)
                if pw.pw_name != name:
                    log(f"uid {uid} is {pw.pw_name}; jobs will carry that name")
                continue
            except KeyError:
                pass
            subprocess.run(["useradd", "--no-create-home", "--no-user-group",
                            "--gid", "100", "--key", "UID_MAX=99999",
                            "--shell", "/usr/sbin/nologin", "--uid", str(uid),
                            name], check=True,
                           stdout=subprocess.DEVNULL)
            self.created.append(name)

    def remove(self):
        for name in self.created:
            subprocess.run(["userdel", name], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
        self.created = []


# -------------------------------------------------------------- controller

class Controller:
    """One slurmctld on 127.0.0.1, configured by us; no slurmd."""

    def __init__(self, args, workdir, plugin_so):
        self.args = args
        self.prefix = args.slurm_prefix
        self.dir = workdir
        self.plugin_dir = os.path.dirname(plugin_so)
        self.conf = os.path.join(workdir, "etc", "slurm.conf")
        self.env = dict(os.environ, SLURM_CONF=self.conf)
        # slurmd, slurmdbd and MariaDB (--accounting, as test-cluster.sh
        # places them), the nodes' port nobody listens on.
        self.port = loopback.port_base((1, 2, 3, 84))
        self.metrics_port = free_port()
        self.monitoring_port = free_port()
        self.proc = None
        self.pid = None
        self.metrics_type = None  # MetricsType= (25.11+), or none
        self.extra_conf = []  # more soperator_metrics.conf lines

    def bin(self, name):
        return os.path.join(self.prefix, "bin", name)

    def write_conf(self, plugin, interval):
        a = self.args
        n = a.nodes
        w = len(str(n))
        quarter = max(1, n // 4)
        half = max(1, n // 2)

        def rng(lo, hi):
            return f"n[{lo:0{w}d}-{hi:0{w}d}]"
        for d in ("etc", "state", "log", "run"):
            os.makedirs(os.path.join(self.dir, d), exist_ok=True)
        lines = [
            "# Written by bench/controller_bench.py",
            "ClusterName=smbench",
            f"SlurmctldHost={socket.gethostname().split('.')[0]}(127.0.0.1)",
            f"SlurmctldPort={self.port}",
            f"SlurmdPort={self.port + 1}",
            "SlurmUser=root", "SlurmdUser=root",
            "AuthType=auth/munge", "CredType=cred/munge",
            f"StateSaveLocation={self.dir}/state",
            f"SlurmdSpoolDir={self.dir}/spool/%n",
            f"SlurmctldPidFile={self.dir}/run/slurmctld.pid",
            f"SlurmctldLogFile={self.dir}/log/slurmctld.log",
            "SlurmctldDebug=info",
            "ProctrackType=proctrack/linuxproc",
            "SelectType=select/cons_tres",
            "SelectTypeParameters=CR_Core_Memory",
            "SchedulerType=sched/backfill",
            "MpiDefault=none",
            "ReturnToService=2",
            # Nodes never register; 0 keeps slurmctld from timing them out.
            "SlurmdTimeout=0",
            # Powered-down cloud nodes are never pinged either.
            "SuspendProgram=/bin/true", "ResumeProgram=/bin/true",
            "SuspendTime=INFINITE",
            f"MaxJobCount={max(200000, 2 * a.jobs)}",
            "MinJobAge=600",
            "MailProg=/bin/true",
            f"PluginDir={self.prefix}/lib/slurm:{self.plugin_dir}",
        ]
        if plugin:
            lines.append("JobSubmitPlugins=soperator")
        if a.accounting:
            # test-cluster.sh start-accounting's slurmdbd, multifactor
            # priority and licenses; then two licenses more.
            lines += [f"Include {self.dir}/etc/accounting.conf",
                      "Licenses=matlab:4,comsol:2,ansys:16,abaqus:64"]
        if self.metrics_type:
            lines.append(f"MetricsType={self.metrics_type}")
        lines += [
            # A port nobody listens on: defined, never registered.
            f"NodeName={rng(1, n)} NodeAddr=127.0.0.1 Port={self.port + 84} "
            "CPUs=64 Boards=1 SocketsPerBoard=2 CoresPerSocket=32 ThreadsPerCore=1 "
            "RealMemory=512000 State=CLOUD",
            "PartitionName=all Nodes=ALL Default=YES MaxTime=INFINITE State=UP",
            f"PartitionName=a Nodes={rng(1, quarter)} MaxTime=INFINITE State=UP",
            f"PartitionName=b Nodes={rng(quarter + 1, half)} MaxTime=INFINITE State=UP",
            f"PartitionName=c Nodes={rng(half + 1, n)} MaxTime=INFINITE State=UP",
        ]
        with open(self.conf, "w") as f:
            f.write("\n".join(lines) + "\n")
        with open(os.path.join(self.dir, "etc", "cgroup.conf"), "w") as f:
            f.write("CgroupPlugin=disabled\n")
        with open(os.path.join(self.dir, "etc", "soperator_metrics.conf"), "w") as f:
            f.write(f"MetricsBindAddress=127.0.0.1:{self.metrics_port}\n"
                    f"MonitoringBindAddress=127.0.0.1:{self.monitoring_port}\n"
                    f"CollectionInterval={interval}\n"
                    f"ListenerThreads={a.listener_threads}\n"
                    "LogLevel=info\n"
                    + "".join(line + "\n" for line in self.extra_conf))

    def start(self, plugin, interval="30s", fresh=False):
        self.write_conf(plugin, interval)
        args = [os.path.join(self.prefix, "sbin", "slurmctld"), "-D", "-f", self.conf]
        if fresh:
            args[1:1] = ["-i", "-c"]
        out = open(os.path.join(self.dir, "log", "slurmctld.out"), "ab")
        self.proc = subprocess.Popen(args, env=self.env, stdin=subprocess.DEVNULL,
                                     stdout=out, stderr=subprocess.STDOUT,
                                     start_new_session=True)
        out.close()
        self.pid = self.proc.pid
        deadline = time.time() + 300
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"slurmctld exited ({self.proc.returncode}); "
                                   f"see {self.dir}/log/slurmctld.log")
            r = subprocess.run([self.bin("scontrol"), "ping"], env=self.env,
                               capture_output=True, text=True, timeout=30)
            if "is UP" in r.stdout:
                break
            time.sleep(0.5)
        else:
            raise RuntimeError("slurmctld did not answer")
        if plugin:
            self.wait_ready()

    def stop(self):
        if self.proc:
            terminate(self.proc, 60)
        self.proc = None

    def url(self, path="/metrics"):
        return f"http://127.0.0.1:{self.metrics_port}{path}"

    def ctld_url(self, path):
        """slurmctld's own port (HTTP on 25.11+)."""
        return f"http://127.0.0.1:{self.port}{path}"

    def monitoring(self):
        _, body = http_get(f"http://127.0.0.1:{self.monitoring_port}/metrics", timeout=10)
        return parse_flat(body.decode())

    def wait_ready(self, timeout=300):
        deadline = time.time() + timeout
        while time.time() < deadline:
            try:
                status, _ = http_get(self.url("/readyz"), timeout=5)
                if status == 200:
                    return
            except Exception:  # noqa: BLE001 - 503 until the first collection
                pass
            time.sleep(0.5)
        raise RuntimeError("plugin never became ready")

    def attempts(self):
        return self.monitoring().get("slurm_exporter_collection_attempts_total", 0)

    def wait_collections(self, n, timeout=600):
        """Waits until n more collections (and their renders) finished."""
        start = self.attempts()
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.attempts() >= start + n:
                time.sleep(1.0)  # the render follows the collection
                return
            time.sleep(0.3)
        raise RuntimeError("no collection finished in time")

    def job_count(self):
        r = subprocess.run([self.bin("squeue"), "-h", "-o", "%i"], env=self.env,
                           capture_output=True, text=True, timeout=600)
        return len(r.stdout.split())


# -------------------------------------------------------------- accounting

class Accounting:
    """--accounting: MariaDB and slurmdbd (scripts/test-cluster.sh
    start-accounting, on the controller's port base), the associations, QoS
    and remote license created with one sacctmgr, reservations created with
    scontrol once slurmctld runs, and association updates pushed from
    slurmdbd while we measure."""

    def __init__(self, args, ctl):
        self.args, self.ctl = args, ctl
        self.script = os.path.join(ROOT, "scripts", "test-cluster.sh")
        self.env = dict(ctl.env, SM_TEST_SLURM_PREFIX=args.slurm_prefix)
        self.accounts = [f"ba{i + 1:03d}" for i in range(args.accounts)]
        self.started = False

    def start(self):
        version = slurm_version(self.args.slurm_prefix)
        self.started = True
        subprocess.run([self.script, "start-accounting", version, self.ctl.dir,
                        "--port-base", str(self.ctl.port)], env=self.env, check=True,
                       stdout=subprocess.DEVNULL)

    def stop(self):
        if self.started:
            subprocess.run([self.script, "stop", self.ctl.dir], env=self.env,
                           stdout=subprocess.DEVNULL)
            self.started = False

    def sacctmgr(self, commands, timeout):
        with open(os.path.join(self.ctl.dir, "log", "sacctmgr.out"), "a") as log_f:
            r = subprocess.run([self.ctl.bin("sacctmgr"), "-i"], input="\n".join(commands) + "\n",
                               env=self.ctl.env, stdout=log_f, stderr=subprocess.STDOUT,
                               text=True, timeout=timeout)
        if r.returncode:
            raise RuntimeError(f"sacctmgr failed; see {self.ctl.dir}/log/sacctmgr.out")

    def load(self):
        """Before slurmctld starts, so that it loads them from slurmdbd:
        the cluster, --qos QoS, --accounts accounts under root,
        --assoc-users users spread over them (one command per account),
        the benchmark's job users (one account each, round robin) and a
        remote license."""
        a = self.args
        cmds = ["add cluster smbench"]
        cmds += [f"add qos bq{i:02d} Priority={i} GrpJobs={100 * i} MaxJobsPerUser={10 * i} "
                 f"GrpTRES=cpu={640 * i} MaxWall={60 * i}" for i in range(1, a.qos + 1)]
        cmds.append(f"add account {','.join(self.accounts)} Description=bench Organization=sm")
        per = -(-a.assoc_users // len(self.accounts))
        names = [f"bu{i + 1:04d}" for i in range(a.assoc_users)]
        for k, acct in enumerate(self.accounts):
            group = names[k * per:(k + 1) * per]
            if group:
                q = f"bq{k % a.qos + 1:02d}" if a.qos else "normal"
                cmds.append(f"add user {','.join(group)} Account={acct} Fairshare={k % 7 + 1} "
                            f"QOS=normal,{q}")
        cmds += [f"add user {USER_PREFIX}{i + 1:02d} Account={self.accounts[i % len(self.accounts)]}"
                 for i in range(a.users)]
        cmds.append("add resource fluent Server=flexlm Type=License Count=10 Cluster=smbench "
                    "PercentAllowed=50 LastConsumed=3")
        t0 = time.monotonic()
        self.sacctmgr(cmds, timeout=1800)
        secs = time.monotonic() - t0
        r = subprocess.run([self.ctl.bin("sacctmgr"), "-n", "-P", "show", "assoc",
                            "cluster=smbench", "format=id"], env=self.ctl.env,
                           capture_output=True, text=True, check=True)
        return {"seconds": secs, "commands": len(cmds), "associations": len(r.stdout.split()),
                "accounts": len(self.accounts), "users": a.assoc_users + a.users, "qos": a.qos}

    def reservations(self):
        """--reservations on 10 nodes each: half active, half a day ahead;
        users, accounts, flags and a license vary."""
        a = self.args
        w = len(str(a.nodes))
        t0 = time.monotonic()
        for i in range(a.reservations):
            lo = 1 + (i * 10) % max(1, a.nodes - 10)
            spec = [f"ReservationName=bres{i + 1:02d}",
                    f"Nodes=n[{lo:0{w}d}-{lo + 9:0{w}d}]",
                    "StartTime=now" if i % 2 == 0 else "StartTime=now+1day",
                    "Duration=1-0" if i % 2 == 0 else "Duration=120",
                    f"Users={USER_PREFIX}{i % a.users + 1:02d}" if i % 3 else
                    f"Accounts={self.accounts[i % len(self.accounts)]}"]
            if i % 4 == 1:
                spec.append("Flags=MAINT")
            if i == 0:
                spec.append("Licenses=matlab:1")
            r = subprocess.run([self.ctl.bin("scontrol"), "create", "reservation"] + spec,
                               env=self.ctl.env, capture_output=True, text=True, timeout=60)
            if r.returncode:
                raise RuntimeError(f"scontrol create reservation {' '.join(spec)}: "
                                   f"{r.stdout}{r.stderr}")
        return {"count": a.reservations, "seconds": time.monotonic() - t0}

    def updates(self, seconds):
        """Fairshare changes of accounts, one every 2 s: slurmdbd sends each
        to slurmctld, which applies it under assoc_mgr's write locks."""
        end, n = time.monotonic() + seconds, 0
        while time.monotonic() < end:
            acct = self.accounts[n % len(self.accounts)]
            t = time.monotonic()
            self.sacctmgr([f"modify account where name={acct} cluster=smbench "
                           f"set fairshare={n % 9 + 1}"], timeout=60)
            n += 1
            time.sleep(max(0.0, min(2.0 - (time.monotonic() - t), end - time.monotonic())))
        return n


# ----------------------------------------------------------------- uprobes

class LockPairing:
    """One lock function's uprobe events, per thread, into complete uses:
    the entry (request) opens a use, the return marks it acquired, the
    unlock closes it. An unlock or return without its request (from before
    the trace began) is dropped, and so is a use still open at the end."""

    def __init__(self):
        self._open, self._done = {}, []

    def request(self, tid, comm, locks, ts):
        self._open[tid] = {"tid": tid, "comm": comm, "locks": locks,
                           "t_req": ts, "t_acq": None, "t_rel": None}

    def acquired(self, tid, ts):
        """The use this return completes, or None."""
        u = self._open.get(tid)
        if u and u["t_acq"] is None:
            u["t_acq"] = ts
            return u
        return None

    def released(self, tid, ts):
        u = self._open.pop(tid, None)
        if u and u["t_acq"] is not None:
            u["t_rel"] = ts
            self._done.append(u)

    def uses(self):
        return sorted(self._done, key=lambda u: u["t_req"])


class LockTracer:
    """uprobes on lock_slurmctld (entry with the five lock levels, return)
    and unlock_slurmctld (entry) of the slurmctld binary, recorded with the
    thread name ($comm) and TGID in a tracefs instance of our own with the
    CLOCK_MONOTONIC trace clock, streamed to a file."""

    LINE = re.compile(
        r"^\s*.+?-(\d+)\s+\(\s*([\d-]+)\)\s+\[\d+\]\s+\S+\s+([\d.]+): "
        r"(lock_e|lock_r|unlock_e): \([^)]*\)\s*"
        r"(?:conf=(\d+) job=(\d+) node=(\d+) part=(\d+) fed=(\d+) (?:sel=(\d+) )?)?"
        r'comm="(.*)"\s*$')
    RET = re.compile(r"lock_r: \((0x[0-9a-f]+) <- (0x[0-9a-f]+)\)")
    # --accounting: assoc_mgr_lock/unlock (a_lock_e, a_lock_r, a_unlock_e)
    # and the entry/return of our sub-collectors (sub_e_NAME, sub_r_NAME).
    OTHER = re.compile(
        r"^\s*.+?-(\d+)\s+\(\s*([\d-]+)\)\s+\[\d+\]\s+\S+\s+([\d.]+): "
        r"(a_lock_e|a_lock_r|a_unlock_e|sub_[er]_\w+): \([^)]*\)\s*(.*?)\s*"
        r'comm="(.*)"\s*$')

    def __init__(self, slurmctld, out_path, select_node=False, libslurmfull=None, plugin=None):
        # 26.05's slurmctld_lock_t has a sixth level, select_node.
        self.select_node = select_node
        self.binary = slurmctld
        self.libslurmfull = libslurmfull
        self.plugin = plugin
        self.out_path = out_path
        self.instance = os.path.join(TRACEFS, "instances", f"{UPROBE_GROUP}-{os.getpid()}")
        self.defined = []
        self.reader = None

    @staticmethod
    def file_offset(binary, symbol, dynamic=True):
        """symbol: an exported name (nm -D), or with dynamic=False the
        start of a demangled local one, e.g. "ns::Class::Method(" (nm -C)."""
        nm = subprocess.run(["nm", "-D" if dynamic else "-C", "--defined-only", binary],
                            capture_output=True, text=True, check=True).stdout
        vaddr = None
        for line in nm.splitlines():
            parts = line.split(maxsplit=2)
            # Not a function's [clone .cold] part nor its static variables.
            if len(parts) == 3 and (parts[2] == symbol if dynamic else
                                    parts[1] in "tT" and parts[2].startswith(symbol)
                                    and "[clone" not in parts[2] and ")::" not in parts[2]):
                vaddr = int(parts[0], 16)
        if vaddr is None:
            raise RuntimeError(f"{symbol} not in {binary}")
        ph = subprocess.run(["readelf", "-lW", binary], capture_output=True,
                            text=True, check=True).stdout
        for line in ph.splitlines():
            parts = line.split()
            if parts and parts[0] == "LOAD":
                off, va, filesz = int(parts[1], 16), int(parts[2], 16), int(parts[4], 16)
                if va <= vaddr < va + filesz:
                    return vaddr - va + off
        raise RuntimeError(f"{symbol}: no LOAD segment")

    @staticmethod
    def _write(path, text, append=False):
        # os.open: Python's "a" mode seeks to the end, which tracefs refuses.
        fd = os.open(path, os.O_WRONLY | (os.O_APPEND if append else os.O_TRUNC))
        try:
            os.write(fd, text.encode())
        finally:
            os.close(fd)

    def setup(self):
        if not os.path.isdir(os.path.join(TRACEFS, "instances")):
            subprocess.run(["mount", "-t", "tracefs", "nodev", TRACEFS], check=True)
        lock = self.file_offset(self.binary, "lock_slurmctld")
        unlock = self.file_offset(self.binary, "unlock_slurmctld")
        # slurmctld_lock_t (5 ints, 20 bytes) is passed on the stack: the
        # levels sit above the return address.
        levels = ("conf=+8(%sp):u32 job=+12(%sp):u32 node=+16(%sp):u32 "
                  "part=+20(%sp):u32 fed=+24(%sp):u32")
        if self.select_node:
            levels += " sel=+28(%sp):u32"
        defs = [
            ("lock_e", f"p:{UPROBE_GROUP}/lock_e {self.binary}:{lock:#x} {levels} comm=$comm:string"),
            ("lock_r", f"r:{UPROBE_GROUP}/lock_r {self.binary}:{lock:#x} comm=$comm:string"),
            ("unlock_e", f"p:{UPROBE_GROUP}/unlock_e {self.binary}:{unlock:#x} {levels} comm=$comm:string"),
        ]
        if self.libslurmfull:
            lib = self.libslurmfull
            # assoc_mgr_lock_t *: seven lock levels, the first argument.
            alevels = " ".join(f"{k}=+{4 * i}(%di):u32" for i, k in enumerate(ASSOC_LOCK_NAMES))
            alock = self.file_offset(lib, "assoc_mgr_lock")
            aunlock = self.file_offset(lib, "assoc_mgr_unlock")
            defs += [
                ("a_lock_e", f"p:{UPROBE_GROUP}/a_lock_e {lib}:{alock:#x} {alevels} comm=$comm:string"),
                ("a_lock_r", f"r:{UPROBE_GROUP}/a_lock_r {lib}:{alock:#x} comm=$comm:string"),
                ("a_unlock_e", f"p:{UPROBE_GROUP}/a_unlock_e {lib}:{aunlock:#x} {alevels} comm=$comm:string"),
            ]
        if self.plugin:
            for func, sub in SUB_COLLECTORS.items():
                off = self.file_offset(self.plugin, f"sm::slurm::ControllerSource::{func}(",
                                       dynamic=False)
                for kind in "pr":
                    name = f"sub_{'e' if kind == 'p' else 'r'}_{sub}"
                    defs.append((name, f"{kind}:{UPROBE_GROUP}/{name} {self.plugin}:{off:#x} "
                                 "comm=$comm:string"))
        for name, d in defs:
            self._write(os.path.join(TRACEFS, "uprobe_events"), d + "\n", append=True)
            self.defined.append(name)
        os.makedirs(self.instance, exist_ok=True)
        self._write(os.path.join(self.instance, "trace_clock"), "mono")
        self._write(os.path.join(self.instance, "buffer_size_kb"), "65536")
        self._write(os.path.join(self.instance, "options", "record-tgid"), "1")
        self.out = open(self.out_path, "w")
        self.reader = subprocess.Popen(["cat", os.path.join(self.instance, "trace_pipe")],
                                       stdout=self.out)
        self._write(os.path.join(self.instance, "events", UPROBE_GROUP, "enable"), "1")
        time.sleep(0.5)

    def stop(self):
        if os.path.isdir(self.instance):
            with contextlib.suppress(OSError):
                self._write(os.path.join(self.instance, "events", UPROBE_GROUP, "enable"), "0")
        if self.reader:
            time.sleep(1.0)  # let cat drain the buffer
            self.reader.terminate()
            self.reader.wait()
            self.reader = None
            self.out.close()
        if os.path.isdir(self.instance):
            with contextlib.suppress(OSError):
                os.rmdir(self.instance)
        for name in self.defined:
            with contextlib.suppress(OSError):
                self._write(os.path.join(TRACEFS, "uprobe_events"),
                            f"-:{UPROBE_GROUP}/{name}\n", append=True)
        self.defined = []

    def parse(self, tgid):
        """-> list of lock uses: dict(tid, comm, locks, t_req, t_acq, t_rel,
        and ret/func: the caller's return address and lock_slurmctld's, both
        as mapped in the process). With --accounting see parse_accounting."""
        pairing = LockPairing()
        foreign = 0
        with open(self.out_path) as f:
            for line in f:
                m = self.LINE.match(line)
                if not m:
                    continue
                tid, tg, ts, ev = int(m.group(1)), m.group(2), float(m.group(3)), m.group(4)
                if not tg.isdigit() or int(tg) != tgid:
                    foreign += 1
                    continue
                if ev == "lock_e":
                    locks = tuple(int(m.group(i)) for i in range(5, 11) if m.group(i) is not None)
                    pairing.request(tid, m.group(11), locks, ts)
                elif ev == "lock_r":
                    u = pairing.acquired(tid, ts)
                    # "(return address <- lock_slurmctld)": who called it
                    a = self.RET.search(line) if u else None
                    if a:
                        u["ret"], u["func"] = int(a.group(1), 16), int(a.group(2), 16)
                elif ev == "unlock_e":
                    pairing.released(tid, ts)
        return pairing.uses(), foreign

    def parse_accounting(self, tgid):
        """-> (assoc_mgr lock uses as parse() gives slurmctld's, each with
        the seven levels of ASSOC_LOCK_NAMES; {tid: [(t_enter, t_return,
        sub-collector)]})."""
        pairing, subs, sub_open = LockPairing(), {}, {}
        with open(self.out_path) as f:
            for line in f:
                m = self.OTHER.match(line)
                if not m or not m.group(2).isdigit() or int(m.group(2)) != tgid:
                    continue
                tid, ts, ev, rest = int(m.group(1)), float(m.group(3)), m.group(4), m.group(5)
                if ev == "a_lock_e":
                    kv = dict(x.split("=", 1) for x in rest.split() if "=" in x)
                    pairing.request(tid, m.group(6), tuple(int(kv[k]) for k in ASSOC_LOCK_NAMES), ts)
                elif ev == "a_lock_r":
                    pairing.acquired(tid, ts)
                elif ev == "a_unlock_e":
                    pairing.released(tid, ts)
                elif ev.startswith("sub_e_"):
                    sub_open[tid] = (ts, ev[6:])
                elif ev.startswith("sub_r_") and tid in sub_open:
                    t_enter, name = sub_open.pop(tid)
                    subs.setdefault(tid, []).append((t_enter, ts, name))
        return pairing.uses(), subs


LOCK_NAMES = ("conf", "job", "node", "part", "fed", "select_node")
# assoc_mgr_lock_t's members, in order (src/common/assoc_mgr.h).
ASSOC_LOCK_NAMES = ("assoc", "file", "qos", "res", "tres", "user", "wckey")
# ControllerSource's method for each of our sub-collectors
# (plugin/service/sub_collectors.h names them).
SUB_COLLECTORS = {
    "CollectNodes": "nodes", "CollectJobs": "jobs", "CollectDiag": "diag",
    "CollectShares": "associations", "CollectQos": "qos",
    "CollectLicenses": "licenses", "CollectReservations": "reservations",
    "CollectAccountingStatus": "accounting",
}


def lock_text(locks, names=LOCK_NAMES):
    parts = []
    for name, level in zip(names, locks):
        if level == 1:
            parts.append(f"{name} R")
        elif level == 2:
            parts.append(f"{name} **W**")
    return ", ".join(parts) or "none"


def is_ours(comm):
    return comm.startswith("sm-")


def union(intervals):
    out = []
    for s, e in sorted(intervals):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out


def overlap(a0, a1, merged, starts):
    """Length of [a0, a1] covered by the merged intervals."""
    total = 0.0
    i = max(0, bisect.bisect_right(starts, a0) - 1)
    while i < len(merged) and merged[i][0] < a1:
        s, e = merged[i]
        total += max(0.0, min(a1, e) - max(a0, s))
        i += 1
    return total


def analyse_locks(uses, t0, t1):
    """Our holds and the waits of other threads that overlap them, in [t0, t1]."""
    uses = [u for u in uses if t0 <= u["t_req"] <= t1]
    ours = [u for u in uses if is_ours(u["comm"])]
    others = [u for u in uses if not is_ours(u["comm"])]
    writes = [u for u in ours if any(level == 2 for level in u["locks"])]
    holds = [(u["t_acq"], u["t_rel"]) for u in ours]
    merged = union(holds)
    starts = [s for s, _ in merged]
    # One collection = our holds that start within 2 s of each other.
    ticks, cur = [], []
    for u in sorted(ours, key=lambda u: u["t_acq"]):
        if cur and u["t_acq"] - cur[0]["t_acq"] > 2.0:
            ticks.append(cur)
            cur = []
        cur.append(u)
    if cur:
        ticks.append(cur)
    tick_union = [sum(e - s for s, e in union([(u["t_acq"], u["t_rel"]) for u in t]))
                  for t in ticks]
    per_locks = {}
    for u in ours:
        per_locks.setdefault(lock_text(u["locks"]), []).append(u["t_rel"] - u["t_acq"])
    # Our locks are all READ, and slurmctld's rwlocks prefer readers: only
    # a thread asking for a WRITE lock can wait on us, and only for the part
    # of its wait during which we held a lock (it may also be waiting for
    # slurmctld's own holders, e.g. the state saver).
    imposed = []
    for u in others:
        wait = u["t_acq"] - u["t_req"]
        if wait <= 0 or 2 not in u["locks"]:
            continue
        ov = overlap(u["t_req"], u["t_acq"], merged, starts)
        if ov > 0:
            imposed.append({"wait": wait, "overlap": ov, "comm": u["comm"],
                            "locks": lock_text(u["locks"])})
    other_waits = [u["t_acq"] - u["t_req"] for u in others]
    worst = max(imposed, key=lambda x: x["overlap"]) if imposed else None
    return {
        "our_lock_uses": len(ours),
        "our_write_locks": len(writes),
        "collections": len(ticks),
        "hold_per_collection_union": {"median": median(tick_union), "max": max(tick_union, default=None)},
        "hold_by_locks": {k: {"n": len(v), "median": median(v), "max": max(v)} for k, v in per_locks.items()},
        "other_lock_uses": len(others),
        "other_waits_all": {"p99": pct(other_waits, 99), "max": max(other_waits, default=None)},
        "imposed": {"n": len(imposed),
                    "p99_blocked": pct([x["overlap"] for x in imposed], 99),
                    "max_blocked": worst["overlap"] if worst else 0.0,
                    "max_wait": max((x["wait"] for x in imposed), default=0.0),
                    "worst": worst},
    }


def sub_of(subs, u):
    """The sub-collector whose call on u's thread was running when u got
    its lock, or "?"."""
    for t_enter, t_ret, name in subs.get(u["tid"], ()):
        if t_enter <= u["t_acq"] <= t_ret:
            return name
    return "?"


def accounting_locks(ctld_uses, assoc_uses, subs, t0, t1):
    """Per sub-collector: our holds of slurmctld's and of assoc_mgr's locks,
    and the waits of other threads for a WRITE lock while that
    sub-collector held a lock the writer wanted. slurmctld's locks as in
    analyse_locks (any write waits on any of our holds); assoc_mgr's are
    one rwlock per data type, so only a writer of a type we held counts."""
    per_sub = {}
    others_assoc = []
    for kind, uses, names in (("slurmctld", ctld_uses, LOCK_NAMES),
                              ("assoc_mgr", assoc_uses, ASSOC_LOCK_NAMES)):
        window = [u for u in uses if t0 <= u["t_req"] <= t1]
        ours = [u for u in window if is_ours(u["comm"])]
        writers = [u for u in window if not is_ours(u["comm"]) and 2 in u["locks"]
                   and u["t_acq"] > u["t_req"]]
        if kind == "assoc_mgr":
            others_assoc = [u for u in window if not is_ours(u["comm"])]
        by_sub = {}
        for u in ours:
            by_sub.setdefault(sub_of(subs, u), []).append(u)
        for sub, held in by_sub.items():
            holds = [u["t_rel"] - u["t_acq"] for u in held]
            imposed = []
            for w in writers:
                if kind == "assoc_mgr":
                    mine = [h for h in held if any(a == 2 and b for a, b in zip(w["locks"], h["locks"]))]
                else:
                    mine = held
                mine = [h for h in mine if h["t_acq"] < w["t_acq"] and h["t_rel"] > w["t_req"]]
                if not mine:
                    continue
                merged = union([(h["t_acq"], h["t_rel"]) for h in mine])
                ov = overlap(w["t_req"], w["t_acq"], merged, [a for a, _ in merged])
                if ov > 0:
                    imposed.append({"overlap": ov, "wait": w["t_acq"] - w["t_req"],
                                    "comm": w["comm"], "locks": lock_text(w["locks"], names)})
            worst = max(imposed, key=lambda x: x["overlap"]) if imposed else None
            per_sub.setdefault(sub, {})[kind] = {
                "n": len(held), "locks": sorted({lock_text(u["locks"], names) for u in held}),
                "median": median(holds), "max": max(holds),
                "imposed": {"n": len(imposed), "worst": worst,
                            "max_blocked": worst["overlap"] if worst else 0.0}}
    writes = {}
    for u in others_assoc:
        if 2 in u["locks"]:
            # worker[12] and worker[40] are the same kind of thread.
            comm = re.sub(r"\[\d+\]$", "[*]", u["comm"])
            w = writes.setdefault(f"{comm} ({lock_text(u['locks'], ASSOC_LOCK_NAMES)})",
                                  {"n": 0, "max_wait": 0.0, "max_hold": 0.0})
            w["n"] += 1
            w["max_wait"] = max(w["max_wait"], u["t_acq"] - u["t_req"])
            w["max_hold"] = max(w["max_hold"], u["t_rel"] - u["t_acq"])
    waits = [u["t_acq"] - u["t_req"] for u in others_assoc]
    return {"subs": per_sub,
            "assoc_others": {"n": len(others_assoc), "max_wait": max(waits, default=None),
                             "p99_wait": pct(waits, 99), "writes": writes}}


def path_locks(uses, t0, t1):
    """Lock holds of slurmctld's RPC workers while a client command ran."""
    rpc = [u for u in uses if t0 <= u["t_req"] <= t1 and u["comm"].startswith("worker")]
    if not rpc:
        return None
    longest = max(rpc, key=lambda u: u["t_rel"] - u["t_acq"])
    return {"max_hold": longest["t_rel"] - longest["t_acq"],
            "locks": lock_text(longest["locks"]),
            "total_hold": sum(u["t_rel"] - u["t_acq"] for u in rpc),
            "n": len(rpc)}


# -------------------------------------------------------------------- wrk

WRK_LUA = r"""
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'WRKJSON {"requests":%d,"errors":%d,"bytes":%d,"duration_us":%d,' ..
    '"p50":%d,"p90":%d,"p99":%d,"max":%d,"mean":%.1f}\n',
    summary.requests, e.connect + e.read + e.write + e.status + e.timeout,
    summary.bytes, summary.duration, latency:percentile(50),
    latency:percentile(90), latency:percentile(99), latency.max, latency.mean))
end
"""


class Wrk:
    """Back to back (each connection sends its next request as soon as the
    last answer is in), or paced: each connection waits `pace_ms` after an
    answer, like a scraper with an interval (wrk's delay() hook; the wait
    is not part of the latency)."""

    def __init__(self, workdir):
        self.script = os.path.join(workdir, "report.lua")
        with open(self.script, "w") as f:
            f.write(WRK_LUA)
        self.paced_script = os.path.join(workdir, "paced.lua")
        with open(self.paced_script, "w") as f:
            f.write(WRK_LUA + 'delay = function() return tonumber(os.getenv("SM_PACE_MS")) end\n')

    def cmd(self, url, conns, seconds, gzip, pace_ms=None):
        c = ["wrk", "-t", "2", "-c", str(conns), "-d", f"{seconds}s",
             "--timeout", "60s", "-s", self.paced_script if pace_ms else self.script]
        if gzip:
            c += ["-H", "Accept-Encoding: gzip"]
        return c + [url]

    @staticmethod
    def result(stdout):
        for line in stdout.splitlines():
            if line.startswith("WRKJSON "):
                r = json.loads(line[8:])
                for k in ("p50", "p90", "p99", "max", "mean"):
                    r[k] = r[k] / 1e6
                return r
        raise RuntimeError("wrk printed no result:\n" + stdout)


# ------------------------------------------------------------- measurement

def thread_cpu(pid):
    """{tid: (comm, cpu seconds)} of every thread of the process."""
    out = {}
    for t in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{t}/comm") as f:
                comm = f.read().strip()
            with open(f"/proc/{pid}/task/{t}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        out[t] = (comm, (int(fields[11]) + int(fields[12])) / TICKS)
    return out


def our_thread(comm):
    # The collector and ticker, and our listeners' threads (sm-http*).
    return comm.startswith("sm-")


class CpuWindow:
    """slurmctld CPU over a window: the whole process, our threads, and
    slurmctld's RPC worker threads (conmgr's worker[N])."""

    def __init__(self, pid):
        self.pid = pid
        self.t0 = time.monotonic()
        self.p0 = cpu_seconds(pid)
        self.th0 = thread_cpu(pid)

    def end(self):
        t1, p1, th1 = time.monotonic(), cpu_seconds(self.pid), thread_cpu(self.pid)
        ours = workers = 0.0
        for tid, (comm, cpu) in th1.items():
            d = cpu - self.th0.get(tid, (comm, 0.0))[1]
            if our_thread(comm):
                ours += d
            elif comm.startswith("worker"):
                workers += d
        secs = t1 - self.t0
        return {"seconds": secs, "process": p1 - self.p0, "ours": ours,
                "workers": workers, "process_per_min": (p1 - self.p0) * 60 / secs,
                "ours_per_min": ours * 60 / secs, "t0": self.t0, "t1": t1}


def idle_window(ctl, seconds, sampler=None):
    w = CpuWindow(ctl.pid)
    end = w.t0 + seconds
    while time.monotonic() < end:
        if sampler:
            sampler()
        time.sleep(min(1.0, max(0.0, end - time.monotonic())))
    return w.end()


class GaugeSampler:
    """Keeps, per collection (attempts_total value), the last monitoring
    sample: lock wait/hold per sub-collector, collector, collection and
    render durations."""

    KEYS = {
        "hold_jobs": 'slurm_exporter_controller_last_lock_hold_seconds{collector="jobs"}',
        "hold_nodes": 'slurm_exporter_controller_last_lock_hold_seconds{collector="nodes"}',
        "wait_jobs": 'slurm_exporter_controller_lock_wait_seconds{collector="jobs"}',
        "wait_nodes": 'slurm_exporter_controller_lock_wait_seconds{collector="nodes"}',
        "list_wait_jobs": 'slurm_exporter_controller_list_wait_seconds{collector="jobs"}',
        "collector_jobs": 'slurm_exporter_collector_duration_seconds{collector="jobs"}',
        "collector_nodes": 'slurm_exporter_collector_duration_seconds{collector="nodes"}',
        "collector_diag": 'slurm_exporter_collector_duration_seconds{collector="diag"}',
        "collection": "slurm_exporter_collection_duration_seconds",
        **{f"{k}_{sub}": f'slurm_exporter_{v}{{collector="{sub}"}}'
           for sub in ("associations", "qos", "licenses", "reservations")
           for k, v in (("hold", "controller_last_lock_hold_seconds"),
                        ("wait", "controller_lock_wait_seconds"),
                        ("collector", "collector_duration_seconds"))},
        "render": "slurm_exporter_render_duration_seconds",
    }

    def __init__(self, ctl):
        self.ctl = ctl
        self.by_attempt = {}
        self.first_seen = {}  # attempt -> CLOCK_MONOTONIC of its first sample

    def __call__(self):
        try:
            m = self.ctl.monitoring()
        except Exception:  # noqa: BLE001
            return
        a = m.get("slurm_exporter_collection_attempts_total")
        if a is not None:
            self.by_attempt[a] = m
            self.first_seen.setdefault(a, time.monotonic())

    def reset(self):
        self.by_attempt = {}
        self.first_seen = {}

    def watch(self, seconds):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self()
            time.sleep(0.5)

    def summary(self):
        # The first sample may be of a collection from before the window.
        samples = [self.by_attempt[k] for k in sorted(self.by_attempt)][1:]
        out = {"n": len(samples)}
        for k, name in self.KEYS.items():
            vals = [s[name] for s in samples if name in s]
            out[k] = {"median": median(vals), "max": max(vals, default=None)}
        c, r = self.KEYS["collection"], self.KEYS["render"]
        both = [s[c] + s[r] for s in samples if c in s and r in s]
        out["collection_plus_render"] = {"median": median(both), "max": max(both, default=None)}
        return out


def curl_scrape(url, gzip, n=5):
    """Single scraper: median wall of n sequential scrapes, bytes."""
    times, size = [], 0
    for _ in range(n):
        c = ["curl", "-s", "-o", "/dev/null", "-w", "%{time_total} %{size_download} %{http_code}"]
        if gzip:
            c += ["-H", "Accept-Encoding: gzip"]
        out = subprocess.run(c + [url], capture_output=True, text=True, check=True).stdout.split()
        if out[2] != "200":
            raise RuntimeError(f"{url}: HTTP {out[2]}")
        times.append(float(out[0]))
        size = int(out[1])
    return {"median": median(times), "max": max(times), "bytes": size}


def run_path(ctl, name, argv, timeout, idle_per_min):
    """A replaced path: wall, stdout bytes, client peak RSS, slurmctld CPU
    (process delta minus the idle rate over the same time; and the RPC
    worker threads' own CPU)."""
    log(f"path: {name}")
    out_path = os.path.join(ctl.dir, "path.out")
    time_path = out_path + ".time"
    w = CpuWindow(ctl.pid)
    timed_out = False
    with open(out_path, "wb") as out:
        p = subprocess.Popen(["/usr/bin/time", "-f", "%M", "-o", time_path] + argv,
                             env=ctl.env, stdout=out, stderr=subprocess.DEVNULL)
        try:
            p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
            timed_out = True
    c = w.end()
    size = os.path.getsize(out_path)
    os.unlink(out_path)
    rss = None
    with contextlib.suppress(Exception):
        with open(time_path) as f:
            rss = int(f.read().split()[-1]) * 1024
    return {"name": name, "wall": c["seconds"], "bytes": size, "client_rss": rss,
            "ctld_cpu": max(0.0, c["process"] - idle_per_min * c["seconds"] / 60.0),
            "workers_cpu": c["workers"], "t0": c["t0"], "t1": c["t1"],
            "timed_out": timed_out, "rc": p.returncode}


def submit(exe, ctl, args, *extra):
    r = subprocess.run([exe, "--users", str(args.users), "--uid-base", str(args.uid_base),
                        "--gid", "100", "--partitions", "all,a,b,c"] + list(extra),
                       env=ctl.env, capture_output=True, text=True)
    try:
        res = json.loads(r.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        raise RuntimeError(f"submit_jobs failed: {r.stdout}{r.stderr}") from None
    if res["errors"]:
        log(f"submit_jobs: {res['errors']} errors, first: {res['first_error']}")
    return res


def run_wrk(wrk, ctl, conns, seconds, gzip, pace_ms=None):
    w = CpuWindow(ctl.pid)
    ru0 = os.times()
    env = dict(os.environ, SM_PACE_MS=str(pace_ms or 0))
    r = subprocess.run(wrk.cmd(ctl.url(), conns, seconds, gzip, pace_ms),
                       capture_output=True, text=True, env=env)
    ru1 = os.times()
    c = w.end()
    res = Wrk.result(r.stdout)
    res.update({"ctld_cpu": c["process"], "ours_cpu": c["ours"],
                "client_cpu": (ru1.children_user + ru1.children_system
                               - ru0.children_user - ru0.children_system),
                "ours_cpu_per_request": c["ours"] / max(1, res["requests"]),
                "t0": c["t0"], "t1": c["t1"]})
    return res


# ----------------------------------------------------------------- report
