#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""WebConfigFile and AllowedNetworks inside a real slurmctld: the plugin's
listeners serve TLS with basic auth (exporter-toolkit web config made here
with openssl and libcrypt's bcrypt), checked with Debian's curl; plain HTTP,
missing and wrong credentials are refused on both listeners (AllowedNetworks
set, our loopback peer on it); slurmctld stops cleanly under TLS scrapes.
(tests/http/test_listener.py covers peers outside AllowedNetworks.)

usage: test_web_config.py VERSION PLUGIN_DIR
"""

import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Cluster, wait_for  # noqa: E402
from pki import bcrypt_hash, make_pki  # noqa: E402  (scripts/lib, via harness)

VERSION = PLUGIN_DIR = None


def curl(*args, timeout=10):
    """(exit code, status line, body) of curl -s -i."""
    p = subprocess.run(["curl", "-s", "-i", "--max-time", str(timeout), *args],
                       capture_output=True, timeout=timeout + 5)
    head, _, body = p.stdout.partition(b"\r\n\r\n")
    return p.returncode, head.split(b"\r\n", 1)[0].decode("latin-1"), body


class WebConfig(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="sm-it-web-")
        cls.pki = make_pki(os.path.join(cls.tmp, "pki"))
        web = os.path.join(cls.tmp, "web-config.yml")
        with open(web, "w") as f:
            f.write("tls_server_config:\n"
                    "  cert_file: pki/server.pem\n"
                    "  key_file: pki/server.key\n"
                    "basic_auth_users:\n"
                    f"  prometheus: '{bcrypt_hash('scrape-secret')}'\n"
                    "http_server_config:\n"
                    "  headers:\n"
                    "    X-Content-Type-Options: nosniff\n")
        cls.c = Cluster(VERSION, PLUGIN_DIR, metrics_conf_extra=[
            f"WebConfigFile={web}", "AllowedNetworks=127.0.0.0/8"])
        cls.https = f"https://127.0.0.1:{cls.c.metrics_port}"
        cls.ca = ["--cacert", cls.pki("ca.pem")]

    @classmethod
    def tearDownClass(cls):
        cls.c.cleanup()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def scrape(self, *args, url=None):
        return curl(*self.ca, *args, url or f"{self.https}/metrics")

    def test_01_tls_and_password(self):
        # The first collection may still be running: the body fills then.
        def served():
            rc, status, body = self.scrape("-u", "prometheus:scrape-secret")
            return rc == 0 and status == "HTTP/1.1 200 OK" and b"slurm_node_info{" in body
        wait_for("an authenticated TLS scrape with nodes", served, timeout=60)
        log = self.c.ctld_log()
        self.assertIn(f"metrics listener listening on 127.0.0.1:{self.c.metrics_port} (TLS)", log)
        rc, status, body = self.scrape("-u", "prometheus:scrape-secret",
                                       url=f"https://127.0.0.1:{self.c.monitoring_port}/metrics")
        self.assertEqual(status, "HTTP/1.1 200 OK")
        self.assertIn(b"slurm_exporter_metrics_requests_total", body)

    def test_02_refused(self):
        for port in (self.c.metrics_port, self.c.monitoring_port):
            url = f"https://127.0.0.1:{port}/metrics"
            for args, what in ((["-u", "prometheus:guess"], "wrong password"),
                               (["-u", "nobody:scrape-secret"], "unknown user"),
                               ([], "no credentials")):
                rc, status, body = self.scrape(*args, url=url)
                self.assertEqual(status, "HTTP/1.1 401 Unauthorized", f"{port} {what}")
                self.assertNotIn(b"slurm_", body)
            rc, status, body = curl(f"http://127.0.0.1:{port}/metrics")
            self.assertEqual(status, "HTTP/1.0 400 Bad Request")
            self.assertEqual(body, b"Client sent an HTTP request to an HTTPS server.\n")
        rc, status, _ = self.scrape(url=f"{self.https}/health")
        self.assertEqual(status, "HTTP/1.1 401 Unauthorized")  # everything is protected

    def test_03_stop_during_tls_scrapes(self):
        stop = threading.Event()

        def loop():
            while not stop.is_set():
                self.scrape("-u", "prometheus:scrape-secret", "--compressed")

        threads = [threading.Thread(target=loop) for _ in range(4)]
        for t in threads:
            t.start()
        time.sleep(2)
        self.c.stop()
        stop.set()
        for t in threads:
            t.join(30)
        log = self.c.ctld_log()
        self.assertNotIn("segfault", log.lower())
        self.assertNotIn("sigpipe", log.lower())


if __name__ == "__main__":
    VERSION, PLUGIN_DIR = sys.argv[1], sys.argv[2]
    unittest.main(argv=[sys.argv[0], "-v"], failfast=False)
