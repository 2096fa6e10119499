#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Inputs that crashed the shim (exit 139 before the fix), through the real CLI.

usage: crash_inputs.py --shim SHIM --plugin SO --fixtures DIR

- a 300 KB sdiag line (std::regex recursed once per character);
- 100 000 nested arrays in a Slurm error response, and as a whole document
  (the JSON dump recursed once per level).
Each must end as specified below: rendered, or refused with exit status 2
and a message that says why; never killed by a signal. The same inputs are
regression inputs of the shim_json and shim_sdiag fuzz targets
(tests/fuzz/extra_inputs.py)."""
import argparse
import os
import subprocess
import sys
import tempfile

HEAD = "sdiag output at Mon Jan 01 00:00:00 2024 (1704067200)\n"
N = 100000


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shim", required=True)
    ap.add_argument("--plugin", required=True)
    ap.add_argument("--fixtures", required=True)
    a = ap.parse_args()
    nodes = os.path.join(a.fixtures, "22.05.8", "sinfo.json")
    cases = [
        # (name, file content, expected exit, stderr substring, stdout line prefix)
        ("long RPC line",
         HEAD + "Server thread count: 3\n"
         "Remote Procedure Call statistics by message type\n"
         "\tREQUEST_" + "X" * 300000 + " (1) count:7 ave_time:1 total_time:7\n",
         0, "", "slurm_controller_server_thread_count 3"),
        ("long value line",
         HEAD + "Server thread count: 4" + " " * 300000 + "x\n", 0, "",
         "slurm_controller_server_thread_count 4"),
        ("long key line", HEAD + "Server thread count: 5\nJobs " + "a" * 300000 + ": 1\n",
         0, "", "slurm_controller_server_thread_count 5"),
        ("number beyond int64", HEAD + "Server thread count: 99999999999999999999\n",
         2, "99999999999999999999 is out of range", None),
        ("deep error response", '{"errors":[' + "[" * N + "]" * N + "]}",
         2, "JSON nested more than 64 levels deep", None),
        ("deep document", "[" * N + "]" * N, 2, "JSON nested more than 64 levels deep", None),
    ]
    problems = []
    with tempfile.TemporaryDirectory(prefix="shim-crash.") as tmp:
        for name, content, want_rc, want_err, want_line in cases:
            path = os.path.join(tmp, "input.txt")
            with open(path, "w") as f:
                f.write(content)
            r = subprocess.run([a.shim, "render", "--plugin", a.plugin, "--now", "1800000000",
                                nodes, path], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               timeout=60)
            err = r.stderr.decode(errors="replace")
            out = r.stdout.decode(errors="replace")
            if r.returncode != want_rc:
                problems.append(f"{name}: exit {r.returncode}, want {want_rc}: {err[-300:]}")
                continue
            if want_err and want_err not in err:
                problems.append(f"{name}: stderr lacks {want_err!r}: {err[-300:]}")
            if want_line and not any(l == want_line for l in out.splitlines()):
                problems.append(f"{name}: output lacks the line {want_line!r}")
            print(f"{name}: exit {r.returncode} as expected")
    for p in problems:
        print("FAIL: " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
