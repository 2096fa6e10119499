#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The installed carriers export exactly what slurmctld resolves.

usage: check_exports.py MESON BUILD_DIR SLURM_SRC

Installs the build's `slurm-plugin` tag (what the .deb and .rpm ship) into
a scratch DESTDIR, then runs `nm -D --defined-only` on each installed .so:
its defined dynamic symbols must be exactly the five every Slurm plugin
has (src/common/plugin.c: plugin_name, plugin_type, plugin_version, init,
fini) plus the calls of its plugin interface. The job_submit calls are read
from the Slurm tree the carrier was built against (its job_submit.c
syms[]); the metrics calls from src/interfaces/metrics.c where the tree has
it (25.11+), else Slurm 25.11's list below. The shim's hooks
(soperator_metrics_offline, soperator_metrics_collect_now) and anything of
ours must not appear.
"""
import os
import re
import subprocess
import sys
import tempfile

EVERY_PLUGIN = {"plugin_name", "plugin_type", "plugin_version", "init", "fini"}
# src/interfaces/metrics.c syms[] in Slurm 25.11 and 26.05.
METRICS_2511 = {
    "metrics_p_dump", "metrics_p_free_set", "metrics_p_parse_jobs_metrics",
    "metrics_p_parse_nodes_metrics", "metrics_p_parse_parts_metrics",
    "metrics_p_parse_sched_metrics", "metrics_p_parse_ua_metrics",
}


def interface_syms(src, candidates):
    """The names in the syms[] array of the first existing file, or None."""
    for rel in candidates:
        path = os.path.join(src, rel)
        if os.path.exists(path):
            text = open(path, encoding="utf-8", errors="replace").read()
            m = re.search(r"static const char \*syms\[\] = \{(.*?)\};", text, re.S)
            if not m:
                sys.exit(f"{path}: no syms[] array")
            return set(re.findall(r'"([A-Za-z0-9_]+)"', m.group(1)))
    return None


def defined_dynamic(so):
    out = subprocess.run(["nm", "-D", "--defined-only", so], check=True,
                         capture_output=True, text=True).stdout
    return {line.split()[-1] for line in out.splitlines() if line.strip()}


def main():
    meson, build, src = sys.argv[1:4]
    job_submit = interface_syms(src, ["src/interfaces/job_submit.c",
                                      "src/slurmctld/job_submit.c"])
    if not job_submit:
        sys.exit(f"{src}: no job_submit.c")
    metrics = interface_syms(src, ["src/interfaces/metrics.c"]) or METRICS_2511
    want = {"job_submit_soperator.so": EVERY_PLUGIN | job_submit,
            "metrics_soperator.so": EVERY_PLUGIN | metrics}
    problems = []
    with tempfile.TemporaryDirectory(prefix="sm-exports-") as dest:
        subprocess.run([meson, "install", "-C", build, "--no-rebuild", "--quiet",
                        "--tags", "slurm-plugin", "--destdir", dest], check=True)
        installed = {}
        for d, _, files in os.walk(dest):
            for f in files:
                installed[f] = os.path.join(d, f)
        if set(installed) != set(want):
            problems.append(f"tag slurm-plugin installs {sorted(installed)}, "
                            f"expected {sorted(want)}")
        for name in sorted(set(installed) & set(want)):
            got = defined_dynamic(installed[name])
            if got != want[name]:
                problems.append(f"{name}: exports {sorted(got)}; extra "
                                f"{sorted(got - want[name])}, missing "
                                f"{sorted(want[name] - got)}")
            else:
                print(f"ok {name}: {' '.join(sorted(got))}")
    for p in problems:
        print("FAIL", p)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
