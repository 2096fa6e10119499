#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""slurm.conf PrivateData=jobs,users inside a real slurmctld: Slurm itself
hides the job from another user (squeue as nobody: the oracle that the
setting is in force), and so do we for a scraper that did not prove who it
is; a scraper with a client certificate the web config verifies gets every
series. The listener asks for a certificate but does not require one
(client_auth_type VerifyClientCertIfGiven), so both kinds of scraper meet
the same listener.

usage: test_private_data.py VERSION PLUGIN_DIR
"""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Cluster, parse_exposition, promtool_ok, wait_for  # noqa: E402
from pki import make_pki  # noqa: E402  (scripts/lib, via harness)

VERSION = PLUGIN_DIR = None
JOB_NAME = "pd-secret-name"


def curl(*args, timeout=10):
    p = subprocess.run(["curl", "-s", "-S", "--max-time", str(timeout), *args],
                       capture_output=True, timeout=timeout + 5)
    return p.returncode, p.stdout.decode("utf-8", "replace")


class PrivateData(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="sm-it-pd-")
        cls.pki = staticmethod(make_pki(os.path.join(cls.tmp, "pki")))
        web = os.path.join(cls.tmp, "web-config.yml")
        with open(web, "w") as f:
            f.write("tls_server_config:\n"
                    f"  cert_file: {cls.pki('server.pem')}\n"
                    f"  key_file: {cls.pki('server.key')}\n"
                    f"  client_ca_file: {cls.pki('ca.pem')}\n"
                    "  client_auth_type: VerifyClientCertIfGiven\n")
        cls.c = Cluster(VERSION, PLUGIN_DIR, conf_extra=["PrivateData=jobs,users"],
                        metrics_conf_extra=[f"WebConfigFile={web}"])
        cls.url = f"https://127.0.0.1:{cls.c.metrics_port}"
        cls.job = cls.c.sbatch("-J", JOB_NAME, "--hold", "--wrap", "sleep 300")

    @classmethod
    def tearDownClass(cls):
        cls.c.cleanup()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def anonymous(self, path="/metrics"):
        return curl("--cacert", self.pki("ca.pem"), self.url + path)

    def with_certificate(self, path="/metrics"):
        return curl("--cacert", self.pki("ca.pem"), "--cert", self.pki("client.pem"),
                    "--key", self.pki("client.key"), self.url + path)

    def test_01_slurm_hides_the_job_from_another_user(self):
        # The oracle: slurmctld itself applies the setting.
        env = dict(self.c.env)
        out = subprocess.run(["setpriv", "--reuid=nobody", "--regid=nogroup",
                              "--clear-groups", "squeue", "-h", "-o", "%i %j"],
                             env=env, capture_output=True, timeout=30)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertNotIn(JOB_NAME.encode(), out.stdout)
        self.assertIn(JOB_NAME, self.c.run("squeue", "-h", "-o", "%j"))  # root sees it

    def test_02_authenticated_scraper_sees_everything(self):
        def has_job():
            rc, body = self.with_certificate()
            return rc == 0 and f'job_name="{JOB_NAME}"' in body
        wait_for("the held job in an authenticated scrape", has_job, timeout=60)
        rc, body = self.with_certificate()
        expo = parse_exposition(body)
        self.assertIn("slurm_job_info", expo)
        self.assertIn("slurm_controller_rpc_user_calls_total", expo)
        self.assertEqual(promtool_ok(body.encode()), "")

    def test_03_anonymous_scraper_gets_no_job_or_user(self):
        wait_for("an authenticated scrape with the job",
                 lambda: f'job_name="{JOB_NAME}"' in self.with_certificate()[1], timeout=60)
        for path in ("/metrics", "/metrics/jobs", "/metrics/jobs-users-accts",
                     "/metrics/scheduler", "/metrics/nodes"):
            rc, body = self.anonymous(path)
            self.assertEqual(rc, 0, path)
            self.assertEqual(promtool_ok(body.encode()), "", path)
            for secret in (JOB_NAME, f'job_id="{self.job}"', 'user_name="root"',
                           'user="root"', 'username="root"', "slurm_job_info",
                           "slurm_controller_rpc_user_"):
                self.assertNotIn(secret, body, f"{path}: {secret}")
        # What PrivateData=jobs,users does not hide is still there.
        rc, body = self.anonymous()
        self.assertIn("slurm_node_info{", body)
        self.assertIn("slurm_controller_rpc_calls_total{", body)
        self.assertIn("PrivateData=jobs,users: series that reveal jobs,users are "
                      "served only to authenticated scrapers", self.c.ctld_log())

    def test_04_reservation_users_as_slurm_shows_them(self):
        # PrivateData=users does not hide a reservation's Users= from a
        # user who is not an operator (only =reservations is checked);
        # docs/configuration.md says our anonymous scrape shows the same.
        self.c.scontrol("create", "reservation", "ReservationName=pd-resv", "Users=root",
                        "NodeCnt=1", "StartTime=now+3600", "Duration=60")
        out = subprocess.run(["setpriv", "--reuid=nobody", "--regid=nogroup",
                              "--clear-groups", "scontrol", "show", "reservation"],
                             env=dict(self.c.env), capture_output=True, timeout=30)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn(b"ReservationName=pd-resv", out.stdout)
        self.assertIn(b"Users=root", out.stdout)
        wait_for("the reservation in an anonymous scrape",
                 lambda: 'reservation_name="pd-resv"' in self.anonymous()[1], timeout=90)
        rc, body = self.anonymous()
        line = next(l for l in body.splitlines()
                    if l.startswith("slurm_reservation_info{") and "pd-resv" in l)
        self.assertIn('users="root"', line)


if __name__ == "__main__":
    VERSION, PLUGIN_DIR = sys.argv[1], sys.argv[2]
    unittest.main(argv=[sys.argv[0], "-v"], failfast=False)
