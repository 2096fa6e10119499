#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""MetricsType=metrics/soperator (Slurm 25.11 and later) removed and added
again under `scontrol reconfigure`, then `scontrol shutdown` while
scrapers scrape.

usage: test_metrics_type_lifecycle.py VERSION PLUGIN_DIR [--rounds N]

One loopback cluster (slurmctld -D: a reconfigure re-executes it in
place, ../shared/reference/slurm-internals.md 1.5) with MetricsType=
metrics/soperator. Each round comments the MetricsType line out of
slurm.conf or back in and runs `scontrol reconfigure`: it must exit 0,
slurmctld keep its PID and answer `sinfo` within SINFO_BOUND, and
/metrics/soperator on slurmctld's port answer 200 with a body when the
plugin is loaded, and what slurmctld answers for a route nobody serves
(asked on the same controller at the start: 404) when it is not; our
listener's port open or closed to match.

Then, the plugin loaded, 8 scraper processes (tests/integration/
test_shutdown.py's: slurmctld's port and our listener, every body kind)
scrape while `scontrol shutdown` asks slurmctld to stop (test_shutdown.py
sends SIGTERM; this is the RPC's path): slurmctld must exit within
EXIT_BOUND with status 0 and no signal (core files off), its threads'
stacks printed if it does not."""

import argparse
import http.client
import os
import resource
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Cluster, wait_for  # noqa: E402
from lifecycle import (alive, become_subreaper, describe, port_open,  # noqa: E402
                       reap_orphans, reconfigure, thread_stacks, wait_exit)
from test_shutdown import CTLD_REQUESTS, REQUESTS, Scrapers  # noqa: E402

SINFO_BOUND = 8
RECONFIGURE_TIMEOUT = 60
ROUTE_BOUND = 30
EXIT_BOUND = 60


def get(port, path):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("GET", path)
        r = conn.getresponse()
        return r.status, r.read()
    finally:
        conn.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("version")
    ap.add_argument("plugin_dir")
    ap.add_argument("--rounds", type=int, default=4)
    a = ap.parse_args()
    if tuple(map(int, a.version.split(".")[:2])) < (25, 11):
        print(f"MetricsType needs Slurm 25.11 or later, not {a.version}")
        return 77
    become_subreaper()
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    t_start = time.monotonic()
    line = "MetricsType=metrics/soperator"
    c = Cluster(a.version, a.plugin_dir, job_submit=None, conf_extra=[line])
    conf = os.path.join(c.cdir, "etc", "slurm.conf")
    pid = int(open(os.path.join(c.cdir, "run", "slurmctld.pid")).read())
    ctld_port = int(c.env["SM_SLURMCTLD_PORT"])
    failure = None
    exited = False
    try:
        with open(conf) as f:
            base = f.read()
        if base.count(line + "\n") != 1:
            raise AssertionError(f"slurm.conf has no single {line!r} line")
        # What slurmctld answers for a route nobody serves: our route must
        # answer the same once the plugin is gone.
        unknown = get(ctld_port, "/metrics/sm-no-such-route")[0]
        wait_for("/metrics/soperator serving",
                 lambda: get(ctld_port, "/metrics/soperator")[0] == 200, timeout=ROUTE_BOUND,
                 interval=0.2)
        loaded = True
        for rnd in range(1, a.rounds + 1):
            loaded = not loaded
            with open(conf, "w") as f:
                f.write(base if loaded else base.replace(line + "\n", "#" + line + "\n"))
            what = "added" if loaded else "removed"
            t0 = time.monotonic()
            failed = reconfigure(c.env, RECONFIGURE_TIMEOUT)
            problems = [failed] if failed else []
            t_reconf = time.monotonic() - t0
            if not problems:
                # sinfo until it answers (slurmctld may still be starting
                # again after the exec), each within SINFO_BOUND.
                end = time.monotonic() + ROUTE_BOUND
                while True:
                    try:
                        r = subprocess.run(["sinfo", "-h", "-o", "%D"], env=c.env,
                                           capture_output=True, text=True,
                                           timeout=SINFO_BOUND)
                        if r.returncode == 0:
                            break
                        last = f"sinfo exit {r.returncode}: {r.stderr.strip()}"
                    except subprocess.TimeoutExpired:
                        last = f"sinfo did not answer within {SINFO_BOUND} s"
                    if time.monotonic() > end:
                        problems.append(last)
                        break
                    time.sleep(0.2)
            if not problems:
                want = 200 if loaded else unknown
                end = time.monotonic() + ROUTE_BOUND
                got = None
                while time.monotonic() < end:
                    try:
                        status, body = get(ctld_port, "/metrics/soperator")
                        got = status
                        if status == want and (not loaded or body):
                            break
                    except OSError as e:
                        got = repr(e)
                    time.sleep(0.1)
                else:
                    problems.append(f"/metrics/soperator answered {got}, not {want}, "
                                    f"{ROUTE_BOUND} s after the reconfigure")
                listening = port_open(c.metrics_port)
                if listening != loaded:
                    # Our listener starts and stops with the plugin.
                    try:
                        wait_for(f"our port {'open' if loaded else 'closed'}",
                                 lambda: port_open(c.metrics_port) == loaded,
                                 timeout=ROUTE_BOUND, interval=0.2)
                    except AssertionError as e:
                        problems.append(str(e))
            if not alive(pid):
                problems.append(f"slurmctld ({pid}) is gone")
            print(f"round {rnd}: MetricsType {what}, reconfigure {t_reconf:.1f} s, "
                  f"round {time.monotonic() - t0:.1f} s" + (" FAIL" if problems else ""),
                  flush=True)
            if problems:
                failure = f"round {rnd} of {a.rounds} (MetricsType {what}): " + "; ".join(problems)
                if alive(pid):
                    failure += "\nslurmctld's threads:\n" + thread_stacks(pid)
                failure += "\nslurmctld.log ends:\n" + "\n".join(c.ctld_log().splitlines()[-15:])
                break
        if failure is None:
            if not loaded:
                raise AssertionError("--rounds must be even: the shutdown wants the plugin in")
            ports = {"metrics": c.metrics_port, "monitoring": c.monitoring_port,
                     "ctld": ctld_port}
            with Scrapers(ports, REQUESTS[::2] + CTLD_REQUESTS) as s:
                base_ok = s.ok
                wait_for("every scraper served twice",
                         lambda: min(n - b for n, b in zip(s.ok, base_ok)) >= 2,
                         timeout=60, interval=0.02)
                t0 = time.monotonic()
                r = subprocess.run(["scontrol", "shutdown"], env=c.env, capture_output=True,
                                   text=True, timeout=30)
                status = wait_exit(pid, EXIT_BOUND)
                took = time.monotonic() - t0
            exited = status is not None
            problems = []
            if r.returncode != 0:
                problems.append(f"scontrol shutdown exit {r.returncode}: {r.stderr.strip()}")
            if status is None:
                problems.append(f"slurmctld still runs {EXIT_BOUND} s after scontrol shutdown;"
                                " its threads:\n" + thread_stacks(pid))
            elif not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 0:
                problems.append(f"slurmctld ended with {describe(status)}")
            for p in (c.metrics_port, c.monitoring_port):
                if exited and port_open(p):
                    problems.append(f"port {p} still open after slurmctld exited")
            reap_orphans()
            print(f"scontrol shutdown under {len(s.ok)} scrapers: "
                  f"{describe(status) if exited else 'still running'} after {took:.1f} s",
                  flush=True)
            if problems:
                failure = "scontrol shutdown: " + "; ".join(problems) + \
                    "\nslurmctld.log ends:\n" + "\n".join(c.ctld_log().splitlines()[-15:])
    finally:
        if not exited and alive(pid) and failure:
            os.kill(pid, signal.SIGKILL)
            wait_exit(pid, 10)
        c.cleanup()
    if failure:
        print("FAIL: " + failure, flush=True)
        return 1
    print(f"{a.version}: MetricsType removed and added {a.rounds} times under reconfigure, "
          f"then scontrol shutdown under scrapers: clean in {time.monotonic() - t_start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
