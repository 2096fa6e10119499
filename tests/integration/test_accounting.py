#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The plugin inside a slurmctld that accounts to a real slurmdbd
(scripts/test-cluster.sh --accounting: MariaDB, slurmdbd, associations, QoS,
licenses, a reservation, multifactor priority, typed GPUs). Every value is
checked against what the daemons and clients report themselves.

usage: test_accounting.py VERSION PLUGIN_DIR
"""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Cluster, one, promtool_ok, parse_exposition, wait_for  # noqa: E402

VERSION = PLUGIN_DIR = None


class AccountingTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.c = Cluster(VERSION, PLUGIN_DIR, gpus="h100:1,a100:1", accounting=True,
                        conf_extra=["DefMemPerCPU=500"])

    @classmethod
    def tearDownClass(cls):
        cls.c.cleanup()

    def body(self):
        status, _, body = self.c.scrape()
        self.assertEqual(status, 200)
        self.assertEqual(promtool_ok(body), "")
        return parse_exposition(body.decode())

    def test_01_job_of_an_association_is_exported(self):
        c = self.c
        # The cluster's own view first: the association and QoS exist.
        shares = c.run("sshare", "-a", "-P", "-n", "-o", "Account,User")
        self.assertIn("theory|nobody", shares.replace(" ", ""))
        jid = c.sbatch("--uid=nobody", "-A", "theory", "-q", "high", "-o", "/dev/null",
                       "--chdir=/tmp", "--gres=gpu:h100:1", "--wrap", "sleep 300")
        wait_for(f"job {jid} running", lambda: c.run(
            "squeue", "-h", "-j", str(jid), "-o", "%T").strip() == "RUNNING", timeout=60)
        c.wait_collections(2)
        labels, _ = one(self.body(), "slurm_job_info", job_id=str(jid))
        self.assertEqual((labels["user_name"], labels["job_state"]), ("nobody", "RUNNING"))

    def test_02_collections_go_on_without_slurmdbd(self):
        """A slurmdbd that is down must not stall our collector: slurmctld
        queues its messages and keeps its own state."""
        c = self.c
        c.stop_dbd()
        try:
            c.wait_collections(3)
            jid = c.sbatch("-o", "/dev/null", "--chdir=/tmp", "--wrap", "sleep 300")
            c.wait_collections(2)
            one(self.body(), "slurm_job_info", job_id=str(jid))
        finally:
            c.start_dbd()
        wait_for("sacctmgr answers again", lambda: "high" in c.run(
            "sacctmgr", "-n", "-P", "show", "qos", "format=Name", check=False), timeout=60)


if __name__ == "__main__":
    VERSION, PLUGIN_DIR = sys.argv[1], sys.argv[2]
    unittest.main(argv=[sys.argv[0], "-v"], failfast=False)
