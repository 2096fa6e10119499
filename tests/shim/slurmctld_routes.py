#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""metrics_soperator.so's routes on slurmctld's port (/metrics/soperator...),
bound by its init() into the shim's stand-in for slurmctld's router
(shim/slurmctld_router_standin.cc) and answered through the stand-in's
connection calls: what a real 25.11/26.05 slurmctld would put on the wire.

The 26.05.3 fixture cluster is replayed. The oracles: slurmctld's own
responses captured on that cluster (tests/fixtures/native-26.05.3), the
rules of src/slurmctld/http.c (25.11.7 and 26.05.3) as docs/compat.md
states them, and HTTP itself (gzip, HEAD, header lines).

usage: slurmctld_routes.py --shim SHIM --plugin METRICS_SO --router STANDIN_SO
                           --flavour 2511|2605 FIXTURES_DIR
"""
import argparse
import gzip
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "scripts", "lib"))
import exposition  # noqa: E402

ARGS = None
PATHS = ["/metrics/soperator", "/metrics/soperator/nodes", "/metrics/soperator/jobs",
         "/metrics/soperator/partitions", "/metrics/soperator/scheduler",
         "/metrics/soperator/jobs-users-accts", "/metrics/soperator/monitoring"]
TEXT = "text/plain; version=0.0.4; charset=utf-8; escaping=underscores"
# The listener's OpenMetrics type minus "; escaping=underscores", which would
# not fit slurmctld's 79-byte header line.
OPENMETRICS = "application/openmetrics-text; version=1.0.0; charset=utf-8"
LONG_HOST = "controller-name-0001x"
LONG_URL = f"http://{LONG_HOST}:6817/metrics/soperator/jobs-users-accts"


class Response:
    def __init__(self, result):
        self.bound = result["bound"]
        self.rc = result["rc"]
        wire = bytes.fromhex(result.get("wire_hex", ""))
        head, _, self.body = wire.partition(b"\r\n\r\n")
        lines = head.decode().split("\r\n")
        self.lines = lines
        self.status = int(lines[0].split()[1]) if self.bound else 404
        self.headers = {}
        for line in lines[1:]:
            k, _, v = line.partition(": ")
            self.headers[k] = v

    def text(self):
        if self.headers.get("Content-Encoding") == "gzip":
            return gzip.decompress(self.body).decode()
        return self.body.decode()


def run(steps, conf="NativeValues=yes\n", args=(), env=None, inputs=None):
    """Runs the shim once over `steps` (configure lines and requests); a
    {"fini": true} step answers a dict, every request a Response. `inputs`:
    the fixture cluster's dumps unless given."""
    fixtures = ARGS.fixtures
    with tempfile.TemporaryDirectory() as d:
        conf_path = os.path.join(d, "soperator_metrics.conf")
        with open(conf_path, "w") as f:
            f.write(conf)
        inputs = inputs or [os.path.join(fixtures, f) for f in (
            "scontrol_show_nodes.json", "scontrol_show_jobs.json",
            "scontrol_show_partitions.json", "sdiag.json")]
        r = subprocess.run(
            [ARGS.shim, "slurmctld", "-q", "--plugin", ARGS.plugin, "--router", ARGS.router,
             "--conf", conf_path] + list(args) + inputs,
            input="".join(json.dumps(s) + "\n" for s in steps).encode(),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60,
            env=dict(os.environ, **(env or {})))
    if r.returncode != 0:
        raise AssertionError(f"shim failed ({r.returncode}): {r.stderr.decode()}")
    out = []
    for line in r.stdout.decode().splitlines():
        j = json.loads(line)
        out.append(j if "fini_seconds" in j else Response(j))
    return out


def req(path, method="GET", headers=(), https=False, query=""):
    return {"method": method, "path": path, "headers": [list(h) for h in headers],
            "https": https, "query": query}


def configure(**site):
    return {"configure": site}


def native(path):
    """Slurm's own captured response for one of its five paths."""
    with open(os.path.join(ARGS.fixtures, "..", "native-26.05.3",
                           f"http_metrics_{path}.txt")) as f:
        return re.split(r"\r?\n\r?\n", f.read(), 1)[1]


def prometheus_parses(text):
    """Whether Prometheus' own parser takes the body (promtool; a lint
    complaint is exit status 3, a parse error 1)."""
    r = subprocess.run(["promtool", "check", "metrics"], input=text.encode(),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return r.returncode in (0, 3)


class Routes(unittest.TestCase):
    def check_wire(self, r):
        """Every response is whole: one response, every header line within
        slurmctld's 80-byte buffer (the stand-in stops where Slurm would)."""
        self.assertEqual(r.rc, 0, r.lines)
        for line in r.lines:
            self.assertLessEqual(len(line) + 2, 79, line)
        self.assertNotIn(b"[standin:", r.body)

    def test_bodies_negotiation_gzip_head(self):
        steps = []
        for p in PATHS:
            steps += [req(p), req(p, headers=[("Accept-Encoding", "gzip")]),
                      req(p, method="HEAD"),
                      req(p, headers=[("Accept", "application/openmetrics-text;version=1.0.0")])]
        out = run(steps)
        for i, p in enumerate(PATHS):
            plain, gz, head, om = out[4 * i:4 * i + 4]
            for r in (plain, gz, head, om):
                self.check_wire(r)
                self.assertEqual(r.status, 200, p)
            self.assertEqual(plain.headers["Content-Type"], TEXT)
            self.assertEqual(int(plain.headers["Content-Length"]), len(plain.body))
            self.assertEqual(gz.headers["Content-Encoding"], "gzip")
            self.assertEqual(gz.text(), plain.text(), p)
            self.assertEqual(head.body, b"")
            self.assertEqual(head.headers["Content-Length"], plain.headers["Content-Length"])
            self.assertEqual(head.headers["Content-Type"], TEXT)
            self.assertEqual(om.headers["Content-Type"], OPENMETRICS)
            self.assertTrue(om.text().endswith("# EOF\n"), p)
            list(exposition.samples(plain.text()))  # parses
        by_path = {p: out[4 * i].text() for i, p in enumerate(PATHS)}
        # Slurm's own numbers for this cluster (NativeValues=yes): the same
        # lines on our per-group paths and on /metrics/soperator.
        matched = 0
        for group in ("nodes", "jobs", "partitions", "scheduler", "jobs-users-accts"):
            theirs = {s.name + s.braces: s.value for s in exposition.samples(native(group))}
            ours_group = {s.name + s.braces: s.value
                          for s in exposition.samples(by_path["/metrics/soperator/" + group])}
            ours_all = {s.name + s.braces: s.value
                        for s in exposition.samples(by_path["/metrics/soperator"])}
            for key in ('slurm_node_cpus{node="vm"}', 'slurm_jobs_running',
                        'slurm_partition_nodes{partition="debug"}', 'slurm_sdiag_jobs_submitted',
                        'slurm_user_jobs_running{username="root"}'):
                if key in theirs:
                    self.assertEqual(float(ours_group[key]), float(theirs[key]), key)
                    self.assertEqual(float(ours_all[key]), float(theirs[key]), key)
                    matched += 1
        self.assertEqual(matched, 5)
        self.assertIn("slurm_node_cpus", by_path["/metrics/soperator/nodes"])
        self.assertNotIn("slurm_jobs_running", by_path["/metrics/soperator/nodes"])
        # Soperator counts requests to its /metrics: ours is /metrics/soperator
        # (4 so far: GET, gzip, HEAD, OpenMetrics).
        self.assertRegex(by_path["/metrics/soperator/monitoring"],
                         r"(?m)^slurm_exporter_metrics_requests_total 4$")

    def test_standby_redirects_before_auth(self):
        rule = "authenticate" if ARGS.flavour == "2605" else "unauthorized"
        out = run([configure(standby=True, rule=rule, primary="ctl1", port=6817),
                   req("/metrics/soperator/jobs", query="x=1"),
                   req("/metrics/soperator", method="HEAD", https=True),
                   configure(standby=True, primary="fd00::1", port=6817),
                   req("/metrics/soperator"),
                   configure(standby=True, primary=LONG_HOST, port=6817),
                   req("/metrics/soperator/jobs-users-accts"),
                   configure(standby=True, primary=None),
                   req("/metrics/soperator"),
                   configure(standby=False, primary="ctl1"),
                   req("/metrics/soperator")])
        for r in out:
            self.check_wire(r)
        self.assertEqual(out[0].status, 303)
        self.assertEqual(out[0].headers["Location"], "http://ctl1:6817/metrics/soperator/jobs?x=1")
        self.assertEqual(out[0].body, b"")
        self.assertEqual(out[1].headers["Location"], "https://ctl1:6817/metrics/soperator")
        self.assertEqual(out[2].headers["Location"], "http://[fd00::1]:6817/metrics/soperator")
        # One byte over slurmctld's header line: Slurm would stop mid-response.
        self.assertEqual(len(f"Location: {LONG_URL}\r\n"), 80)
        self.assertEqual(out[3].status, 503)
        self.assertIn(LONG_URL.encode(), out[3].body)
        self.assertEqual(out[4].status, 503)
        self.assertEqual(out[4].body, b"slurmctld: primary mode controller address unavailable\n")
        self.assertEqual(out[5].status, 200)

    def test_access_rules(self):
        if ARGS.flavour == "2511":
            # 25.11: PrivateData set -> 401 for every /metrics/* request.
            out = run([configure(rule="unauthorized"),
                       req("/metrics/soperator"),
                       req("/metrics/soperator/monitoring",
                           headers=[("X-SLURM-USER-TOKEN", "uid=0")]),
                       configure(rule="open"),
                       req("/metrics/soperator")])
            for r in out:
                self.check_wire(r)
            self.assertEqual([r.status for r in out], [401, 401, 200])
            self.assertEqual(out[0].body, b"")
            return
        nobody, daemon = "uid=65534", "uid=1"
        out = run([configure(rule="authenticate", auth_users="bin,nobody", slurm_user_id=0),
                   req("/metrics/soperator/jobs"),
                   req("/metrics/soperator/jobs", headers=[("X-SLURM-USER-TOKEN", "garbage")]),
                   req("/metrics/soperator/jobs", headers=[("X-SLURM-USER-TOKEN", "uid=0")]),
                   req("/metrics/soperator/jobs", headers=[("X-SLURM-USER-TOKEN", nobody)]),
                   req("/metrics/soperator/jobs", headers=[("X-SLURM-USER-TOKEN", daemon)]),
                   req("/metrics/soperator/jobs",
                       headers=[("X-SLURM-USER-TOKEN", "broken-plugin")]),
                   # No MetricsAuthUsers: root and SlurmUser (here daemon) only.
                   configure(rule="authenticate", slurm_user_id=1),
                   req("/metrics/soperator/monitoring", headers=[("X-SLURM-USER-TOKEN", daemon)]),
                   req("/metrics/soperator/monitoring", headers=[("X-SLURM-USER-TOKEN", nobody)]),
                   req("/metrics/soperator/monitoring", method="HEAD",
                       headers=[("X-SLURM-USER-TOKEN", "uid=0")])])
        for r in out:
            self.check_wire(r)
        self.assertEqual([r.status for r in out], [401, 401, 200, 200, 403, 500, 200, 403, 200])
        self.assertEqual(out[0].body.decode(),
                         "slurmctld HTTP server request for 'GET /metrics/soperator/jobs':\n"
                         "Failed: Invalid authentication credential\n")
        self.assertEqual(out[4].body.decode(),
                         "slurmctld HTTP server request for 'GET /metrics/soperator/jobs':\n"
                         "Failed: Operation not permitted\n")
        self.assertIn("slurm_job_info", out[3].text())

    def test_no_empty_200_before_the_first_collection(self):
        """Before the first collection every data path answers 503 with
        Retry-After at once (this runs on slurmctld's conmgr workers: no
        wait), never an empty 200; the self-monitoring path answers; after
        the collection the bodies are there (docs/scraping.md, "Before the
        first collection")."""
        data = PATHS[:-1]
        out = run([req(p) for p in data] + [req(PATHS[-1]), {"collect": True}] +
                  [req(p) for p in data], args=["--no-collect"])
        before, monitoring, after = out[:len(data)], out[len(data)], out[len(data) + 1:]
        for p, r in zip(data, before):
            self.check_wire(r)
            self.assertEqual(r.status, 503, p)
            self.assertEqual(r.headers.get("Retry-After"), "5", p)
            self.assertNotIn("slurm_", r.text(), p)
        self.assertEqual(monitoring.status, 200)
        self.assertIn("slurm_exporter_collection_attempts_total 0", monitoring.text())
        for p, r in zip(data, after):
            self.assertEqual(r.status, 200, p)
            self.assertTrue(list(exposition.samples(r.text())), p)

    def test_slurmctlds_own_paths_fail_the_scrape_before_the_first_collection(self):
        """slurmctld's own five paths (MetricsType: parse, dump, free_set)
        can only answer 200: before the first collection the body is not
        empty (a scraper would record a successful scrape without series)
        but fails Prometheus' parser on purpose, saying why; after it, the
        bodies parse (docs/scraping.md, "Before the first collection")."""
        groups = ["nodes", "jobs", "partitions", "scheduler", "jobs-users-accts"]
        own = [{"slurmctld_path": f"/metrics/{g}"} for g in groups]
        out = run(own + [{"collect": True}] + own, args=["--no-collect"])
        before, after = out[:len(groups)], out[len(groups):]
        for g, r in zip(groups, before):
            self.assertEqual(r.status, 200, g)  # slurmctld's, whatever dump says
            self.assertIn("\n503 Service Unavailable: no collection yet: the metrics "
                          "are not ready\n", r.text(), g)
            self.assertNotIn("slurm_", r.text(), g)
            self.assertFalse(prometheus_parses(r.text()), g)
            with self.assertRaises(ValueError):
                list(exposition.samples(r.text()))
        for g, r in zip(groups, after):
            self.assertEqual(r.status, 200, g)
            self.assertTrue(list(exposition.samples(r.text())), g)
            self.assertTrue(prometheus_parses(r.text()), g)

    def test_one_render_at_a_time_on_slurmctlds_workers(self):
        """Requests for a body not cached arrive together on slurmctld's
        conmgr workers: one renders it, the others get 503 with Retry-After:
        1 at once instead of each rendering it again behind the first
        (SlurmctldRenderSlot, docs/configuration.md, "Cached bodies"). A big
        generated cluster makes the render long enough for them to meet."""
        with tempfile.TemporaryDirectory() as d:
            subprocess.run([ARGS.shim, "generate", "--nodes", "2000", "--jobs", "40000",
                            "--out", d], check=True, stderr=subprocess.DEVNULL)
            inputs = [os.path.join(d, f) for f in ("nodes.json", "jobs.json", "sdiag.json")]
            # Only the text format is rendered at each collection: the
            # first request for OpenMetrics renders it.
            om = req("/metrics/soperator", headers=[("Accept", "application/openmetrics-text")])
            n = 6
            out = run([dict(om, background=True) for _ in range(n)] +
                      [{"release": True}, om], inputs=inputs)
        together, later = out[:n], out[n]
        statuses = sorted(r.status for r in together)
        self.assertEqual(statuses.count(200), 1, statuses)
        self.assertEqual(statuses.count(503), n - 1, statuses)
        for r in together:
            self.check_wire(r)
            if r.status == 503:
                self.assertEqual(r.headers.get("Retry-After"), "1")
                self.assertEqual(r.text(), "busy: another request is being rendered on "
                                           "slurmctld's threads; try again\n")
            else:
                self.assertIn("slurm_job_info", r.text())
        # Rendered once, then kept: the next request is served from the cache.
        self.assertEqual(later.status, 200)
        self.assertEqual(later.text(), next(r for r in together if r.status == 200).text())

    def test_handler_inside_when_fini_gives_up(self):
        """A handler still inside (held in authentication) when fini() has
        waited its 10 s: the exporter it started with stays alive until it
        answers, so it answers whole, from the last bodies, and the process
        survives (a freed exporter here read freed memory)."""
        if ARGS.flavour != "2605":
            self.skipTest("only 26.05 authenticates, where the stand-in can hold a handler")
        steps = [configure(rule="authenticate"),
                 dict(req("/metrics/soperator/nodes",
                          headers=[("X-SLURM-USER-TOKEN", "hold")]), background=True),
                 {"wait_held": True}, {"fini": True}, {"release": True},
                 req("/metrics/soperator/nodes", headers=[("X-SLURM-USER-TOKEN", "uid=0")])]
        # glibc fills freed memory with 0x5a (MALLOC_PERTURB_): a handler
        # reading a freed exporter then crashes or hangs instead of reading
        # what happened to be left there.
        fini, held, after = run(steps, env={"MALLOC_PERTURB_": "165"})
        self.assertGreaterEqual(fini["fini_seconds"], 9.5, "fini() waits for the handler")
        self.assertLess(fini["fini_seconds"], 15, "but only so long")
        self.check_wire(held)
        self.assertEqual(held.status, 200)
        self.assertIn('slurm_node_cpus{node="vm"}', held.text())
        list(exposition.samples(held.text()))  # parses
        # After fini() the routes stay bound in slurmctld but answer 503.
        self.assertEqual(after.status, 503)

    def test_nothing_bound_without_http(self):
        out = run([configure(http=False), req("/metrics/soperator")])
        self.assertFalse(out[0].bound)

    def test_only_our_paths_and_methods(self):
        out = run([req("/metrics/soperator/"), req("/metrics/soperatorx"),
                   req("/metrics/soperator", method="POST")])
        self.assertEqual([r.bound for r in out], [False, False, False])


def main():
    global ARGS
    ap = argparse.ArgumentParser()
    ap.add_argument("--shim", required=True)
    ap.add_argument("--plugin", required=True)
    ap.add_argument("--router", required=True)
    ap.add_argument("--flavour", choices=["2511", "2605"], required=True)
    ap.add_argument("fixtures")
    ARGS, rest = ap.parse_known_args()
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)


if __name__ == "__main__":
    main()
