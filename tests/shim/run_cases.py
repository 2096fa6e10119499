#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Runs shim cases: the real plugin .so, driven by soperator-metrics-shim.

usage: run_cases.py --shim SHIM --plugin SO [--version X.Y.Z] CASE.json...

A case is a JSON object:
  description   what it checks and where the expected values come from
  run           "render" (default) or "scenario"
  inputs        render: paths relative to the case file, or inline
                {"name": "nodes.json", "json": {...}} / {"name": .., "text": ".."}
  generate      `soperator-metrics-shim generate` arguments (without --out):
                every file it writes is an input, before `inputs`
  scenario      scenario: the scenario object (docs/shim.md); its steps'
                "files" are relative to the case file
  args          extra command-line arguments
  env           {NAME: value} added to the shim's environment
                (SLURM_EXPORTER_* settings apply as in slurmctld)
  versions      Slurm release prefixes the case applies to (default: all)
  exit          expected exit status (default 0)
  stderr        substrings the standard error must contain
  lines         sample lines that must appear verbatim
  families      {family: [every sample line of it, in output order]}
  absent        families that must not appear at all (no HELP/TYPE either)
  counts        {family: number of sample lines}
  printed       {series: text}: the series' value printed the way sshare
                and scontrol print a double (%f, "inf") must be that text;
                for values a CLI prints rounded (series = the sample line
                up to its value, e.g. 'slurm_x{a="b"}')
  by_version    {"22.05": {lines/families/absent/counts...}, ...} added to
                the checks for that release; a key ">=25.11" means that
                release and every later one. A family listed there
                replaces the case's own expectation for it (where a
                release changed what Slurm prints)
  bodies        scenario: {"STEP PATH" (a step's "fetch"), or "STEP" (its
                --every-step body): {lines/families/absent/counts...}}
                checked on that body alone
  plugin        another plugin path instead of --plugin; @NAME@ stands for
                a --var NAME=VALUE (the case is skipped without it)
The expected lines are written by hand from the exporter spec
(/work/shared/reference/soperator-exporter-spec.md) and Slurm's behaviour,
never copied from the shim's output.
"""
import argparse
import json
import math
import os
import re
import subprocess
import sys
import tempfile


def samples(text, family):
    out = []
    for line in text.splitlines():
        if not line.startswith(family):
            continue
        rest = line[len(family):]
        for suffix in ("", "_bucket", "_sum", "_count"):
            if rest.startswith(suffix) and rest[len(suffix):len(suffix) + 1] in ("{", " "):
                out.append(line)
                break
    return out


def resolve_files(obj, base):
    """Scenario steps' relative "files" become absolute."""
    for step in obj.get("steps", []):
        if isinstance(step, dict) and isinstance(step.get("files"), list):
            step["files"] = [f if os.path.isabs(f) else os.path.join(base, f)
                             for f in step["files"]]
    return obj


def bodies(out):
    """A scenario's output split at its marker lines
    (# ==> NAME (I/N, t=+Ss, unix=U) [PATH] <==), by "NAME[ PATH]"."""
    found, key = {}, None
    for line in out.splitlines(keepends=True):
        m = re.match(r"^# ==> (.*) \(\d+/\d+, t=\+[^,]*, unix=-?\d+\)( \S+)? <==$",
                     line.rstrip("\n"))
        if m:
            key = m.group(1) + (m.group(2) or "")
            found[key] = ""
        elif key is not None:
            found[key] += line
    return found


def check_body(c, out):
    problems = []
    lines = set(out.splitlines())
    for line in c.get("lines", []):
        if line not in lines:
            problems.append(f"missing line: {line}")
    for fam, want in c.get("families", {}).items():
        got = samples(out, fam)
        if got != want:
            problems.append(f"family {fam}:\n    expected:\n      " +
                            "\n      ".join(want) + "\n    got:\n      " +
                            "\n      ".join(got))
    for fam in c.get("absent", []):
        if samples(out, fam) or f"# TYPE {fam} " in out:
            problems.append(f"family {fam} should be absent: {samples(out, fam)[:3]}")
    for fam, n in c.get("counts", {}).items():
        got = len(samples(out, fam))
        if got != n:
            problems.append(f"family {fam}: {got} samples, expected {n}")
    values = {}
    for line in out.splitlines():
        if line and not line.startswith("#"):
            key, _, value = line.rpartition(" ")
            values[key] = value
    for key, want in c.get("printed", {}).items():
        if key not in values:
            problems.append(f"missing series: {key}")
            continue
        v = float(values[key])
        got = "inf" if math.isinf(v) else "%f" % v
        if got != want:
            problems.append(f"{key}: {values[key]} prints as {got}, the CLI printed {want}")
    return problems


def version_matches(version, key):
    """A by_version key: a release prefix ("22.05"), or ">=X.Y"."""
    if key.startswith(">="):
        def parts(v):
            return tuple(int(x) for x in v.split(".")[:2])
        return parts(version) >= parts(key[2:])
    return version.startswith(key)


def check(case, out, err, rc, version):
    problems = []
    want_rc = case.get("exit", 0)
    if rc != want_rc:
        problems.append(f"exit status {rc}, expected {want_rc}")
    for s in case.get("stderr", []):
        if s not in err:
            problems.append(f"stderr lacks {s!r}")
    base = dict(case)
    extras = [extra for key, extra in case.get("by_version", {}).items()
              if version_matches(version, key)]
    for extra in extras:
        base["families"] = {f: w for f, w in base.get("families", {}).items()
                            if f not in extra.get("families", {})}
    for c in [base] + extras:
        problems += check_body(c, out)
    split = bodies(out)
    for key, c in case.get("bodies", {}).items():
        if key not in split:
            problems.append(f"no body {key!r} in the output (have {sorted(split)})")
        else:
            problems += [f"{key}: {p}" for p in check_body(c, split[key])]
    return problems


# A case that does not apply is reported to meson as skipped (exit 77, the
# status meson's test harness counts as SKIP), never as passed.
SKIPPED = "skipped"


def run_case(path, a, tmp):
    with open(path) as f:
        case = json.load(f)
    name = os.path.splitext(os.path.basename(path))[0]
    prefixes = case.get("versions")
    if prefixes and not any(a.version.startswith(p) for p in prefixes):
        print(f"SKIP {name} (Slurm {a.version})")
        return SKIPPED
    base = os.path.dirname(os.path.abspath(path))
    plugin = case.get("plugin", a.plugin)
    for key, value in a.vars.items():
        plugin = plugin.replace(f"@{key}@", value)
    if "@" in plugin:
        print(f"SKIP {name} (no {plugin})")
        return SKIPPED
    cmd = [a.shim, case.get("run", "render"), "--plugin", plugin] + case.get("args", [])
    if case.get("run", "render") == "scenario":
        sc = os.path.join(tmp, name + ".scenario.json")
        with open(sc, "w") as f:
            json.dump(resolve_files(case["scenario"], base), f)
        cmd.append(sc)
    if "generate" in case:
        out = os.path.join(tmp, name + ".generated")
        g = subprocess.run([a.shim, "generate"] + case["generate"] + ["--out", out],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if g.returncode:
            print(f"FAIL {name}: generate exited {g.returncode}: {g.stderr.strip()}")
            return False
        cmd += [os.path.join(out, f) for f in sorted(os.listdir(out))]
    for i, inp in enumerate(case.get("inputs", [])):
        if isinstance(inp, str):
            cmd.append(os.path.join(base, inp))
            continue
        p = os.path.join(tmp, f"{name}.{i}.{inp['name']}")
        with open(p, "w") as f:
            if "json" in inp:
                json.dump(inp["json"], f)
            else:
                f.write(inp["text"])
        cmd.append(p)
    env = dict(os.environ, **case.get("env", {}))
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    out = r.stdout.decode("utf-8", "replace")
    err = r.stderr.decode("utf-8", "replace")
    problems = check(case, out, err, r.returncode, a.version)
    if problems:
        print(f"FAIL {name}: {case.get('description', '')}")
        for p in problems:
            print("  " + p)
        print("  command: " + " ".join(cmd))
        if err.strip():
            print("  stderr:\n    " + "\n    ".join(err.strip().splitlines()[:20]))
        return False
    print(f"ok   {name}")
    return True


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shim", required=True)
    ap.add_argument("--plugin", required=True)
    ap.add_argument("--version", default="")
    ap.add_argument("--var", action="append", default=[], help="NAME=VALUE")
    ap.add_argument("cases", nargs="+")
    a = ap.parse_args()
    a.vars = dict(v.split("=", 1) for v in a.var)
    if not a.version:
        a.version = subprocess.run([a.shim, "version"], check=True, stdout=subprocess.PIPE,
                                   text=True).stdout.split()[-1]
    with tempfile.TemporaryDirectory(prefix="shim-cases.") as tmp:
        results = [run_case(c, a, tmp) for c in a.cases]
    failed = results.count(False)
    skipped = results.count(SKIPPED)
    print(f"{results.count(True)} of {len(results)} cases passed, {skipped} skipped")
    if failed:
        return 1
    return 77 if skipped == len(results) else 0


if __name__ == "__main__":
    sys.exit(main())
