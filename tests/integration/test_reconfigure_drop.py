#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""`scontrol reconfigure` that drops the job_submit carrier and adds it
back, round after round, while the collector collects every second.

usage: test_reconfigure_drop.py VERSION PLUGIN_DIR [--rounds N]
                                [--future-nodes N]

On 22.05 (and 23.02) slurmctld's reconfigure RPC holds every slurmctld
write lock while read_slurm_conf() runs, and that calls the job_submit
plugins' fini() and init() when JobSubmitPlugins changed
(../shared/reference/slurm-internals.md 1.5). A fini() that waits for a
thread of ours that waits for a slurmctld read lock deadlocks slurmctld for
good: `scontrol ping` still answers, `sinfo` times out. --future-nodes
State=FUTURE nodes make read_slurm_conf() long enough that a collection
(CollectionInterval=1s) is queued on the locks when fini() runs: against
36b0248 on this 2-core machine 30,000 (the default) hung in round 1 in
each of 2 runs (40,000 too); 20,000 in rounds 1, 3 and 17 of three
runs; 10,000 and 3,000 passed 20 rounds (the locked span was ~0.3 s and
~0.1 s, against a tick a second).

Each round comments JobSubmitPlugins out of slurm.conf or back in and runs
`scontrol reconfigure`; then `sinfo` (read locks) must answer within
SINFO_BOUND seconds, and our /metrics must serve again within
SERVE_BOUND seconds when the plugin is in, our port be closed when it is
out. The first round that fails ends the test with slurmctld's threads'
stacks (gdb) and the end of its log. On 23.11 and later reconfigure
execs a new slurmctld (with -D in place): the same rounds then test that
path."""

import argparse
import os
import signal
import subprocess
import sys
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Cluster  # noqa: E402
from lifecycle import alive, port_open, reconfigure, thread_stacks  # noqa: E402

# sinfo answers in well under a second on an idle loopback controller;
# its own MessageTimeout (10 s) makes a deadlocked one fail with "Socket
# timed out" after ~10 s.
SINFO_BOUND = 8
RECONFIGURE_BOUND = 30
SERVE_BOUND = 30
CLOSE_BOUND = 10


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("version")
    ap.add_argument("plugin_dir")
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--future-nodes", type=int, default=30000)
    a = ap.parse_args()

    t_start = time.monotonic()
    future = (f"NodeName=fut[1-{a.future_nodes}] NodeAddr=127.0.0.1 CPUs=1 "
              "RealMemory=100 State=FUTURE")
    c = Cluster(a.version, a.plugin_dir, collection_interval="1s",
                conf_extra=[future] if a.future_nodes else [])
    conf = os.path.join(c.cdir, "etc", "slurm.conf")
    pid = int(open(os.path.join(c.cdir, "run", "slurmctld.pid")).read())
    url = c.metrics_url()
    failure = None
    times = []
    try:
        with open(conf) as f:
            base = f.read()
        line = "JobSubmitPlugins=soperator\n"
        if base.count(line) != 1:
            raise AssertionError(f"slurm.conf has no single {line.strip()!r} line")
        loaded = True
        for rnd in range(1, a.rounds + 1):
            loaded = not loaded
            with open(conf, "w") as f:
                f.write(base if loaded else base.replace(line, "#" + line))
            what = "back in" if loaded else "out"
            t0 = time.monotonic()
            failed = reconfigure(c.env, RECONFIGURE_BOUND)
            problems = [failed] if failed else []
            t_reconf = time.monotonic() - t0
            t1 = time.monotonic()
            try:
                r = subprocess.run(["sinfo", "-h", "-o", "%D"], env=c.env,
                                   capture_output=True, text=True, timeout=SINFO_BOUND)
                if r.returncode != 0:
                    problems.append(f"sinfo exit {r.returncode} after "
                                    f"{time.monotonic() - t1:.1f} s: {r.stderr.strip()}")
            except subprocess.TimeoutExpired:
                problems.append(f"sinfo did not answer within {SINFO_BOUND} s")
            if not problems:
                end = time.monotonic() + (SERVE_BOUND if loaded else CLOSE_BOUND)
                ok = False
                while time.monotonic() < end and not ok:
                    if loaded:
                        try:
                            with urllib.request.urlopen(url, timeout=3) as resp:
                                ok = resp.status == 200 and resp.read() != b""
                        except OSError:
                            pass
                    else:
                        ok = not port_open(c.metrics_port)
                    if not ok:
                        time.sleep(0.1)
                if not ok:
                    problems.append(
                        f"our /metrics did not serve within {SERVE_BOUND} s" if loaded else
                        f"our port {c.metrics_port} still open {CLOSE_BOUND} s later")
            if not alive(pid):
                problems.append(f"slurmctld ({pid}) is gone")
            times.append(time.monotonic() - t0)
            print(f"round {rnd}: JobSubmitPlugins {what}, reconfigure "
                  f"{t_reconf:.1f} s, round {times[-1]:.1f} s"
                  + (" FAIL" if problems else ""), flush=True)
            if problems:
                ping = subprocess.run(["scontrol", "ping"], env=c.env, capture_output=True,
                                      text=True, timeout=30).stdout.strip()
                failure = (f"round {rnd} of {a.rounds} (JobSubmitPlugins {what}, "
                           f"{a.future_nodes} FUTURE nodes): " + "; ".join(problems) +
                           f"\nscontrol ping: {ping}")
                if alive(pid):
                    failure += "\nslurmctld's threads:\n" + thread_stacks(pid)
                log = c.ctld_log().splitlines()[-15:]
                failure += "\nslurmctld.log ends:\n" + "\n".join(log)
                break
    finally:
        if failure and alive(pid):
            # Deadlocked: SIGTERM would wait on the same locks.
            os.kill(pid, signal.SIGKILL)
        c.cleanup()
    elapsed = time.monotonic() - t_start
    if failure:
        print("FAIL: " + failure, flush=True)
        return 1
    print(f"{a.version}: {a.rounds} reconfigures dropping and adding the plugin "
          f"with {a.future_nodes} FUTURE nodes, slurmctld answered after each; "
          f"rounds {min(times):.1f}-{max(times):.1f} s, {elapsed:.0f} s in all")
    return 0


if __name__ == "__main__":
    sys.exit(main())
