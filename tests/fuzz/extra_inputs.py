#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Inputs for a fuzz target that are not committed under corpus/:

  extra_inputs.py NAME SEEDS_DIR LARGE_DIR

SEEDS_DIR gets real Slurm output from tests/fixtures (seeds for the shim
readers, used for fuzzing too). LARGE_DIR gets regression inputs too big to
commit (docs/testing.md, fuzz targets), replayed once each but never mutated: made here, the
same bytes every time."""

import os
import random
import shutil
import sys

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures")


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def main():
    name, seeds, large = sys.argv[1:]
    if name in ("shim_json", "shim_sdiag"):
        for rel in ("22.05.8/sdiag.txt", "22.05.8/sinfo.json",
                    "24.11.5/sdiag.json", "24.11.5/scontrol_show_nodes.json",
                    "26.05.3/scontrol_show_partitions.json"):
            shutil.copy(os.path.join(FIXTURES, rel),
                        os.path.join(seeds, rel.replace("/", "_")))
        rpc = b"Remote Procedure Call statistics by message type\n"
        head = b"sdiag output at Mon Jan 01 00:00:00 2024 (1704067200)\n"
        # A 300 KB sdiag line: std::regex recursed once per character and
        # overflowed the stack (exit 139).
        write(os.path.join(large, "sdiag_long_rpc_line.txt"),
              head + rpc + b"\tREQUEST_" + b"X" * 300000 +
              b" (1) count:1 ave_time:1 total_time:1\n")
        write(os.path.join(large, "sdiag_long_value_line.txt"),
              head + b"Server thread count: 1" + b" " * 300000 + b"x\n")
        write(os.path.join(large, "sdiag_long_key_line.txt"),
              head + b"Jobs " + b"a" * 300000 + b": 1\n")
    if name == "shim_json":
        # 100k nested arrays under "errors": the recursive JSON dump of the
        # error response overflowed the stack (exit 139).
        n = 100000
        write(os.path.join(large, "json_deep_errors.json"),
              b'{"errors":[' + b"[" * n + b"]" * n + b"]}")
        write(os.path.join(large, "json_deep_objects.json"),
              b'{"jobs":[' + b'{"a":' * n + b"1" + b"}" * n + b"]}")
        write(os.path.join(large, "json_deep_top.json"), b"[" * n + b"]" * n)
    if name == "config":
        # 1 MB of random bytes as soperator_metrics.conf (byte 0: no
        # variables set, the rest is the file).
        rng = random.Random(11)
        write(os.path.join(large, "random_1mb.conf"),
              b"\0" + bytes(rng.getrandbits(8) for _ in range(1 << 20)))


if __name__ == "__main__":
    main()
