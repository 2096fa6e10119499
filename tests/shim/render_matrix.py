#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Render every metrics path of both carriers, in both formats, with
NativeValues off and on, for a few generated clusters (and any dumps given),
into one file per body: a refactoring of the render path is checked by
running this on the old and the new build and comparing the two
directories byte for byte (`diff -r OLD NEW`). Nothing here is expected
output: both sides come from the code.

usage: render_matrix.py --build BUILD_DIR --out DIR [DUMP...]

BUILD_DIR is a meson build directory configured with -Dslurm_src (its
shim/ holds the shim and its two carriers). The self-monitoring path
(/monitoring) is left out: it carries timings.
"""
import argparse
import os
import subprocess
import sys

SLURM_PATHS = ["/metrics/nodes", "/metrics/jobs", "/metrics/partitions",
               "/metrics/scheduler", "/metrics/jobs-users-accts"]
# (nodes, jobs, seed) of the generated clusters.
CLUSTERS = [(80, 600, 3), (12, 40, 7), (300, 2500, 11)]
CARRIERS = {"job_submit": "job_submit_soperator_shim.so",
            "metrics": "metrics_soperator_shim.so"}


def bodies(carrier):
    """(path, format) pairs the carrier serves, as every_path.py asks."""
    for path in ["/metrics"] + SLURM_PATHS:
        yield path, "text"
        # slurmctld serves the metrics carrier's Slurm paths itself, as
        # text only.
        if carrier == "job_submit" or path == "/metrics":
            yield path, "openmetrics"


def render(shim, plugin, path, fmt, inputs, native_values):
    env = dict(os.environ)
    env.pop("SLURM_EXPORTER_NATIVE_VALUES", None)
    if native_values:
        env["SLURM_EXPORTER_NATIVE_VALUES"] = "yes"
    cmd = [shim, "render", "-q", "--plugin", plugin, "--path", path]
    if fmt == "openmetrics":
        cmd.append("--openmetrics")
    r = subprocess.run(cmd + inputs, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, check=False)
    if r.returncode:
        sys.exit(f"{' '.join(cmd)}: exit {r.returncode}\n"
                 + r.stderr.decode(errors="replace")[-2000:])
    return r.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("dump", nargs="*")
    a = ap.parse_args()
    shim_dir = os.path.join(a.build, "shim")
    shim = os.path.join(shim_dir, "soperator-metrics-shim")
    clusters = {}
    for nodes, jobs, seed in CLUSTERS:
        gen = os.path.join(a.out, "inputs", f"gen-{nodes}-{jobs}-{seed}")
        os.makedirs(gen, exist_ok=True)
        subprocess.run([shim, "generate", "--nodes", str(nodes), "--jobs",
                        str(jobs), "--seed", str(seed), "--out", gen],
                       check=True, stderr=subprocess.DEVNULL)
        clusters[os.path.basename(gen)] = sorted(
            os.path.join(gen, f) for f in os.listdir(gen))
    if a.dump:
        clusters["dumps"] = a.dump
    count = 0
    for name, inputs in clusters.items():
        for carrier, so in CARRIERS.items():
            plugin = os.path.join(shim_dir, so)
            for path, fmt in bodies(carrier):
                for nv in (False, True):
                    body = render(shim, plugin, path, fmt, inputs, nv)
                    leaf = (f"{carrier}{path.replace('/', '_')}.{fmt}"
                            f"{'.native' if nv else ''}")
                    out = os.path.join(a.out, "bodies", name, leaf)
                    os.makedirs(os.path.dirname(out), exist_ok=True)
                    with open(out, "wb") as f:
                        f.write(body)
                    count += 1
    print(f"{count} bodies in {os.path.join(a.out, 'bodies')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
