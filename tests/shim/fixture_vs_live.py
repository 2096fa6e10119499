#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Replays a captured cluster and compares with what the live plugin served.

usage: fixture_vs_live.py --shim SHIM --plugin SO DIR

DIR holds Slurm's dumps and live_metrics.txt, the plugin's /metrics body
scraped from the same cluster just before the dumps (tests/shim/
live_vs_replay.py --keep-dumps writes such a directory). The comparison is
live_vs_replay.py's: exact except for history and clock-moving families.
Families the plugin gained after the capture (absent from live_metrics.txt,
e.g. the accounting side's pending-job families) are left out and named; every family
of the capture must still be replayed. The live cluster check
(live_vs_replay.py, suite cluster) compares them all.
"""
import argparse
import importlib.util
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shim", required=True)
    ap.add_argument("--plugin", required=True)
    ap.add_argument("dir")
    a = ap.parse_args()
    spec = importlib.util.spec_from_file_location(
        "live_vs_replay", os.path.join(HERE, "live_vs_replay.py"))
    lvr = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(lvr)
    # What live_vs_replay.py replays: squeue (22.05) or scontrol show jobs.
    names = ["sinfo.json", "squeue.json", "sdiag.txt"]
    if os.path.exists(os.path.join(a.dir, "scontrol_show_jobs.json")):
        names = ["scontrol_show_jobs.json", "scontrol_show_nodes.json",
                 "scontrol_show_partitions.json", "sdiag.json"]
    inputs = [os.path.join(a.dir, n) for n in names]
    replay = subprocess.run([a.shim, "render", "--plugin", a.plugin] + inputs,
                            check=True, stdout=subprocess.PIPE, text=True).stdout
    with open(os.path.join(a.dir, "live_metrics.txt")) as f:
        live = f.read()
    captured = {l.split()[2] for l in live.splitlines() if l.startswith("# TYPE ")}
    newer = sorted({l.split()[2] for l in replay.splitlines()
                    if l.startswith("# TYPE ")} - captured)
    if newer:
        print("not in the capture, not compared: " + ", ".join(newer))
        replay = drop_families(replay, set(newer))
    problems, compared = lvr.compare(live, replay)
    for p in problems:
        print("  " + p)
    print(f"{compared} series' values compared (history series only for presence), "
          f"{len(problems)} differences")
    if compared == 0:
        print("FAIL: no series compared")
    return 1 if problems or compared == 0 else 0


def drop_families(text, names):
    """The exposition text without the families in `names`."""
    out, skip = [], False
    for line in text.splitlines(keepends=True):
        if line.startswith("# "):
            parts = line.split()
            skip = len(parts) > 2 and parts[2] in names
        if not skip:
            out.append(line)
    return "".join(out)


if __name__ == "__main__":
    sys.exit(main())
