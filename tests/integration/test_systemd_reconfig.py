#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""`scontrol reconfigure` of a slurmctld started as `slurmctld --systemd`
(23.11 and later), as SchedMD's and Debian's systemd units start it.

usage: test_systemd_reconfig.py VERSION PLUGIN_DIR [--rounds N]
                                [--carrier job_submit|metrics_type|all]

Under --systemd a reconfigure forks: the child forks again and the middle
process calls exit(0); the new slurmctld (the grandchild) execs and tells
the old one it started; the old one waitpid()s for the middle process,
sends "READY=1\\nMAINPID=<new pid>" to NOTIFY_SOCKET, answers the RPC and
exits (../shared/reference/slurm-internals.md 1.5). exit() in the middle
process runs the plugin's atexit handler in a child that has only the
forking thread: a handler that hangs there leaves the old process in
waitpid() for good, and systemd's MAINPID is never moved.

The test serves NOTIFY_SOCKET itself (a unix datagram socket it binds and
reads) and is the daemons' subreaper. For each carrier (job_submit: our
listener's /metrics; metrics_type, 25.11+: /metrics/soperator on
slurmctld's port) one loopback cluster (test-cluster.sh --systemd) with
test_shutdown.py's 8 scrapers on our listener all along, then --rounds
times `scontrol reconfigure`, and after each: its exit status 0;
a MAINPID other than the old one within MAINPID_BOUND; no slurmctld
process of an older generation left (by PID) within GONE_BOUND (the stacks
of any left are printed, then they are killed); the new process answers
our path with a 200 within SERVE_BOUND, checked by which process holds
the answering connection. The gap in metrics (`scontrol reconfigure`
started to the first 200 from the new process) is printed per round."""

import argparse
import contextlib
import os
import shutil
import signal
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Cluster  # noqa: E402
from lifecycle import (NotifySocket, Prober, alive, become_subreaper,  # noqa: E402
                       ctld_pids, reap_orphans, reconfigure, thread_stacks)
from test_shutdown import REQUESTS, Scrapers  # noqa: E402

RECONFIGURE_TIMEOUT = 60
MAINPID_BOUND = 30
GONE_BOUND = 15
SERVE_BOUND = 30


def run_carrier(version, plugin_dir, carrier, rounds):
    """Returns ([gap per round in s], [failure text], clean rounds)."""
    sockdir = tempfile.mkdtemp(prefix="sm-notify-")
    notify = NotifySocket(os.path.join(sockdir, "notify"))
    os.environ["NOTIFY_SOCKET"] = notify.path
    gaps, failures = [], []
    clean = 0
    c = None
    try:
        if carrier == "job_submit":
            c = Cluster(version, plugin_dir, systemd=True)
        elif carrier == "none":
            c = Cluster(version, plugin_dir, systemd=True, job_submit=None)
        else:
            c = Cluster(version, plugin_dir, systemd=True, job_submit=None,
                        conf_extra=["MetricsType=metrics/soperator"])
        conf = os.path.join(c.cdir, "etc", "slurm.conf")
        pidfile = os.path.join(c.cdir, "run", "slurmctld.pid")
        old = int(open(pidfile).read())
        first = notify.wait_mainpid(since=0, timeout=MAINPID_BOUND)
        if first is None or first[1] != old:
            failures.append(f"start: slurmctld {old} sent MAINPID {first} "
                            f"(messages: {notify.messages})")
            return gaps, failures, clean
        if carrier == "job_submit":
            port, path = c.metrics_port, "/metrics"
        else:
            port, path = int(c.env["SM_SLURMCTLD_PORT"]), "/metrics/soperator"
        # test_shutdown.py's 8 scrapers on our listeners all along (both
        # carriers run them): the listener's threads are busy when
        # slurmctld forks, as they are when Prometheus scrapes.
        with Prober(port, path, conf) if carrier != "none" else \
                contextlib.nullcontext() as prober, \
                Scrapers({"metrics": c.metrics_port, "monitoring": c.monitoring_port},
                         REQUESTS) if carrier != "none" else contextlib.nullcontext():
            t_ready = time.monotonic()
            end = t_ready + SERVE_BOUND
            while prober and prober.first_ok_from(old, t_ready) is None and \
                    time.monotonic() < end:
                time.sleep(0.1)
            if prober and prober.first_ok_from(old, t_ready) is None:
                failures.append(f"start: {path} on port {port} never answered 200 "
                                f"from slurmctld {old}")
                return gaps, failures, clean
            for rnd in range(1, rounds + 1):
                old_gen = ctld_pids(conf)
                t0 = time.monotonic()
                failed = reconfigure(c.env, RECONFIGURE_TIMEOUT)
                problems = [failed] if failed else []
                got = notify.wait_mainpid(since=t0, timeout=MAINPID_BOUND)
                new = got[1] if got else None
                if new == old:
                    problems.append(f"MAINPID stayed {old}")
                    new = None
                if new is None:
                    problems.append(f"no new MAINPID within {MAINPID_BOUND} s "
                                    f"(messages: {[kv for _, kv in notify.messages]})")
                    # The new process runs even so (the old one is stuck
                    # before it tells systemd): the newest slurmctld.
                    rest = [p for p in ctld_pids(conf) if p not in old_gen]
                    new = max(rest) if rest else None
                elif not alive(new):
                    problems.append(f"MAINPID {new} is not a live process")
                if new:
                    with open(pidfile, "w") as f:
                        f.write(f"{new}\n")
                # Every process of an older generation gone.
                end = time.monotonic() + GONE_BOUND
                while True:
                    reap_orphans()
                    left = [p for p in ctld_pids(conf) if p != new]
                    if not left or time.monotonic() > end:
                        break
                    time.sleep(0.1)
                for p in left:
                    problems.append(f"slurmctld {p} (of an older generation than {new}) "
                                    f"still runs {GONE_BOUND} s after the reconfigure; "
                                    "its threads:\n" + thread_stacks(p))
                for p in left:
                    try:
                        os.kill(p, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
                gap = None
                if new and prober:
                    end = time.monotonic() + SERVE_BOUND
                    while (gap := prober.first_ok_from(new, t0)) is None and \
                            time.monotonic() < end:
                        time.sleep(0.05)
                    if gap is None:
                        problems.append(f"the new slurmctld {new} did not answer {path} "
                                        f"with 200 within {SERVE_BOUND} s")
                    else:
                        gap -= t0
                        gaps.append(gap)
                print(f"{version} {carrier} round {rnd}: slurmctld {old} -> {new}, "
                      f"round {time.monotonic() - t0:.1f} s, " +
                      (f"metrics gap {gap:.2f} s" if gap is not None else "no 200 from it"),
                      flush=True)
                if problems:
                    failures.append(f"{carrier} round {rnd} of {rounds}: " +
                                    "\n  ".join(problems))
                    log = c.ctld_log().splitlines()[-15:]
                    failures.append("slurmctld.log ends:\n" + "\n".join(log))
                    break
                clean += 1
                old = new
    finally:
        if c:
            c.cleanup()
            for p in ctld_pids(os.path.join(c.cdir, "etc", "slurm.conf")):
                os.kill(p, signal.SIGKILL)
            reap_orphans()
        del os.environ["NOTIFY_SOCKET"]
        notify.close()
        shutil.rmtree(sockdir, ignore_errors=True)
    return gaps, failures, clean


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("version")
    ap.add_argument("plugin_dir")
    ap.add_argument("--rounds", type=int, default=3)
    # none: Slurm alone (no metrics checked), what the process checks
    # expect of slurmctld itself.
    ap.add_argument("--carrier", choices=("job_submit", "metrics_type", "all", "none"),
                    default="all")
    a = ap.parse_args()
    become_subreaper()
    new_release = tuple(map(int, a.version.split(".")[:2])) >= (25, 11)
    carriers = ["job_submit", "metrics_type"] if a.carrier == "all" else [a.carrier]
    if not new_release and "metrics_type" in carriers:
        if a.carrier == "metrics_type":
            print(f"MetricsType needs Slurm 25.11 or later, not {a.version}")
            return 77
        carriers.remove("metrics_type")
    failed = False
    for carrier in carriers:
        t0 = time.monotonic()
        gaps, failures, clean = run_carrier(a.version, a.plugin_dir, carrier, a.rounds)
        gtext = ", ".join(f"{g:.2f}" for g in gaps)
        print(f"{a.version} {carrier}: {clean} of {a.rounds} reconfigures under "
              f"--systemd clean, metrics gaps [{gtext}] s, {time.monotonic() - t0:.0f} s",
              flush=True)
        if failures:
            failed = True
            print("FAIL: " + "\n".join(failures), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
