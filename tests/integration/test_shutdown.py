#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""slurmctld stopped with SIGTERM while 8 clients scrape our listeners, many
times in a row (before 2f8180e slurmctld 22.05.8 died of SIGSEGV in 3 of 10 such
shutdowns; Slurm exits without calling the plugin's fini(), so our threads
kept serving while exit() destroyed what they read).

usage: test_shutdown.py VERSION PLUGIN_DIR [--rounds N] [--jobs N]
                        [--asan-runtime LIB] [--metrics-type]

One loopback cluster (scripts/test-cluster.sh) with --jobs held jobs; each
round waits until our /metrics serves data, starts 8 scraper processes
(REQUESTS: every kind of body), sends SIGTERM once each has been served,
and asserts, from slurmctld's own exit status (this process is its child
subreaper, so it can wait for it): exit status 0, no signal (core files
are off: RLIMIT_CORE 0 for slurmctld and everything else this test starts,
so no core lands anywhere and nothing depends on core_pattern); our
listeners gone once slurmctld is; no sanitizer report. Then only slurmctld
is started again (restart-ctld) for the next round.

--asan-runtime: the plugin was built with AddressSanitizer; slurmctld (not
instrumented) runs with that runtime in LD_PRELOAD, and any ASan or UBSan
report fails the round (kept as log/asan.PID.roundN in the cluster dir with
SM_KEEP_CLUSTER=1).

--metrics-type (25.11 and later): the plugin is loaded as
MetricsType=metrics/soperator, and half the scrapers ask slurmctld's own
port for our routes (/metrics/soperator..., every body kind), so our
handler runs on slurmctld's conmgr workers when exit() comes."""

import argparse
from concurrent.futures import ThreadPoolExecutor
import ctypes
import glob
import os
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import multiprocessing
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Cluster, SCRIPTS, wait_for  # noqa: E402

PR_SET_CHILD_SUBREAPER = 36


def become_subreaper():
    """Daemons started by test-cluster.sh (setsid, then the script exits)
    are reparented to us instead of init: we can wait() for them and read
    how they ended."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER)")


def wait_exit(pid, timeout):
    """waitpid() with a deadline: the raw status, or None if still running."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        got, status = os.waitpid(pid, os.WNOHANG)
        if got == pid:
            return status
        time.sleep(0.05)
    return None


def thread_stacks(pid):
    """Every thread's stack of a hung slurmctld, from gdb (installed by
    scripts/install-deps.sh): which lock or join it waits on is the whole
    diagnosis, and the round that hangs is rarely reproducible."""
    gdb = shutil.which("gdb")
    if not gdb:
        return "(gdb not installed: no stacks)"
    try:
        out = subprocess.run([gdb, "-p", str(pid), "-batch", "-nx",
                              "-ex", "set pagination off",
                              "-ex", "thread apply all bt 25"],
                             capture_output=True, text=True, errors="replace",
                             timeout=120).stdout
    except subprocess.TimeoutExpired:
        return "(gdb did not finish in 120 s)"
    return "\n".join(l for l in out.splitlines()
                     if l.startswith(("Thread ", "#")))


def log_tail(cluster, lines=20):
    try:
        return "".join(cluster.ctld_log().splitlines(keepends=True)[-lines:])
    except OSError as e:
        return f"({e})"


def describe(status):
    if os.WIFEXITED(status):
        return f"exit status {os.WEXITSTATUS(status)}"
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        core = " (core dumped)" if os.WCOREDUMP(status) else ""
        return f"killed by {signal.Signals(sig).name}{core}"
    return f"status {status:#x}"


# What the 8 scrapers ask for, one each: every body kind our listeners
# hand out (identity, gzip, OpenMetrics, an endpoint of its own, the
# monitoring listener), so whatever a response holds on to is in flight
# when exit() comes.
REQUESTS = [
    ("metrics", "/metrics", ""),
    ("metrics", "/metrics", ""),
    ("metrics", "/metrics", "Accept-Encoding: gzip\r\n"),
    ("metrics", "/metrics", "Accept-Encoding: gzip\r\n"),
    ("metrics", "/metrics/jobs", "Accept: application/openmetrics-text;version=1.0.0\r\n"),
    ("metrics", "/metrics/nodes", "Accept-Encoding: gzip\r\n"),
    ("metrics", "/metrics/scheduler", ""),
    ("monitoring", "/metrics", ""),
]
# With --metrics-type: our routes on slurmctld's port, answered by our
# handler on slurmctld's own worker threads.
CTLD_REQUESTS = [
    ("ctld", "/metrics/soperator", ""),
    ("ctld", "/metrics/soperator", "Accept-Encoding: gzip\r\n"),
    ("ctld", "/metrics/soperator/jobs", "Accept: application/openmetrics-text;version=1.0.0\r\n"),
    ("ctld", "/metrics/soperator/monitoring", ""),
]


def scrape_loop(port, path, headers, ok, stop):
    """One scraper process: the same GET on a fresh connection, again and
    again (processes, not threads: Python threads share one interpreter
    lock and would scrape a tenth as often)."""
    request = (f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{headers}"
               "Connection: close\r\n\r\n").encode()
    while not stop.is_set():
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
                s.sendall(request)
                head = s.recv(65536)
                while s.recv(65536):
                    pass
            if head.startswith(b"HTTP/1.1 200 "):
                with ok.get_lock():
                    ok.value += 1
        except OSError:
            time.sleep(0.01)  # refused while slurmctld goes away


class Scrapers:
    """One process per entry of REQUESTS, each scraping until stopped."""

    def __init__(self, ports, requests):
        ctx = multiprocessing.get_context("fork")
        self.stop = ctx.Event()
        self.counts = [ctx.Value("l", 0) for _ in requests]
        self.procs = [ctx.Process(target=scrape_loop,
                                  args=(ports[listener], path, headers, n, self.stop),
                                  daemon=True)
                      for (listener, path, headers), n in zip(requests, self.counts)]

    @property
    def ok(self):
        return [n.value for n in self.counts]

    def __enter__(self):
        for p in self.procs:
            p.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        for p in self.procs:
            p.join(10)
            if p.is_alive():
                p.kill()
                p.join()


def reap_orphans():
    """slurmctld's slurmscriptd, orphaned when slurmctld exits, is ours to
    reap (we are the subreaper); the scraper processes are reaped by
    multiprocessing, so only zombies are collected here."""
    me = str(os.getpid())
    for stat in glob.glob("/proc/[0-9]*/stat"):
        try:
            with open(stat) as f:
                fields = f.read().rsplit(") ", 1)[1].split()
        except (OSError, IndexError):
            continue
        if fields[0] == "Z" and fields[1] == me:
            try:
                os.waitpid(int(stat.split("/")[2]), os.WNOHANG)
            except ChildProcessError:
                pass


def port_open(port):
    with socket.socket() as s:
        s.settimeout(1)
        return s.connect_ex(("127.0.0.1", port)) == 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("version")
    ap.add_argument("plugin_dir")
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--jobs", type=int, default=500,
                    help="held jobs with 100-byte names: bodies of ~300 KB")
    ap.add_argument("--asan-runtime")
    ap.add_argument("--metrics-type", action="store_true",
                    help="MetricsType=metrics/soperator: scrape slurmctld's port too")
    a = ap.parse_args()

    become_subreaper()
    # No core files: a crash shows in the exit status (WIFSIGNALED) alone.
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    report_dir = tempfile.mkdtemp(prefix="sm-shutdown-reports.")
    if a.asan_runtime:
        # test-cluster.sh preloads the runtime into slurmctld only; the
        # options reach slurmctld (and the plugin's UBSan) through the
        # environment. Slurm leaks at exit by design: no leak check.
        os.environ["SM_SLURMCTLD_PRELOAD"] = a.asan_runtime
        os.environ["ASAN_OPTIONS"] = (f"log_path={report_dir}/asan:detect_leaks=0:"
                                      "abort_on_error=1")
        os.environ["UBSAN_OPTIONS"] = f"log_path={report_dir}/ubsan:print_stacktrace=1"
    if a.metrics_type:
        c = Cluster(a.version, a.plugin_dir, job_submit=None,
                    conf_extra=["MetricsType=metrics/soperator"])
        requests = REQUESTS[::2] + CTLD_REQUESTS
    else:
        c = Cluster(a.version, a.plugin_dir)
        requests = REQUESTS
    # Jobs for the collector to copy: two running, two pending.
    for _ in range(4):
        c.sbatch("--wrap", "sleep 3600", "-n", "1")
    # Bodies big enough that rendering, compressing and writing them takes
    # a while (~300 KB for /metrics): more of our work is under way when
    # exit() runs.
    with ThreadPoolExecutor(4) as pool:
        list(pool.map(lambda i: c.sbatch("--hold", "-J", f"held{i}-" + "x" * 100,
                                         "--wrap", "true"), range(a.jobs)))
    url = c.metrics_url()
    failures = []
    t0 = time.monotonic()
    ports = {"metrics": c.metrics_port, "monitoring": c.monitoring_port,
             "ctld": int(c.env["SM_SLURMCTLD_PORT"])}
    # --metrics-type: the scrapers keep going while slurmctld stops and
    # starts again (docs/compat.md, "Why binding cannot race a request":
    # requests that arrive while our init() binds its routes).
    persistent = a.metrics_type
    s = Scrapers(ports, requests).__enter__() if persistent else None
    try:
        for rnd in range(1, a.rounds + 1):
            pid = int(open(os.path.join(c.cdir, "run", "slurmctld.pid")).read())
            wait_for("our /metrics serving data",
                     lambda: urllib.request.urlopen(url, timeout=5).read() != b"",
                     timeout=60, interval=0.1)
            if not persistent:
                s = Scrapers(ports, requests).__enter__()
            # Every scraper served twice in this round: with --metrics-type
            # the scrapers ran on through the restart, so slurmctld started
            # under their requests and served our routes after it.
            base = s.ok
            wait_for("every scraper served",
                     lambda: min(n - b for n, b in zip(s.ok, base)) >= 2,
                     timeout=60, interval=0.02)
            at_sigterm = sum(s.ok)
            os.kill(pid, signal.SIGTERM)
            status = wait_exit(pid, 60)
            until_exit = sum(s.ok) - at_sigterm
            if not persistent:
                s.__exit__(None, None, None)
            problems = []
            if status is None:
                problems.append("still running 60 s after SIGTERM")
                stacks = thread_stacks(pid)
                with open(os.path.join(c.cdir, "log", f"hang.round{rnd}"), "w") as f:
                    f.write(stacks)
                problems.append("slurmctld.log ends:\n" + log_tail(c))
                problems.append("its threads:\n" + stacks)
                os.kill(pid, signal.SIGKILL)
                wait_exit(pid, 10)
            elif not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 0:
                problems.append(describe(status))
            for port in (c.metrics_port, c.monitoring_port):
                if port_open(port):
                    problems.append(f"port {port} still accepts connections "
                                    "after slurmctld exited")
            reap_orphans()
            reports = sorted(glob.glob(os.path.join(report_dir, "*san.*")))
            for r in reports:
                with open(r, errors="replace") as f:
                    problems.append(f"sanitizer report {os.path.basename(r)}:\n" +
                                    "".join(f.readlines()[:40]))
                os.rename(r, os.path.join(c.cdir, "log", f"{os.path.basename(r)}.round{rnd}"))
            print(f"round {rnd}: {at_sigterm - sum(base)} scrapes served, then SIGTERM and "
                  f"{until_exit} more until the exit: "
                  f"{describe(status) if status is not None else 'hung'}"
                  + (" FAIL" if problems else ""), flush=True)
            if problems:
                failures.append((rnd, problems))
                for p in problems:
                    print("  " + p, flush=True)
            subprocess.run([os.path.join(SCRIPTS, "test-cluster.sh"), "restart-ctld",
                            c.cdir], check=True, stdout=subprocess.DEVNULL)
    finally:
        if persistent:
            s.__exit__(None, None, None)
        c.cleanup()
        shutil.rmtree(report_dir, ignore_errors=True)
    elapsed = time.monotonic() - t0
    print(f"{a.version}{' (ASan plugin)' if a.asan_runtime else ''}"
          f"{' (MetricsType)' if a.metrics_type else ''}: "
          f"{a.rounds - len(failures)} of {a.rounds} shutdowns under scrapes clean "
          f"in {elapsed:.0f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
