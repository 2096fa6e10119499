#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Hostile strings through Slurm's JSON, the shim and the real plugin.

usage: hostile.py --shim SHIM --plugin SO --check-exposition check_exposition.py

Writes dumps whose node names, reasons, comments, reservations, partitions,
job names, paths, user names, and license, reservation, QoS, account and
fairshare user names (the accounting-side dumps) hold quotes, backslashes, newlines, raw
bytes that are not UTF-8 (Slurm copies them byte for byte into its JSON)
and a 1 MiB reason (cut to 4096 bytes), then:
- feeds the shim's text output to `promtool check metrics` and its
  OpenMetrics output to prometheus_client's strict parser (through
  tests/check_exposition.py), and
- checks by hand-derived lines that escaping follows spec section 2.5 and
  that invalid UTF-8 comes out as U+FFFD, never as raw bytes.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

BAD = b"\xff\xfe\xc3("  # two stray bytes and a truncated sequence


def raw(obj):
    """JSON text where the placeholder @BAD@ stands for the raw bytes."""
    return json.dumps(obj, ensure_ascii=False).encode("utf-8").replace(b"@BAD@", BAD)


def num(v):
    return {"set": True, "infinite": False, "number": v}


def release(shim):
    """(major, minor) of the Slurm release the shim was built for."""
    out = subprocess.run([shim, "version"], check=True, stdout=subprocess.PIPE,
                         text=True).stdout.split()[-1]
    return tuple(int(x) for x in out.split(".")[:2])


def stdout_expected(a):
    """The job's StdOut as scontrol prints it. From 25.11 on the plugin
    hands the stored pattern to Slurm's own expand_stdio_fields()
    (docs/compat.md), which copies a pattern holding a backslash without
    expansion and without its backslashes (src/common/print_fields.c);
    up to 25.05 the path is printed as stored."""
    if release(a.shim) >= (25, 11):
        return 'standard_output="/tmp/o\\"ut\ufffd'
    return 'standard_output="/tmp/o\\"u\\\\t\ufffd'


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shim", required=True)
    ap.add_argument("--plugin", required=True)
    ap.add_argument("--check-exposition", required=True)
    a = ap.parse_args()
    megabyte = ('x"\\' * 349525)[:1 << 20]
    nodes = [
        {"name": 'h"1', "state": ["IDLE", "DRAIN"], "cpus": 2, "real_memory": 100,
         "tres": "cpu=2,mem=100M", "partitions": ['p"art\\1'], "address": "10.0.0.1",
         "reason": 'bad "dimm" \\ slot\nline2 @BAD@ é', "reason_changed_at": num(1),
         "comment": '{"rack": "B\\12"}\n@BAD@', "reservation": "r" + "é" * 60},
        {"name": "h\\2", "state": ["DOWN", "NOT_RESPONDING"], "cpus": 2, "real_memory": 100,
         "tres": "cpu=2,mem=100M", "partitions": ["main"], "reason": megabyte,
         "reason_changed_at": num(1)},
        {"name": "h\n3@BAD@", "state": ["MIXED"], "cpus": 2, "real_memory": 100, "alloc_cpus": 1,
         "tres": "cpu=2,mem=100M", "partitions": ["main"]},
    ]
    jobs = [
        {"job_id": 1, "name": 'j"\\\n@BAD@', "job_state": ["RUNNING"], "user_id": 5000,
         "user_name": 'us"er\\@BAD@', "mail_user": "m@BAD@", "partition": "main",
         "nodes": "h\n3@BAD@", "node_count": num(1), "cpus": num(1), "tres_alloc_str": "cpu=1",
         "standard_output": '/tmp/o"u\\t@BAD@.out', "standard_error": "", "batch_flag": True,
         "start_time": num(1799999000), "end_time": num(1800003600), "submit_time": num(1799998000),
         "job_resources": {"nodes": {"allocation": [
             {"name": "h\n3@BAD@", "cpus": {"count": 1}, "memory": {"allocated": 0}}]}}},
        {"job_id": 2, "name": megabyte, "job_state": ["PENDING"], "state_reason": "Priority",
         "user_id": 5001, "user_name": "", "partition": 'p"art\\1', "tres_req_str": "cpu=1",
         "submit_time": num(1799998000), "start_time": num(0), "end_time": num(0)},
    ]
    diag = {"statistics": {"server_thread_count": 1, "req_time": num(1800000000),
                           "rpcs_by_message_type": [{"message_type": "REQUEST_PING", "type_id": 1008,
                                                     "count": 1, "total_time": 1}],
                           "rpcs_by_user": [{"user": 'r"oot\\@BAD@', "user_id": 5002,
                                             "count": 1, "total_time": 1}]}}
    # The accounting side (docs/accounting-families.md): license, reservation, QoS, account and
    # user names as their dumps print them.
    licenses = {"licenses": [{"LicenseName": 'li"c\\@BAD@', "Total": 2, "Used": 1, "Free": 1,
                              "Reserved": 0, "Remote": False}]}
    reservations = {"reservations": [{"name": 're"s\\\n@BAD@', "users": 'u"1\\@BAD@',
                                      "node_list": 'h"1', "partition": "", "flags": ["MAINT"],
                                      "start_time": num(1799990000), "end_time": num(1800090000),
                                      "node_count": 1, "core_count": 2}]}
    qos = {"qos": [{"name": 'q"o\\s\n@BAD@', "id": 1, "priority": num(5),
                    "limits": {"max": {"active_jobs": {"count": num(3)}}}}]}
    shares = {"shares": {"shares": [
        {"id": 1, "name": "root", "parent": "", "type": ["ASSOCIATION"], "shares": num(1),
         "shares_normalized": num(1.0), "usage": 10},
        {"id": 2, "name": 'a"c\\ct\n@BAD@', "parent": "root", "type": ["ASSOCIATION"],
         "shares": num(5), "shares_normalized": num(1.0), "usage": 10},
        {"id": 3, "name": 'us"r\\@BAD@', "parent": 'a"c\\ct\n@BAD@', "type": ["USER"],
         "shares": num(1), "shares_normalized": num(1.0), "usage": 10,
         "fairshare": {"factor": num(0.5), "level": num(1.0)}}]}}
    problems = []
    with tempfile.TemporaryDirectory(prefix="shim-hostile.") as tmp:
        paths = []
        for name, obj in (("nodes.json", {"nodes": nodes}), ("jobs.json", {"jobs": jobs}),
                          ("sdiag.json", diag), ("licenses.json", licenses),
                          ("reservations.json", reservations), ("qos.json", qos),
                          ("sshare.json", shares)):
            p = os.path.join(tmp, name)
            with open(p, "wb") as f:
                f.write(raw(obj))
            paths.append(p)
        render = [a.shim, "render", "--plugin", a.plugin] + paths
        for fmt, extra in (("text", []), ("openmetrics", ["--openmetrics"])):
            r = subprocess.run([sys.executable, a.check_exposition, fmt] + render + extra)
            if r.returncode:
                problems.append(f"check_exposition.py {fmt} failed")
        body = subprocess.run(render, check=True, stdout=subprocess.PIPE).stdout
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError as e:
            problems.append(f"output is not UTF-8: {e}")
            text = body.decode("utf-8", "replace")
        # Spec 2.5: \ -> \\, " -> \", newline -> \n; invalid UTF-8 -> U+FFFD
        # (each string is checked up to its first replacement character:
        # how many bytes one U+FFFD stands for is the repair's business).
        expect_in = [
            'node_name="h\\"1"',
            'node_name="h\\\\2"',
            'partition="p\\"art\\\\1"',
            'reason="bad \\"dimm\\" \\\\ slot\\nline2 \ufffd',
            'comment="{\\"rack\\": \\"B\\\\12\\"}\\n\ufffd',
            'job_name="j\\"\\\\\\n\ufffd',
            'user_name="us\\"er\\\\\ufffd',
            stdout_expected(a),
            'user="r\\"oot\\\\\ufffd',
            'slurm_node_job{job_id="1",node_name="h\\n3\ufffd',
            'slurm_license_total{license="li\\"c\\\\\ufffd',
            'reservation_name="re\\"s\\\\\\n\ufffd',
            'users="u\\"1\\\\\ufffd',
            'slurm_qos_grp_jobs_limit{qos="q\\"o\\\\s\\n\ufffd',
            'slurm_account_fairshare_raw_shares{account="a\\"c\\\\ct\\n\ufffd',
            'user="us\\"r\\\\\ufffd',
        ]
        for s in expect_in:
            if s not in text:
                problems.append(f"output lacks {s!r}")
        # The 1 MiB reason and job name come out cut to 4096 bytes (the
        # writer's kMaxLabelValueBytes, docs/metrics.md), marker included,
        # then escaped.
        cut = megabyte[:4096 - len("...[truncated]")] + "...[truncated]"
        escaped_cut = cut.replace("\\", "\\\\").replace('"', '\\"')
        if f'reason="{escaped_cut}"' not in text:
            problems.append("the 1 MiB reason is not cut to 4096 bytes")
        if f'job_name="{escaped_cut}"' not in text:
            problems.append("the 1 MiB job name is not cut to 4096 bytes")
        if megabyte[:8192] in text:
            problems.append("8 KiB of the 1 MiB value were exported")
        # Reservation: cut to 50 code points.
        want = 'reservation_name="r' + "é" * 49 + '"'
        if want not in text:
            problems.append(f"reservation_name is not {want!r}")
    for p in problems:
        print("FAIL: " + p)
    if not problems:
        print(f"hostile strings: {len(body)} bytes, escaped and repaired as specified")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
