#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""MetricsType=metrics/soperator inside a real slurmctld 25.11 or later: our
seven /metrics/soperator... routes on slurmctld's own port, beside
slurmctld's own /metrics/* routes (docs/compat.md, "Our routes on
slurmctld's port").

The oracles are outside our code: slurmctld's own routes on the same
controller answer every access configuration first, and ours must answer
the same status (and the table docs/compat.md, "Access checked by hand",
records, written by hand from the first by-hand run); squeue and scontrol
say which jobs and nodes the bodies must hold; HTTP itself (gzip, HEAD,
lengths); promtool and prometheus_client (tests/check_exposition.py) judge
the bodies. A standby backup's 303 is tests/integration/test_ha.py
--metrics-type; Slurm's own numbers, series by series, are
test_native_fidelity.py.

usage: test_metrics_type.py VERSION PLUGIN_DIR
"""

import gzip
import http.client
import os
import re
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import (Cluster, TESTS, json_state, parse_exposition, promtool_ok,  # noqa: E402
                     series, wait_for)

VERSION = PLUGIN_DIR = None
OURS = ["/metrics/soperator", "/metrics/soperator/nodes", "/metrics/soperator/jobs",
        "/metrics/soperator/partitions", "/metrics/soperator/scheduler",
        "/metrics/soperator/jobs-users-accts", "/metrics/soperator/monitoring"]
# Each group path carries the families of the native path of the same name
# (and Soperator's where they have a counterpart): our own listener serves
# the same groups, from the same collector, under Slurm's path names.
LISTENER_PATH = {p: p.replace("/soperator", "", 1) for p in OURS[1:6]}
TEXT = "text/plain; version=0.0.4; charset=utf-8; escaping=underscores"
# Without "; escaping=underscores": slurmctld formats each header line into
# an 80-byte buffer (docs/compat.md).
OPENMETRICS = "application/openmetrics-text; version=1.0.0; charset=utf-8"
JOB_NAME = "mt-held-job"

# docs/compat.md, "Access checked by hand": the status slurmctld's own
# /metrics/* routes gave for no credentials, a JWT of root, of a user
# listed in MetricsAuthUsers (daemon), of another user (bin), and a
# token that is not one. Ours must give the same. A token of nobody is
# asked too, with slurmctld's own answer as the only oracle (26.05.3
# answered 500 to it where authentication was on: nobody's uid is
# SLURM_AUTH_NOBODY).
CREDENTIALS = ["none", "root", "listed", "other", "bad"]
ACCESS = {
    "25.11": [
        ((), [200, 200, 200, 200, 200]),
        (("PrivateData=jobs",), [401, 401, 401, 401, 401]),
    ],
    "26.05": [
        ((), [200, 200, 200, 200, 200]),
        (("MetricsAuthUsers=daemon",), [401, 200, 200, 403, 401]),
        (("PrivateData=jobs",), [401, 200, 403, 403, 401]),
        (("PrivateData=jobs", "MetricsParameters=ignore_private_data"),
         [200, 200, 200, 200, 200]),
        (("PrivateData=jobs", "MetricsAuthUsers=daemon",
          "MetricsParameters=ignore_private_data"), [401, 200, 200, 403, 401]),
    ],
}


def release():
    return ".".join(VERSION.split(".")[:2])


class MetricsType(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.c = Cluster(VERSION, PLUGIN_DIR, job_submit=None,
                        conf_extra=["MetricsType=metrics/soperator"])
        c = cls.c
        # JWT for the access tests: slurmctld signs `scontrol token`s with
        # this key, and on 26.05 its HTTP listener checks them with it.
        cls.key = os.path.join(c.cdir, "etc", "jwt_hs256.key")
        with open(cls.key, "wb") as f:
            f.write(os.urandom(32))
        os.chmod(cls.key, 0o600)
        cls.conf = os.path.join(c.cdir, "etc", "slurm.conf")
        with open(cls.conf) as f:
            cls.base_conf = f.read()
        cls.jwt_lines = ["AuthAltTypes=auth/jwt", f"AuthAltParameters=jwt_key={cls.key}"]
        if release() >= "26.05":
            cls.jwt_lines.append(f"SlurmctldHttpAuthParameters=jwt_key={cls.key}")
        cls.reconfigure(())
        cls.held = c.sbatch("-J", JOB_NAME, "--hold", "--wrap", "true")
        cls.running = c.sbatch("--wrap", "sleep 600")

    @classmethod
    def tearDownClass(cls):
        cls.c.cleanup()

    @classmethod
    def reconfigure(cls, lines):
        """slurm.conf as test-cluster.sh wrote it, plus JWT and `lines`;
        then slurmctld restarted with its state."""
        with open(cls.conf, "w") as f:
            f.write(cls.base_conf + "".join(l + "\n" for l in cls.jwt_lines + list(lines)))
        cls.c.restart_ctld()

    # ------------------------------------------------------------ requests

    def request(self, path, method="GET", headers=None):
        """One request to slurmctld's port; redirects are not followed."""
        conn = http.client.HTTPConnection("127.0.0.1", int(self.c.env["SM_SLURMCTLD_PORT"]),
                                          timeout=30)
        try:
            conn.request(method, path, headers=headers or {})
            r = conn.getresponse()
            return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read()
        finally:
            conn.close()

    def serving(self, path="/metrics/soperator", headers=None):
        """Our body once the collector has one (right after a start the
        route may answer before the first collection)."""
        got = {}

        def ready():
            got["r"] = self.request(path, headers=headers)
            return got["r"][0] == 200 and got["r"][2] != b""
        wait_for(f"{path} serving", ready, timeout=60, interval=0.3)
        return got["r"]

    def same_collection(self, fetch):
        """fetch() twice around another request until the two agree: the
        collector replaces its bodies every second, and only answers from
        one collection can be compared byte for byte."""
        for _ in range(50):
            first = fetch()
            middle = fetch(True)
            last = fetch()
            if first == last:
                return first, middle
        self.fail("bodies kept changing between requests")

    # ------------------------------------------------------------ tests

    def test_01_routes_serve_every_family(self):
        status, headers, body = self.serving()
        self.assertEqual(headers["content-type"], TEXT)
        # What squeue and scontrol list is what /metrics/soperator holds.
        # The unheld job must have started first: its start adds families
        # (slurm_node_job, slurm_job_duration_seconds, the queue wait
        # histogram), and a route body from the collection before the start
        # would miss what the listener's next body has.
        def squeue_states():
            return {str(j["job_id"]): json_state(j["job_state"]) for j in self.c.squeue_json()}
        wait_for("the unheld job to run",
                 lambda: squeue_states().get(str(self.running)) == "RUNNING", timeout=60)
        want_jobs = squeue_states()

        def jobs_agree():
            expo = parse_exposition(self.serving()[2].decode())
            return {l["job_id"]: l["job_state"]
                    for l, _ in series(expo, "slurm_job_info")} == want_jobs
        wait_for("slurm_job_info to list squeue's jobs and states", jobs_agree, timeout=60)
        expo = parse_exposition(self.serving()[2].decode())
        self.assertEqual({l["node_name"] for l, _ in series(expo, "slurm_node_info")},
                         set(self.c.nodes()))
        self.assertIn(f'job_name="{JOB_NAME}"', self.serving()[2].decode())
        every = set(expo)
        for path in OURS:
            status, headers, body = self.serving(path)
            self.assertEqual(headers["content-type"], TEXT, path)
            self.assertEqual(promtool_ok(body), "", path)
            families = set(parse_exposition(body.decode()))
            if path == "/metrics/soperator/monitoring":
                self.assertTrue(families and all(f.startswith("slurm_exporter_")
                                                 for f in families), families)
                continue
            # Our listener serves the same collector's groups under Slurm's
            # names; the route must hold every family of its group.
            listener = LISTENER_PATH.get(path, "/metrics")
            _, _, other = self.c.scrape(listener)
            want = set(parse_exposition(other.decode()))
            if path == "/metrics/soperator":
                # Everything: every group's families too.
                for p in LISTENER_PATH.values():
                    want |= set(parse_exposition(self.c.scrape(p)[2].decode()))
                self.assertEqual(families, every)
            self.assertEqual(families, want, path)
        # A path we do not serve is slurmctld's 404, not ours.
        self.assertEqual(self.request("/metrics/soperator/nope")[0], 404)

    def test_02_negotiation_gzip_head(self):
        for path in OURS:
            self.serving(path)

            def fetch(gz=False, path=path):
                h = {"Accept-Encoding": "gzip"} if gz else {}
                return self.request(path, headers=h)
            plain, zipped = self.same_collection(fetch)
            self.assertEqual(zipped[0], 200, path)
            self.assertEqual(zipped[1].get("content-encoding"), "gzip", path)
            self.assertNotIn("content-encoding", plain[1], path)
            self.assertEqual(gzip.decompress(zipped[2]), plain[2], path)
            self.assertEqual(int(plain[1]["content-length"]), len(plain[2]), path)

            def head(h=False, path=path):
                if h:
                    return self.request(path, method="HEAD")
                return self.request(path)
            get, headed = self.same_collection(head)
            self.assertEqual(headed[0], 200, path)
            self.assertEqual(headed[2], b"", path)
            self.assertEqual(int(headed[1]["content-length"]), len(get[2]), path)

            st, hd, om = self.request(path, headers={
                "Accept": "application/openmetrics-text;version=1.0.0"})
            self.assertEqual((st, hd["content-type"]), (200, OPENMETRICS), path)
            self.assertTrue(om.endswith(b"# EOF\n"), path)
            r = subprocess.run([sys.executable, os.path.join(TESTS, "check_exposition.py"),
                                "openmetrics", "cat"], input=om, capture_output=True)
            self.assertEqual(r.returncode, 0, f"{path}: {r.stdout.decode()[-2000:]}")

    def test_03_access_as_slurmctld_grants_it(self):
        tokens = {"root": self.token("root"), "listed": self.token("daemon"),
                  "other": self.token("bin"), "bad": "not-a-jwt." + "x" * 40,
                  "nobody": self.token("nobody")}
        try:
            for lines, want in ACCESS[release()]:
                self.reconfigure(lines)
                # slurmctld's /livez (no access rule; 204 once it is up).
                wait_for("slurmctld's HTTP", lambda: self.request("/livez")[0] == 204,
                         timeout=60, interval=0.3)
                for cred, expected in zip(CREDENTIALS + ["nobody"], want + [None]):
                    h = {"X-SLURM-USER-TOKEN": tokens[cred]} if cred != "none" else {}
                    slurm = {p: self.request(p, headers=h)[0]
                             for p in ("/metrics/nodes", "/metrics/jobs")}
                    what = f"{' '.join(lines) or 'nothing set'}, {cred}"
                    if expected is None:
                        self.assertEqual(len(set(slurm.values())), 1, slurm)
                        expected = slurm["/metrics/nodes"]
                    self.assertEqual(set(slurm.values()), {expected},
                                     f"{what}: slurmctld's own routes {slurm}")
                    for p in ("/metrics/soperator", "/metrics/soperator/jobs",
                              "/metrics/soperator/monitoring"):
                        if expected == 200:
                            status, _, body = self.serving(p, headers=h)
                        else:
                            status, _, body = self.request(p, headers=h)
                            # slurmctld's refusal text (26.05), or none (25.11).
                            self.assertFalse(b"slurm_" in body,
                                             f"{what}: {p} served data: {body[:200]!r}")
                        self.assertEqual(status, expected, f"{what}: {p}")
                print(f"ok: {' '.join(lines) or 'nothing set'}: {want}, nobody {expected}",
                      flush=True)
        finally:
            self.reconfigure(())

    def token(self, user):
        out = self.c.scontrol("token", f"username={user}", "lifespan=3600")
        m = re.search(r"SLURM_JWT=(\S+)", out)
        self.assertTrue(m, out)
        return m.group(1)


if __name__ == "__main__":
    VERSION, PLUGIN_DIR = sys.argv[1], sys.argv[2]
    unittest.main(argv=[sys.argv[0], "-v"], failfast=False)
