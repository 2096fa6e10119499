#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""GPUs per job, user, account and partition on a real cluster with fake
typed GPUs (test-cluster.sh --gpus a100:2: GresTypes=gpu, Gres=gpu:a100:2),
with and without gres/gpu in AccountingStorageTRES: our numbers against
`scontrol show job -d` (JOB_GRES) and, where gres/gpu is accounted,
`squeue -O tres-alloc` (docs/metrics-native.md "GPUs"). Jobs ask for GPUs
as --gres=gpu:a100:1, --gpus=1 and --gpus-per-node=2.

usage: test_gpus.py VERSION PLUGIN_DIR
"""

import os
import re
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Cluster, parse_exposition, series, until_agree, wait_for  # noqa: E402

VERSION = PLUGIN_DIR = None


def gres_gpus(spec):
    """GPUs in a JOB_GRES value: 'gpu:a100:1,gpu:2(IDX:0-1)' -> 3."""
    total = 0
    for token in re.split(r",(?![^(]*\))", spec or ""):
        token = re.sub(r"\(.*\)$", "", token.strip())
        parts = token.split(":")
        if parts[0] == "gpu" and len(parts) >= 2 and parts[-1].isdigit():
            total += int(parts[-1])
    return total


class GpuTest:
    """Run against a cluster whose AccountingStorageTRES does (ACCOUNTED)
    or does not list gres/gpu."""
    ACCOUNTED = False

    @classmethod
    def setUpClass(cls):
        extra = ["DefMemPerCPU=500"]
        if cls.ACCOUNTED:
            extra.append("AccountingStorageTRES=gres/gpu")
        # slurmctld refuses to start with TRES gres/gpu and no slurmdbd
        # ("slurmdbd is required to run with TRES gres/gpu").
        cls.c = Cluster(VERSION, PLUGIN_DIR, gpus="a100:2", conf_extra=extra,
                        accounting=cls.ACCOUNTED)

    @classmethod
    def tearDownClass(cls):
        cls.c.cleanup()

    def running(self, ids):
        out = self.c.run("squeue", "-h", "-t", "RUNNING", "-o", "%i")
        return set(ids) <= {int(x) for x in out.split()}

    def daemon_gpus(self, job_id):
        """JOB_GRES of `scontrol show job -d`, and the gres/gpu of squeue's
        tres-alloc (None when the TRES does not list it)."""
        text = self.c.scontrol("show", "job", "-d", str(job_id))
        m = re.search(r"JOB_GRES=(\S+)", text)
        alloc = self.c.run("squeue", "-h", "-j", str(job_id), "-O", "tres-alloc:200").strip()
        t = re.search(r"gres/gpu=(\d+)", alloc)
        return gres_gpus(m.group(1) if m else ""), (int(t.group(1)) if t else None)

    def check(self, jobs):
        """`jobs`: {job id: (user, account)} all running."""
        wait_for("the GPU jobs to run", lambda: self.running(jobs), timeout=60)

        def compare():
            self.c.wait_collections()
            ours = parse_exposition(self.c.scrape()[2].decode())
            native = parse_exposition(self.c.scrape("/metrics/jobs")[2].decode())
            ua = parse_exposition(self.c.scrape("/metrics/jobs-users-accts")[2].decode())
            parts = parse_exposition(self.c.scrape("/metrics/partitions")[2].decode())
            diffs, total = [], 0
            for jid in jobs:
                scontrol, squeue = self.daemon_gpus(jid)
                total += scontrol
                got = [v for _, v in series(ours, "slurm_job_gpus", job_id=str(jid))]
                if got != [scontrol]:
                    diffs.append(f"job {jid}: slurm_job_gpus {got}, JOB_GRES {scontrol}")
                if self.ACCOUNTED and squeue != scontrol:
                    diffs.append(f"job {jid}: tres-alloc gres/gpu {squeue}, JOB_GRES {scontrol}")
                if not self.ACCOUNTED and squeue is not None:
                    diffs.append(f"job {jid}: tres-alloc lists gres/gpu={squeue} unaccounted")
            got = [v for _, v in series(native, "slurm_jobs_gpus_alloc")]
            if got != [total]:
                diffs.append(f"slurm_jobs_gpus_alloc {got}, JOB_GRES sum {total}")
            got = [v for _, v in series(parts, "slurm_partition_jobs_gpus_alloc",
                                        partition="debug")]
            if got != [total]:
                diffs.append(f"slurm_partition_jobs_gpus_alloc {got}, sum {total}")
            users = {}
            for jid, (user, _) in jobs.items():
                users[user] = users.get(user, 0) + self.daemon_gpus(jid)[0]
            for user, want in users.items():
                got = [v for _, v in series(ua, "slurm_user_jobs_gpus_alloc", username=user)]
                if got != [want]:
                    diffs.append(f"user {user}: {got}, JOB_GRES sum {want}")
            return total, diffs

        return until_agree(self, "GPUs per job and in total", compare)

    def test_gpus(self):
        user = self.c.run("id", "-un").strip()
        typed = self.c.sbatch("--gres=gpu:a100:1", "--wrap", "sleep 600")
        untyped = self.c.sbatch("--gpus=1", "--wrap", "sleep 600")
        self.assertEqual(self.check({typed: (user, ""), untyped: (user, "")}), 2)
        self.c.run("scancel", str(typed), str(untyped))
        wait_for("the node to be free", lambda: not self.c.run(
            "squeue", "-h", "-o", "%i").strip(), timeout=60)
        per_node = self.c.sbatch("--gpus-per-node=2", "--wrap", "sleep 600")
        self.assertEqual(self.check({per_node: (user, "")}), 2)
        self.c.run("scancel", str(per_node))


class WithoutGpuTres(GpuTest, unittest.TestCase):
    ACCOUNTED = False


class WithGpuTres(GpuTest, unittest.TestCase):
    ACCOUNTED = True


if __name__ == "__main__":
    VERSION, PLUGIN_DIR = sys.argv[1], sys.argv[2]
    unittest.main(argv=sys.argv[:1], verbosity=2)
