#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""StdOut as 25.11 and later expand it, bounded (docs/compat.md, "Why
StdOut/StdErr go through expand_stdio_fields() on 25.11+"): the plugin
hands Slurm's expand_stdio_fields() only the part of a job's pattern that
can reach the 4,095 bytes scontrol prints, so that a 1,024-byte name and
`%x` x 2,047 cost a bounded call. The bound must never change what comes
out.

Seeded random patterns (every `%` field Slurm knows, widths, `%%`, unknown
fields, a trailing `%` or `%<digits>`, literals, now and then a backslash),
names, users and working directories, plus patterns built around the cut
(many `%x` of a long name, literals up to just below and above 4,095
bytes), go through the shim as jobs; each job's standard_output label must
equal what Slurm's own expand_stdio_fields() gives for the whole pattern,
cut at 4,095 bytes (tests/shim/stdio_oracle.cc, linked with the same
libslurmfull). Checked by hand before with 20,000 and 13,926 patterns; in
CI with --jobs (default 2,000).

usage: stdio_bound.py --shim SHIM --plugin SO --oracle ORACLE [--jobs N] [--seed S]
"""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "scripts", "lib"))
import exposition  # noqa: E402

NO_VAL = 0xFFFFFFFE
LIMIT = 4095  # PATH_MAX - 1: scontrol's snprintf
FIELDS = "xujJAasNtnSbrqz"  # Slurm's, then two it prints back as they are
LITERAL = "abcdefghijklmnopqrstuvwxyz0123456789/._-"


def pattern(rng):
    out = []
    if rng.random() < 0.5:
        out.append("/")
    for _ in range(rng.choice([1, 5, 30, 200, 1500])):
        r = rng.random()
        if r < 0.45:
            out.append(rng.choice(LITERAL))
        elif r < 0.90:
            width = rng.choice(["", "", "0", "5", "12", "999"])
            out.append("%" + width + rng.choice(FIELDS))
        elif r < 0.97:
            out.append("%%")
        else:
            out.append("\\")
    tail = rng.random()
    if tail < 0.05:
        out.append("%")
    elif tail < 0.10:
        out.append("%" + str(rng.randint(0, 99)))
    return "".join(out)


def text(rng, longest):
    n = rng.choice([0, 1, 8, 64, longest])
    return "".join(rng.choice(LITERAL) for _ in range(n))


def around_the_cut(rng, i):
    """Patterns whose expansion ends near 4,095 bytes."""
    name = text(rng, 1024) or "n"
    if i % 2:
        n = (LIMIT // len(name)) + rng.randint(-2, 2)
        return "/" + "%x" * max(n, 1), name
    return "/" + "a" * (LIMIT - 1 + rng.randint(-3, 3)), name


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shim", required=True)
    ap.add_argument("--plugin", required=True)
    ap.add_argument("--oracle", required=True)
    ap.add_argument("--jobs", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=2511)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    jobs, asks = [], []
    for i in range(a.jobs):
        job_id = i + 1
        if i % 10 == 9:
            pat, name = around_the_cut(rng, i)
        else:
            pat, name = pattern(rng), text(rng, 1024)
        user = text(rng, 40) or "u"
        work_dir = "/" + text(rng, 300) if rng.random() < 0.9 else ""
        array = rng.random() < 0.2
        job = {"job_id": job_id, "name": name, "job_state": ["PENDING"],
               "state_reason": "Priority", "user_id": 1000, "user_name": user,
               "partition": "p", "standard_output": pat, "standard_error": "",
               "current_working_directory": work_dir, "batch_flag": True,
               "submit_time": {"set": True, "infinite": False, "number": 1800000000}}
        if array:
            job["array_job_id"] = {"set": True, "infinite": False, "number": job_id}
            job["array_task_id"] = {"set": True, "infinite": False, "number": i % 7}
        jobs.append(job)
        asks.append({"pattern": pat, "name": name, "user": user, "work_dir": work_dir,
                     "job_id": job_id, "array_job_id": job_id if array else 0,
                     "array_task_id": i % 7 if array else NO_VAL})
    nodes = [{"name": "n1", "state": ["IDLE"], "cpus": 2, "real_memory": 100,
              "tres": "cpu=2,mem=100M", "partitions": ["p"]}]
    diag = {"statistics": {"server_thread_count": 1,
                           "req_time": {"set": True, "infinite": False, "number": 1800000000}}}
    with tempfile.TemporaryDirectory(prefix="shim-stdio.") as tmp:
        paths = []
        for name, obj in (("nodes.json", {"nodes": nodes}), ("jobs.json", {"jobs": jobs}),
                          ("sdiag.json", diag)):
            paths.append(os.path.join(tmp, name))
            with open(paths[-1], "w") as f:
                json.dump(obj, f)
        body = subprocess.run([a.shim, "render", "-q", "--plugin", a.plugin] + paths,
                              check=True, stdout=subprocess.PIPE).stdout.decode()
        oracle = subprocess.run([a.oracle], input="".join(json.dumps(x) + "\n" for x in asks),
                                check=True, stdout=subprocess.PIPE, text=True).stdout
    want = {x["job_id"]: bytes.fromhex(h).decode("ascii")
            for x, h in zip(asks, oracle.splitlines())}
    got = {}
    for s in exposition.samples(body):
        if s.name == "slurm_job_info":
            labels = {k: exposition.unescape(v) for k, v in exposition.label_pairs(s.labels)}
            got[int(labels["job_id"])] = labels["standard_output"]
    problems = [f"job {j}: {len(got.get(j, ''))} bytes, Slurm's unbounded expansion "
                f"{len(w)} (first difference at byte "
                f"{next((k for k, (x, y) in enumerate(zip(got.get(j, ''), w)) if x != y), min(len(got.get(j, '')), len(w)))})"
                for j, w in sorted(want.items()) if got.get(j) != w]
    cut = sum(1 for w in want.values() if len(w) == LIMIT)
    for p in problems[:20]:
        print("FAIL: " + p)
    print(f"{len(want) - len(problems)} of {len(want)} StdOut paths equal to Slurm's "
          f"unbounded expansion ({cut} of them cut at {LIMIT} bytes)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
