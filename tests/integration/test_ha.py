#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""HA handback with the plugin loaded (docs/testing.md): a primary and a backup
slurmctld, each with our listener; the primary is stopped (the backup takes
over) and started again (it takes control back), N times. After every
takeover and every handback: no job is lost (squeue before == after), our
/metrics on the controller in charge lists exactly squeue's jobs, and the
one in standby serves nothing; each says which it is
(slurm_exporter_controller_active, /readyz).

A handback can lose every job to Slurm's own state-file race, with or
without our plugin (docs/compat.md, "Jobs lost at handback"): the backup
saves its state only after its 29 s REQUEST_CONTROL reply, and the primary,
released by that reply, may open job_state in the milliseconds between the
save's two renames. A loss whose logs show exactly that (the backup's
"Old state possible" and "Saving all slurm state", then, within a second,
the primary's "No job state file (...) to recover") is reported as Slurm's
race and another handback is made in its place, up to 2 more; any other
loss, or no clean handback in all those attempts, fails.

usage: test_ha.py VERSION PLUGIN_DIR [--handbacks N] [--without-plugin]
                  [--metrics-type]

--metrics-type (25.11 and later): the plugin is loaded as
MetricsType=metrics/soperator instead; besides our listener, our routes on
each controller's slurmctld port are checked: the controller in charge
serves squeue's jobs on /metrics/soperator, and the standby answers what
slurmctld's own /metrics/nodes answers there, a 303 to the primary
(docs/compat.md, "Our routes on slurmctld's port": or a 503 naming the
primary's URL where that Location line would not fit slurmctld's 79-byte
header buffer).

Two controllers need two host names and one port each on two addresses:
the test makes two network namespaces of its own, joined by a veth pair
with private addresses (10.213.77.1 and .2, reachable from nowhere else).
The cluster (primary, slurmd, clients, this script) runs in the first; the
backup runs in the second under its own host name (a UTS namespace) and
with its own PID file and log directory (bind mounts in its own mount
namespace: slurmctld kills whatever its PID file names). Everything is
stopped by PID, and the namespaces are deleted, at the end."""

import argparse
import datetime
import http.client
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Cluster, parse_exposition, series, wait_for  # noqa: E402

PRIMARY_ADDR = "10.213.77.1"
BACKUP_ADDR = "10.213.77.2"
BACKUP_HOST = "smbackup"
# Handbacks that may be made in place of those lost to Slurm's race.
RACE_RETRIES = 2
STAMP = re.compile(r"^\[(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3})\] (.*)$", re.M)


def stamped(text, pattern):
    """Times of the log lines of text that match pattern."""
    return [datetime.datetime.fromisoformat(t) for t, line in STAMP.findall(text)
            if re.search(pattern, line)]


def slurms_race(primary_log, backup_log):
    """True when the logs of one handback show Slurm's state-file race: the
    backup relinquished late and saved its state, and the primary found no
    job_state within a second after that save began (docs/compat.md)."""
    if "Old state possible" not in backup_log:
        return False
    saves = stamped(backup_log, r"^Saving all slurm state$")
    # load_all_job_state() (job_mgr.c), the one that starts with no jobs.
    missing = stamped(primary_log, r"^No job state file \(.*\) to recover$")
    return any(0 <= (m - s).total_seconds() <= 1 for s in saves for m in missing)


def ip(*args, check=True):
    return subprocess.run(["ip", *args], check=check, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE).stdout.decode()


def kill_namespace_processes(ns):
    """Whatever still runs in a namespace we made (after a failed run)."""
    pids = [int(p) for p in ip("netns", "pids", ns, check=False).split()]
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for p in pids:
            try:
                os.kill(p, sig)
            except ProcessLookupError:
                pass
        end = time.monotonic() + 10
        while pids and time.monotonic() < end:
            pids = [p for p in pids if os.path.exists(f"/proc/{p}")]
            time.sleep(0.2)


SKIP = 77  # meson's exit status for a skipped test


def outer(a):
    # Network, UTS and mount namespaces need root (CI runs as root, and
    # scripts/install-deps.sh installs iproute2); anywhere else the test
    # says why it did not run instead of passing.
    if os.geteuid() != 0:
        print("SKIP: the HA test makes network namespaces: run it as root")
        return SKIP
    missing = [t for t in ("ip", "nsenter", "unshare") if not shutil.which(t)]
    if missing:
        print(f"SKIP: the HA test needs {', '.join(missing)} (iproute2, util-linux)")
        return SKIP
    tag = f"sm-ha-{os.getpid()}"
    ns_p, ns_b = tag + "-p", tag + "-b"
    made = []
    try:
        for ns in (ns_p, ns_b):
            try:
                ip("netns", "add", ns)
            except subprocess.CalledProcessError as e:
                if made:
                    raise
                print(f"SKIP: root, but `ip netns add` fails here: {e.stderr.decode().strip()}")
                return SKIP
            made.append(ns)
        # The pair is made inside our namespaces: no name in the host's.
        ip("-n", ns_p, "link", "add", "ha0", "type", "veth", "peer", "name", "ha1",
           "netns", ns_b)
        for ns, dev, addr in ((ns_p, "ha0", PRIMARY_ADDR), (ns_b, "ha1", BACKUP_ADDR)):
            ip("-n", ns, "addr", "add", addr + "/24", "dev", dev)
            ip("-n", ns, "link", "set", "lo", "up")
            ip("-n", ns, "link", "set", dev, "up")
        # nsenter, not `ip netns exec`: that one remounts /sys, and slurmd
        # then finds no cgroup filesystem.
        return subprocess.run(["nsenter", f"--net=/run/netns/{ns_p}", sys.executable,
                               os.path.abspath(__file__), "--inner", ns_b,
                               a.version, a.plugin_dir, "--handbacks", str(a.handbacks)]
                              + (["--without-plugin"] if a.without_plugin else [])
                              + (["--metrics-type"] if a.metrics_type else [])
                              ).returncode
    finally:
        for ns in made:
            kill_namespace_processes(ns)
            ip("netns", "del", ns, check=False)


class HA:
    def __init__(self, a):
        self.a = a
        extra = ["MetricsType=metrics/soperator"] if a.metrics_type else []
        self.c = Cluster(a.version, a.plugin_dir, addr=PRIMARY_ADDR, metrics_host="",
                         job_submit=None if a.without_plugin or a.metrics_type
                         else "soperator",
                         conf_extra=[f"SlurmctldHost={BACKUP_HOST}({BACKUP_ADDR})",
                                     # Takeover after ~6 s instead of 120.
                                     "SlurmctldTimeout=6"] + extra)
        self.backup = None
        self.problems = []
        self.primary_host = os.uname().nodename.split(".")[0]

    # ------------------------------------------------------------ daemons

    def start_backup(self):
        c = self.c
        run_b = os.path.join(c.cdir, "run", "backup")
        log_b = os.path.join(c.cdir, "log-backup")
        os.makedirs(run_b, exist_ok=True)
        os.makedirs(log_b, exist_ok=True)
        sbin = os.path.join(c.env["SM_SLURM_PREFIX"], "sbin", "slurmctld")
        script = ('hostname "$1" && mount --bind "$2" "$3" && mount --bind "$4" "$5" '
                  '&& shift 5 && exec "$@"')
        cmd = ["nsenter", f"--net=/run/netns/{self.a.inner}", "unshare", "--uts",
               "--mount", "--", "sh", "-c",
               script, "sh", BACKUP_HOST, run_b, os.path.join(c.cdir, "run", "slurm"),
               log_b, os.path.join(c.cdir, "log"), sbin, "-D", "-f", c.env["SLURM_CONF"]]
        with open(os.path.join(log_b, "slurmctld.out"), "ab") as out:
            # nsenter, unshare and sh exec in place: the PID is slurmctld's.
            self.backup = subprocess.Popen(cmd, env=c.env, stdin=subprocess.DEVNULL,
                                           stdout=out, stderr=subprocess.STDOUT,
                                           start_new_session=True)
        wait_for("the backup in standby", lambda: "backup) at " + BACKUP_HOST + " is UP"
                 in self.ping(), timeout=60, interval=0.5)

    def log_path(self, name):
        """A controller's log: "log" the primary's, "log-backup" the
        backup's."""
        return os.path.join(self.c.cdir, name, "slurmctld.log")

    def log_text(self, name, offset=0):
        """A controller's log (log_path) from byte offset on."""
        try:
            with open(self.log_path(name), "rb") as f:
                f.seek(offset)
                return f.read().decode(errors="replace")
        except OSError:
            return ""

    def log_sizes(self):
        sizes = {}
        for name in ("log", "log-backup"):
            try:
                sizes[name] = os.path.getsize(self.log_path(name))
            except OSError:
                sizes[name] = 0
        return sizes

    def logs(self):
        """The last lines of both controllers' logs, for a failure."""
        out = []
        for name in ("log", "log-backup"):
            path = self.log_path(name)
            try:
                with open(path, errors="replace") as f:
                    lines = f.readlines()[-25:]
            except OSError:
                continue
            out.append(f"--- {path}:\n" + "".join(lines))
        alive = "running" if self.backup and self.backup.poll() is None else \
            f"exited ({self.backup.returncode if self.backup else '-'})"
        return f"backup slurmctld {alive}\n" + "\n".join(out)

    def ping(self):
        return self.c.run("scontrol", "ping", check=False, timeout=30)

    def primary_pid(self):
        with open(os.path.join(self.c.cdir, "run", "slurmctld.pid")) as f:
            return int(f.read())

    def stop_primary(self):
        pid = self.primary_pid()
        os.kill(pid, signal.SIGTERM)
        wait_for("the primary to exit", lambda: not os.path.exists(f"/proc/{pid}") or
                 open(f"/proc/{pid}/stat").read().split(") ")[1][0] in "ZX",
                 timeout=60, interval=0.2)

    # ------------------------------------------------------------ views

    def jobs(self):
        """Job ids squeue lists, every state (array tasks split off have
        their own)."""
        return {j["job_id"] for j in self.c.squeue_json()}

    def our_jobs(self, addr):
        url = f"http://{addr}:{self.c.metrics_port}/metrics"
        with urllib.request.urlopen(url, timeout=10) as r:
            body = r.read().decode()
        expo = parse_exposition(body)
        return body, {int(l["job_id"]) for l, _ in series(expo, "slurm_job_info")}

    def metrics_status(self, addr):
        """Status, Retry-After and body of /metrics on our listener."""
        url = f"http://{addr}:{self.c.metrics_port}/metrics"
        try:
            with urllib.request.urlopen(url, timeout=10) as r:
                return r.status, r.getheader("Retry-After"), r.read()
        except urllib.error.HTTPError as e:
            return e.code, e.headers.get("Retry-After"), e.read()

    def says(self, addr):
        """What a controller says of itself: slurm_exporter_controller_active
        (its self-monitoring, on the metrics listener's
        /metrics/soperator/monitoring) and /readyz's status and body."""
        base = f"http://{addr}:{self.c.metrics_port}"
        with urllib.request.urlopen(base + "/metrics/soperator/monitoring", timeout=10) as r:
            expo = parse_exposition(r.read().decode())
        active = [v for _, v in series(expo, "slurm_exporter_controller_active")]
        try:
            with urllib.request.urlopen(base + "/readyz", timeout=10) as r:
                ready = (r.status, r.read().decode().strip())
        except urllib.error.HTTPError as e:
            ready = (e.code, e.read().decode().strip())
        return active, ready

    def check_serving(self, what, active, standby):
        """`active` serves squeue's jobs and says it is in charge;
        `standby` (None: not running) answers its data paths 503 and says it
        is a standby (docs/scraping.md, "Standby controllers")."""
        if self.a.without_plugin:
            return
        last = {}

        def agree():
            want = self.jobs()
            _, got = self.our_jobs(active)
            last["diff"] = (sorted(want - got), sorted(got - want))
            return want == got
        try:
            wait_for(f"{what}: our jobs on {active} to match squeue", agree,
                     timeout=60, interval=0.5)
        except AssertionError:
            self.problems.append(f"{what}: {active} serves other jobs than squeue "
                                 f"(missing, extra): {last.get('diff')}")
        def in_charge():
            last["active"] = self.says(active)
            return last["active"] == ([1.0], (200, "ok"))
        try:
            wait_for(f"{what}: {active} to say it is in charge and ready", in_charge,
                     timeout=60, interval=0.5)
        except AssertionError:
            self.problems.append(f"{what}: {active} says {last.get('active')}")
        if standby:
            status, retry, body = self.metrics_status(standby)
            if status != 503 or not retry or b"slurm_" in body:
                self.problems.append(f"{what}: the standby controller at {standby} "
                                     f"answers /metrics {status} (Retry-After {retry}) "
                                     f"with {len(body)} bytes, want 503 with "
                                     "Retry-After and no series")
            said = self.says(standby)
            if said != ([0.0], (503, "standby: this slurmctld is not the controller in charge")):
                self.problems.append(f"{what}: the standby at {standby} says {said}")
        if self.a.metrics_type:
            self.check_routes(what, active, standby)

    def ctld_get(self, addr, path):
        """GET on a controller's slurmctld port; redirects not followed."""
        conn = http.client.HTTPConnection(addr, int(self.c.env["SM_SLURMCTLD_PORT"]),
                                          timeout=30)
        try:
            conn.request("GET", path)
            r = conn.getresponse()
            return r.status, r.getheader("Location"), r.read()
        finally:
            conn.close()

    def check_routes(self, what, active, standby):
        """Our routes on slurmctld's port: squeue's jobs where the
        controller is in charge; slurmctld's own redirect where it is not."""
        last = {}

        def agree():
            status, _, body = self.ctld_get(active, "/metrics/soperator")
            got = {int(l["job_id"]) for l, _ in
                   series(parse_exposition(body.decode()), "slurm_job_info")}
            last["r"] = (status, sorted(self.jobs() ^ got))
            return status == 200 and not last["r"][1]
        try:
            wait_for(f"{what}: /metrics/soperator on {active} to list squeue's jobs",
                     agree, timeout=60, interval=0.5)
        except AssertionError:
            self.problems.append(f"{what}: {active}:/metrics/soperator answers "
                                 f"(status, jobs differing from squeue) {last.get('r')}")
        if not standby:
            return
        status, location, _ = self.ctld_get(standby, "/metrics/nodes")
        if status != 303 or not location or not location.endswith("/metrics/nodes"):
            self.problems.append(f"{what}: slurmctld's own /metrics/nodes on the standby "
                                 f"{standby}: {status} {location}")
            return
        want = location[:-len("nodes")] + "soperator"
        status, got, body = self.ctld_get(standby, "/metrics/soperator")
        fits = len("Location: ") + len(want) + len("\r\n") <= 79
        if fits and (status, got) != (303, want):
            self.problems.append(f"{what}: the standby's /metrics/soperator: {status} "
                                 f"{got}, slurmctld's own route: 303 {want}")
        if not fits and (status != 503 or want.encode() not in body):
            self.problems.append(f"{what}: the standby's /metrics/soperator: {status} "
                                 f"{body[:200]!r}, want 503 naming {want}")

    # ------------------------------------------------------------ the run

    def run(self):
        c = self.c
        self.start_backup()
        for _ in range(2):
            c.sbatch("--wrap", "sleep 3600")           # running
            c.sbatch("-n", "2", "--wrap", "sleep 3600")  # pending: no CPUs left
        c.sbatch("--array", "1-3", "-n", "2", "--wrap", "sleep 3600")
        c.sbatch("--hold", "--wrap", "true")
        t0 = time.monotonic()
        clean = raced = 0
        n = 0
        while clean < self.a.handbacks and raced <= RACE_RETRIES:
            n += 1
            before = self.jobs()
            self.check_serving(f"handback {n}, before", PRIMARY_ADDR, BACKUP_ADDR)
            ts = time.monotonic()
            self.stop_primary()
            # In charge once it answers squeue (a backup in standby refuses).
            wait_for("the backup to take over",
                     lambda: "(primary) at " + self.primary_host + " is DOWN" in self.ping() and
                     c.run("squeue", "-h", timeout=30) is not None,
                     timeout=120, interval=0.5)
            takeover = time.monotonic() - ts
            # A job submitted to the backup while it is in charge.
            submitted = c.sbatch("--hold", "--wrap", "true")
            before.add(submitted)
            self.check_serving(f"handback {n}, backup in charge", BACKUP_ADDR, None)
            th = time.monotonic()
            sizes = self.log_sizes()
            c.restart_ctld()
            wait_for("the primary in charge",
                     lambda: "(primary) at " + self.primary_host + " is UP" in self.ping(),
                     timeout=120, interval=0.5)
            handback = time.monotonic() - th
            after = self.jobs()
            lost = sorted(before - after)
            race = bool(lost) and slurms_race(self.log_text("log", sizes["log"]),
                                              self.log_text("log-backup",
                                                            sizes["log-backup"]))
            if race:
                raced += 1
            elif lost:
                self.problems.append(f"handback {n}: jobs lost: {lost}")
            else:
                clean += 1
            self.check_serving(f"handback {n}, after", PRIMARY_ADDR, BACKUP_ADDR)
            if self.backup.poll() is not None:
                self.problems.append(f"handback {n}: the backup exited "
                                     f"({self.backup.returncode})")
                break
            what = ("none lost" if not lost else
                    f"lost {lost} to Slurm's state-file race (docs/compat.md)" if race else
                    f"lost {lost}")
            print(f"handback {n}: takeover {takeover:.0f} s, handback {handback:.0f} s, "
                  f"{len(after)} jobs, {what}", flush=True)
            if lost and not race:
                break
        if not self.problems and clean < self.a.handbacks:
            self.problems.append(f"{clean} clean handbacks of {self.a.handbacks} wanted: "
                                 f"{raced} lost to Slurm's state-file race")
        print(f"{self.a.version}: {n} handbacks ({clean} clean, {raced} lost to Slurm's "
              f"race) in {time.monotonic() - t0:.0f} s, {len(self.problems)} problems")

    def stop(self):
        if self.backup and self.backup.poll() is None:
            self.backup.terminate()
            try:
                self.backup.wait(30)
            except subprocess.TimeoutExpired:
                self.backup.kill()
                self.backup.wait()
        self.c.cleanup()


def inner(a):
    ha = HA(a)
    try:
        ha.run()
    except AssertionError as e:
        ha.problems.append(f"{e}\n{ha.logs()}")
    finally:
        ha.stop()
    for p in ha.problems:
        print("FAIL: " + p)
    return 1 if ha.problems else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("version")
    ap.add_argument("plugin_dir")
    ap.add_argument("--handbacks", type=int, default=10)
    ap.add_argument("--without-plugin", action="store_true",
                    help="the same handbacks with Slurm alone (no metrics checks)")
    ap.add_argument("--metrics-type", action="store_true",
                    help="load the plugin as MetricsType=metrics/soperator (25.11+) and "
                    "check our routes on slurmctld's port too")
    ap.add_argument("--inner", help=argparse.SUPPRESS)
    a = ap.parse_args()
    return inner(a) if a.inner else outer(a)


if __name__ == "__main__":
    sys.exit(main())
