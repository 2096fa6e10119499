#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A trigger whose program cannot run: slurmctld's trigger child calls
exit(1) when execv() fails (../shared/reference/slurm-internals.md 1.5,
"Forked children that call exit()"), and exit() runs every atexit handler
of the process it was forked from, the plugin's too, in a child that has
only the forking thread. slurmctld logs how the child ended:
`trigger uid=0 type=node:down exit=WIFEXITED:WTERMSIG`.

usage: test_trigger_exit.py VERSION PLUGIN_DIR [--carrier job_submit|metrics_type]

Two loopback clusters side by side, one without the plugin (the oracle)
and one with it (--carrier: JobSubmitPlugins=soperator, the default before
25.11, or MetricsType=metrics/soperator, the default from 25.11 on). In
each, `strigger --set --down --node=ghost2 --program=FILE` (22.05.8:
Debian's strigger; scripts/slurm-build.sh builds no strigger, so for the
other releases this script sets the same trigger through that release's
libslurmfull, slurm_set_trigger(), as strigger does), FILE executable
but not a program (text with no #! line: execv() fails with ENOEXEC), then
`scontrol update NodeName=ghost2 State=DOWN`. slurmctld runs its triggers
every 15 s (TRIGGER_INTERVAL) and logs the child's end when it reaps it,
one pass later. The status logged with the plugin must be the oracle's
(exit=1:0): before the fix 22.05.8 logged exit=0:11 (SIGSEGV in the
plugin's exit handler), and a child that hangs in it logs nothing for
MAX_PROG_TIME; that child's stack is printed."""

import argparse
from concurrent.futures import ThreadPoolExecutor
import ctypes
import os
import re
import stat
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Cluster  # noqa: E402
from lifecycle import alive, ctld_pids, thread_stacks  # noqa: E402

# Two trigger passes (15 s each) and slack for a loaded machine.
LOG_BOUND = 75
LINE = re.compile(r"trigger uid=\d+ type=node:down exit=(\d+):(\d+)")


class TriggerInfo(ctypes.Structure):
    """trigger_info_t, the same in slurm.h of 23.02 through 26.05."""
    _fields_ = [("flags", ctypes.c_uint16), ("trig_id", ctypes.c_uint32),
                ("res_type", ctypes.c_uint16), ("res_id", ctypes.c_char_p),
                ("control_inx", ctypes.c_uint32), ("trig_type", ctypes.c_uint32),
                ("offset", ctypes.c_uint16), ("user_id", ctypes.c_uint32),
                ("program", ctypes.c_char_p)]


TRIGGER_RES_TYPE_NODE = 0x0002
TRIGGER_TYPE_DOWN = 1 << 1


def set_trigger_libslurm(lib, node, program):
    """strigger --set --down --node=NODE --program=PROGRAM, as strigger
    does it (src/strigger/strigger.c), in this process: SLURM_CONF from
    the environment."""
    # Global: the auth and hash plugins it loads resolve slurm_conf in it.
    slurm = ctypes.CDLL(lib, mode=ctypes.RTLD_GLOBAL)
    slurm.slurm_init(None)
    ti = TriggerInfo()
    slurm.slurm_init_trigger_msg(ctypes.byref(ti))
    ti.res_type = TRIGGER_RES_TYPE_NODE
    ti.res_id = node.encode()
    ti.trig_type = TRIGGER_TYPE_DOWN
    ti.offset = 0x8000  # no delay
    ti.program = program.encode()
    if slurm.slurm_set_trigger(ctypes.byref(ti)) != 0:
        slurm.slurm_perror(b"slurm_set_trigger")
        return 1
    return 0


def set_trigger(c, node, program):
    if c.version.startswith("22.05"):
        c.run("strigger", "--set", "--down", f"--node={node}", f"--program={program}")
        return
    lib = os.path.join(c.env["SM_SLURM_PREFIX"], "lib", "slurm", "libslurmfull.so")
    r = subprocess.run([sys.executable, os.path.abspath(__file__), "--set-trigger", lib,
                        node, program], env=c.env, capture_output=True, text=True,
                       timeout=60)
    if r.returncode != 0:
        raise AssertionError(f"slurm_set_trigger through {lib} failed: {r.stderr}")


def run(version, plugin_dir, carrier):
    """One cluster's trigger run: (the exit=A:B the log shows or None,
    what else to report)."""
    if carrier == "job_submit":
        c = Cluster(version, plugin_dir)
    elif carrier == "metrics_type":
        c = Cluster(version, plugin_dir, job_submit=None,
                    conf_extra=["MetricsType=metrics/soperator"])
    else:
        c = Cluster(version, plugin_dir, job_submit=None)
    notes = []
    try:
        prog = os.path.join(c.cdir, "not-a-program")
        with open(prog, "w") as f:
            f.write("this file is executable but no program\n")
        os.chmod(prog, stat.S_IRWXU | stat.S_IRGRP | stat.S_IXGRP | stat.S_IROTH | stat.S_IXOTH)
        ctld = int(open(os.path.join(c.cdir, "run", "slurmctld.pid")).read())
        set_trigger(c, "ghost2", prog)
        c.scontrol("update", "NodeName=ghost2", "State=DOWN", "Reason=trigger-test")
        end = time.monotonic() + LOG_BOUND
        got = None
        while time.monotonic() < end and got is None:
            m = LINE.search(c.ctld_log())
            if m:
                got = f"{m.group(1)}:{m.group(2)}"
            else:
                time.sleep(0.5)
        if got is None:
            notes.append(f"no trigger exit status in slurmctld.log within {LOG_BOUND} s")
            # A trigger child still running is one that hangs in exit().
            for pid in ctld_pids(os.path.join(c.cdir, "etc", "slurm.conf")):
                if pid != ctld and alive(pid):
                    notes.append(f"slurmctld child {pid} still runs:\n" + thread_stacks(pid))
        if not alive(ctld):
            notes.append(f"slurmctld ({ctld}) is gone")
        return got, notes
    finally:
        c.cleanup()


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "--set-trigger":
        return set_trigger_libslurm(*sys.argv[2:])
    ap = argparse.ArgumentParser()
    ap.add_argument("version")
    ap.add_argument("plugin_dir")
    ap.add_argument("--carrier", choices=("job_submit", "metrics_type"))
    a = ap.parse_args()
    carrier = a.carrier or ("metrics_type" if tuple(map(int, a.version.split(".")[:2])) >= (25, 11)
                            else "job_submit")
    t0 = time.monotonic()
    with ThreadPoolExecutor(2) as pool:
        oracle_f = pool.submit(run, a.version, a.plugin_dir, None)
        ours_f = pool.submit(run, a.version, a.plugin_dir, carrier)
        (oracle, oracle_notes), (ours, notes) = oracle_f.result(), ours_f.result()
    elapsed = time.monotonic() - t0
    print(f"{a.version}: trigger child's end without the plugin: exit={oracle}; "
          f"with it ({carrier}): exit={ours} ({elapsed:.0f} s)", flush=True)
    if oracle is None:
        print("FAIL: the oracle (Slurm without the plugin) logged no trigger exit "
              "status: " + "; ".join(oracle_notes))
        return 1
    if ours != oracle or notes:
        print(f"FAIL: with {carrier} the trigger child ended exit={ours}, "
              f"without the plugin exit={oracle} (WIFEXITED:WTERMSIG)"
              + "".join("\n  " + n for n in notes))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
