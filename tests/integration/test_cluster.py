#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The job_submit carrier inside a real slurmctld (every release in CI):
every value is checked against what the daemons report themselves
(scontrol, squeue --json, sdiag), never against our own output.

usage: test_cluster.py VERSION PLUGIN_DIR
"""

import gzip
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import (Cluster, free_port, http_get, json_number, json_state,  # noqa: E402
                     one, parse_exposition, promtool_ok, series, until_agree,
                     wait_for)

MIB = 1024 * 1024
VERSION = PLUGIN_DIR = None
TERMINAL = {"COMPLETED", "CANCELLED", "FAILED", "TIMEOUT", "NODE_FAIL",
            "PREEMPTED", "BOOT_FAIL", "DEADLINE", "OUT_OF_MEMORY"}


def state_parts(scontrol_state):
    """'MIXED+DRAIN' -> ('MIXED', {'DRAIN'}); '*' means not responding."""
    parts = scontrol_state.split("+")
    base = parts[0].rstrip("*~#!%$@^-")
    flags = set(parts[1:])
    if scontrol_state.split("+")[0].endswith("*"):
        flags.add("NOT_RESPONDING")
    return base, flags


def tres(s, key):
    for piece in (s or "").split(","):
        k, _, v = piece.partition("=")
        if k.strip() == key:
            return v.strip()
    return None


def tres_mem_bytes(s):
    v = tres(s, "mem")
    if not v:
        return None
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40, "P": 1 << 50}
    return int(v[:-1]) * units[v[-1].upper()] if v[-1].isalpha() else int(v)


class ClusterTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.c = Cluster(VERSION, PLUGIN_DIR, gpus=2, conf_extra=[
            "DefMemPerCPU=900",
            "SlurmdTimeout=10",
            # An admin DOWN must stick until resumed (2 would return it at
            # the next registration, too fast to observe).
            "ReturnToService=1",
        ])

    @classmethod
    def tearDownClass(cls):
        cls.c.cleanup()

    def scrape_checked(self, path="/metrics"):
        """Every body we look at must pass promtool."""
        status, _, body = self.c.scrape(path)
        self.assertEqual(status, 200)
        self.assertEqual(promtool_ok(body), "")
        return parse_exposition(body.decode())

    def fresh(self):
        self.c.wait_collections(2)
        return self.scrape_checked()

    def until_agree(self, what, compare, timeout=60):
        return until_agree(self, what, compare, timeout)

    # ------------------------------------------------------------------ load

    def test_01_plugin_loaded_and_serving(self):
        log = self.c.ctld_log()
        self.assertIn("soperator-metrics: metrics listener listening on", log)
        self.assertNotIn("fatal", log.lower())
        wait_for("first body", lambda: self.c.scrape()[2], timeout=30)
        status, _, body = self.c.scrape("/health")
        self.assertEqual((status, body), (200, b"healthy"))
        status, _, _ = self.c.scrape("/readyz")
        self.assertEqual(status, 200)

    def test_02_nodes_match_scontrol(self):
        expo = self.fresh()
        truth = self.c.nodes()
        self.assertEqual(sorted(truth), ["ghost1", "ghost2", "vm"])
        for name, t in truth.items():
            labels, _ = one(expo, "slurm_node_info", node_name=name)
            base, flags = state_parts(t["State"])
            self.assertEqual(labels["state_base"], base, name)
            self.assertEqual(labels["state_is_drain"], str("DRAIN" in flags).lower())
            self.assertEqual(labels["address"], t["NodeAddr"])
            self.assertEqual(one(expo, "slurm_node_cpus_total", node_name=name)[1],
                             int(t["CPUTot"]))
            self.assertEqual(one(expo, "slurm_node_cpus_effective", node_name=name)[1],
                             int(t["CPUEfctv"]))
            self.assertEqual(one(expo, "slurm_node_memory_total_bytes",
                                 node_name=name)[1], int(t["RealMemory"]) * MIB)
            parts = sorted(l["partition"] for l, _ in
                           series(expo, "slurm_node_partition", node_name=name))
            self.assertEqual(parts, sorted(t["Partitions"].split(",")), name)
        # Ghosts never registered: no free memory to report.
        self.assertEqual(series(expo, "slurm_node_memory_free_bytes", node_name="ghost1"), [])
        # No AcctGatherEnergyType: no node has a reading, so no power or
        # energy family (docs/metrics.md "Node power and energy").
        for fam in ("slurm_node_power_watts", "slurm_node_power_average_watts",
                    "slurm_node_energy_joules_total",
                    "slurm_node_energy_reading_timestamp_seconds"):
            self.assertNotIn(fam, expo)

    # ------------------------------------------------------------------ jobs

    def test_03_jobs_match_squeue(self):
        c = self.c
        out = os.path.join(c.dir, "out-%j-%u.txt")
        c.sbatch("-J", 'run "quoted"', "-o", out, "--mail-user=ops@example.org",
                                "--wrap", "sleep 600")
        c.sbatch("-J", "fails", "--wrap", "exit 3")
        c.sbatch("-J", "completes", "--wrap", "true")
        c.sbatch("-J", "array", "--array=0-2", "--wrap", "sleep 600")
        c.sbatch("-J", "held", "-H", "--wrap", "true")
        c.sbatch("-J", "bigmem", "--mem=1900", "--wrap", "true")
        wait_for("finished jobs", lambda: {json_state(j["job_state"]) for j in c.squeue_json()}
                 >= {"FAILED", "COMPLETED", "RUNNING", "PENDING"}, timeout=60)

        def compare():
            expo = self.fresh()
            return expo, self.job_mismatches(expo, c.squeue_json())
        expo = self.until_agree("our jobs to match squeue", compare)
        running = one(expo, "slurm_job_info", job_name='run "quoted"')[0]
        self.assertEqual(running["user_mail"], "ops@example.org")
        self.assertTrue(running["standard_output"].endswith(
            f"out-{running['job_id']}-root.txt"), running["standard_output"])
        held = one(expo, "slurm_job_info", job_name="held")[0]
        self.assertEqual(held["job_state_reason"], "JobHeldUser")
        meta = [l for l, _ in series(expo, "slurm_job_info", job_name="array")
                if l["job_state"] == "PENDING"]
        self.assertTrue(meta and meta[0]["array_task_id"] not in ("", "0"), meta)

    def job_mismatches(self, expo, jobs):
        """Differences between our job families and squeue's view."""
        out = []

        def eq(got, want, what):
            if got != want:
                out.append(f"{what}: ours {got!r}, daemon {want!r}")
        c = self.c
        states = {json_state(j["job_state"]) for j in jobs}
        if not {"RUNNING", "PENDING", "FAILED", "COMPLETED"} <= states:
            out.append(f"job states so far: {states}")
        for j in jobs:
            jid = str(j["job_id"])
            info = series(expo, "slurm_job_info", job_id=jid)
            if len(info) != 1:
                out.append(f"job {jid}: {len(info)} slurm_job_info series")
                continue
            labels = info[0][0]
            st = json_state(j["job_state"])
            eq(labels["job_state"], st, f"{jid} job_state")
            eq(labels["job_state_reason"], j["state_reason"], f"{jid} reason")
            eq(labels["slurm_partition"], j["partition"], f"{jid} partition")
            eq(labels["job_name"], j["name"], f"{jid} name")
            eq(labels["user_name"], j["user_name"], f"{jid} user_name")
            eq(labels["user_id"], str(j["user_id"]), f"{jid} user_id")
            eq(labels["array_job_id"], str(json_number(j["array_job_id"])),
               f"{jid} array_job_id")
            task = json_number(j.get("array_task_id"))
            eq(labels["array_task_id"],
               str(task) if task is not None else j.get("array_task_string", ""),
               f"{jid} array_task_id")
            for key in ("submit_time", "start_time", "end_time"):
                v = json_number(j[key])
                eq(labels[key], str(v) if v else "", f"{jid} {key}")
            end = json_number(j["end_time"])
            eq(labels["finished_time"], str(end) if st in TERMINAL and end else "",
               f"{jid} finished_time")
            text = c.job_text(jid)
            eq(labels["standard_output"], text.get("StdOut", ""), f"{jid} stdout")
            eq(labels["standard_error"], text.get("StdErr", ""), f"{jid} stderr")
            # Soperator's selection: allocated TRES, requested TRES, cpus.
            cpu = next((int(v) for v in (tres(j["tres_alloc_str"], "cpu"),
                                         tres(j["tres_req_str"], "cpu")) if v and int(v) > 0),
                       json_number(j["cpus"]))
            got = series(expo, "slurm_job_cpus", job_id=jid)
            eq([v for _, v in got], [cpu], f"{jid} cpus")
            mem = tres_mem_bytes(j["tres_alloc_str"]) or tres_mem_bytes(j["tres_req_str"])
            if mem:
                got = series(expo, "slurm_job_memory_bytes", job_id=jid)
                eq([v for _, v in got], [mem], f"{jid} memory")
            # One real node: a job that has nodes has exactly "vm", finished
            # jobs included (Soperator keeps their edges).
            edges = [l["node_name"] for l, _ in series(expo, "slurm_node_job", job_id=jid)]
            eq(edges, [j["nodes"]] if j.get("nodes") else [], f"{jid} edges")
            if st == "RUNNING" and not series(expo, "slurm_job_duration_seconds", job_id=jid):
                out.append(f"{jid}: running without a duration")
        return out

    def test_04_allocated_node_matches_scontrol(self):
        def compare():
            expo = self.fresh()
            t = self.c.nodes()["vm"]
            got = (one(expo, "slurm_node_info", node_name="vm")[0]["state_base"],
                   one(expo, "slurm_node_cpus_allocated", node_name="vm")[1],
                   one(expo, "slurm_node_cpus_idle", node_name="vm")[1],
                   one(expo, "slurm_node_memory_allocated_bytes", node_name="vm")[1])
            want = (state_parts(t["State"])[0], int(t["CPUAlloc"]),
                    int(t["CPUTot"]) - int(t["CPUAlloc"]), int(t["AllocMem"]) * MIB)
            return t, [f"ours {got}, scontrol {want}"] if got != want else []
        t = self.until_agree("vm to match scontrol", compare)
        self.assertGreater(int(t["CPUAlloc"]), 0)

    def test_05_down_drained_not_responding_reasons_comments(self):
        c = self.c
        c.scontrol("update", "nodename=ghost1", "state=drain", 'reason=bad "dimm" \\ slot 3')
        c.scontrol("update", "nodename=ghost2", "state=down", "reason=pulled cable")
        c.scontrol("update", "nodename=vm", 'comment=rack "A"')
        # Ghosts are flagged not responding after a ping round.
        wait_for("ghosts not responding", lambda: all(
            "NOT_RESPONDING" in state_parts(c.nodes()[g]["State"])[1]
            for g in ("ghost1", "ghost2")), timeout=90, interval=2)
        def compare():
            expo = self.fresh()
            truth = c.nodes()
            out = []
            for name in ("ghost1", "ghost2", "vm"):
                labels, _ = one(expo, "slurm_node_info", node_name=name)
                base, flags = state_parts(truth[name]["State"])
                got = (labels["state_base"], labels["state_is_not_responding"],
                       labels["state_is_drain"])
                want = (base, "true" if "NOT_RESPONDING" in flags else "",
                        str("DRAIN" in flags).lower())
                if got != want:
                    out.append(f"{name}: ours {got}, scontrol {want}")
            return expo, out
        expo = self.until_agree("node states to match scontrol", compare)
        g1 = one(expo, "slurm_node_info", node_name="ghost1")[0]
        self.assertEqual(g1["reason"], 'bad "dimm" \\ slot 3')
        self.assertEqual(g1["is_unavailable"], "true")
        g2 = one(expo, "slurm_node_info", node_name="ghost2")[0]
        self.assertEqual((g2["state_base"], g2["reason"]), ("DOWN", "pulled cable"))
        self.assertEqual(one(expo, "slurm_node_info", node_name="vm")[0]["comment"], 'rack "A"')

    def test_06_gpu_seconds_grow(self):
        # Without slurmdbd gres/gpu cannot be a TRES, so the count comes
        # from the node's Gres=gpu:2.
        self.assertIn("gpu:2", self.c.nodes()["vm"]["Gres"])
        first = sum(v for _, v in series(self.fresh(), "slurm_node_gpu_seconds_total",
                                         node_name="vm"))
        time.sleep(2)
        second = sum(v for _, v in series(self.fresh(), "slurm_node_gpu_seconds_total",
                                          node_name="vm"))
        # Two GPUs: at least 2 GPU-seconds per wall second passed.
        self.assertGreater(second - first, 3.0)

    def test_07_rpc_statistics_match_sdiag(self):
        expo = self.fresh()
        sdiag = self.c.sdiag()
        by_type = dict(re.findall(r"^\s+(\S+)\s+\(\s*\d+\) count:(\d+)", sdiag, re.M))
        ours = {l["message_type"]: v for l, v in expo["slurm_controller_rpc_calls_total"]}
        self.assertIn("REQUEST_STATS_INFO", ours)
        for mtype, count in ours.items():
            self.assertIn(mtype, by_type)
            # sdiag ran after our collection: its counts can only be higher.
            self.assertLessEqual(count, int(by_type[mtype]), mtype)
        users = {l["user"]: l["user_id"] for l, _ in
                 expo["slurm_controller_rpc_user_calls_total"]}
        self.assertEqual(users.get("root"), "0")
        # slurmctld counts its RPC threads in slurmctld_config and never lets
        # more than MAX_SERVER_THREADS (256, slurmctld.h) run; our collection
        # is in-process, so it may see 0 where sdiag's own RPC sees >= 1.
        threads = one(expo, "slurm_controller_server_thread_count")[1]
        self.assertEqual(threads, int(threads))
        self.assertTrue(0 <= threads <= 256, threads)
        self.assertIn("slurm_controller_rpc_duration_seconds_total", expo)

    def test_07b_native_paths_match_the_daemon(self):
        c = self.c

        def compare():
            c.wait_collections(2)
            nodes = parse_exposition(c.scrape("/metrics/nodes")[2].decode())
            jobs = parse_exposition(c.scrape("/metrics/jobs")[2].decode())
            ua = parse_exposition(c.scrape("/metrics/jobs-users-accts")[2].decode())
            truth = c.nodes()
            sq = c.squeue_json()
            drained = sum(1 for t in truth.values() if "DRAIN" in state_parts(t["State"])[1])
            got = {"nodes": one(nodes, "slurm_nodes")[1],
                   "drained": one(nodes, "slurm_nodes_drain")[1],
                   "running": one(jobs, "slurm_jobs_running")[1],
                   "root jobs": one(ua, "slurm_user_jobs", username="root")[1]}
            want = {"nodes": len(truth), "drained": drained,
                    "running": sum(1 for j in sq if json_state(j["job_state"]) == "RUNNING"),
                    "root jobs": len(sq)}
            for name, t in truth.items():
                got[name] = (one(nodes, "slurm_node_cpus", node=name)[1],
                             one(nodes, "slurm_node_cpus_alloc", node=name)[1],
                             one(nodes, "slurm_node_memory_bytes", node=name)[1])
                # True bytes by default (Slurm's own plugin prints MB here).
                want[name] = (int(t["CPUTot"]), int(t["CPUAlloc"]),
                              int(t["RealMemory"]) * MIB)
            return (nodes, jobs, truth), [f"{k}: ours {got[k]}, daemon {want[k]}"
                                          for k in want if got[k] != want[k]]
        nodes, jobs, truth = self.until_agree("native paths to match the daemon", compare)
        # Soperator's families share the path, untouched.
        self.assertEqual(len(series(nodes, "slurm_node_info")), len(truth))
        self.assertIn("slurm_job_info", jobs)

        parts = parse_exposition(c.scrape("/metrics/partitions")[2].decode())
        self.assertEqual(one(parts, "slurm_partitions")[1], 2)
        self.assertEqual(one(parts, "slurm_partition_nodes", partition="debug")[1], 2)
        self.assertEqual(one(parts, "slurm_partition_nodes", partition="batch")[1], 3)

        sched = parse_exposition(c.scrape("/metrics/scheduler")[2].decode())
        submitted = int(re.search(r"Jobs submitted:\s+(\d+)", c.sdiag()).group(1))
        self.assertLessEqual(one(sched, "slurm_sdiag_jobs_submitted")[1], submitted)
        self.assertGreater(one(sched, "slurm_sdiag_jobs_submitted")[1], 0)
        self.assertIn("slurm_controller_rpc_calls_total", sched)

        for path in ("/metrics/nodes", "/metrics/jobs", "/metrics/partitions",
                     "/metrics/scheduler", "/metrics/jobs-users-accts"):
            self.assertEqual(promtool_ok(c.scrape(path)[2]), "", path)

    # ------------------------------------------------------------ history

    def resume_and_settle(self, base_states=("IDLE",)):
        """Resumed nodes stay NOT_RESPONDING until their next ping: wait for
        the daemon to report the node plainly available again."""
        c = self.c
        # ReturnToService=2 may already have brought a DOWN node back.
        c.run("scontrol", "update", "nodename=vm", "state=resume", check=False)

        def settled():
            base, flags = state_parts(c.nodes()["vm"]["State"])
            return base in base_states and not flags
        wait_for("vm available", settled, timeout=90, interval=1)
        return self.fresh()

    def test_08_fails_and_duration_histograms(self):
        c = self.c
        c.run("scancel", "--user=root", check=False)
        wait_for("vm idle", lambda: state_parts(c.nodes()["vm"]["State"])[0] == "IDLE",
                 timeout=60)
        # Events before this test count too: when our first collection
        # runs before slurmd registers, vm is UNKNOWN (unavailable) and its
        # registration ends one event. Soperator counts it; so do we.
        unavailable = "slurm_node_unavailability_duration_seconds_count"
        before = sum(v for _, v in series(self.fresh(), unavailable, node_name="vm"))
        c.scontrol("update", "nodename=vm", "state=drain", "reason=maint window")
        c.wait_collections(2)
        expo = self.resume_and_settle()
        fails = series(expo, "slurm_node_fails_total", node_name="vm", reason="maint window")
        self.assertEqual([(l["state_base"], l["state_is_drain"], v) for l, v in fails],
                         [("IDLE", "true", 1.0)])
        # Resume sets NOT_RESPONDING in the same update (the node must
        # register again): DRAINED to responding is one event.
        self.assertEqual(one(expo, unavailable, node_name="vm")[1], before + 1)
        # Draining: drain a node that is running a job, then resume it.
        c.sbatch("--wrap", "sleep 600")
        wait_for("vm busy", lambda: state_parts(c.nodes()["vm"]["State"])[0]
                 in ("MIXED", "ALLOCATED"), timeout=60)
        c.wait_collections(2)
        c.scontrol("update", "nodename=vm", "state=drain", "reason=drain busy")
        c.wait_collections(2)
        expo = self.resume_and_settle(("MIXED", "ALLOCATED"))
        self.assertEqual(one(expo, "slurm_node_draining_duration_seconds_count",
                             node_name="vm")[1], 1)
        self.assertGreater(one(expo, "slurm_node_draining_duration_seconds_sum",
                               node_name="vm")[1], 0)
        # Down -> resume: another failure and another unavailability event.
        # (Resuming leaves a node NOT_RESPONDING until its next ping, which
        # Soperator's rules also count as unavailable: compare, not assume.)
        before = one(expo, unavailable, node_name="vm")[1]
        c.scontrol("update", "nodename=vm", "state=down", "reason=gone")
        wait_for("DOWN collected", lambda: one(c.expo(), "slurm_node_info", node_name="vm")
                 [0]["state_base"] == "DOWN", timeout=30, interval=0.2)
        expo = self.resume_and_settle(("IDLE", "MIXED", "ALLOCATED"))
        down = series(expo, "slurm_node_fails_total", node_name="vm", reason="gone")
        self.assertEqual([(l["state_base"], v) for l, v in down], [("DOWN", 1.0)])
        self.assertGreaterEqual(one(expo, unavailable, node_name="vm")[1], before + 1)

    # ------------------------------------------------------------- formats

    def test_09_openmetrics_gzip_and_errors(self):
        status, hdrs, body = self.c.scrape(headers={
            "Accept": "application/openmetrics-text;version=1.0.0,text/plain;q=0.5"})
        self.assertTrue(hdrs["Content-Type"].startswith("application/openmetrics-text"))
        self.assertTrue(body.endswith(b"# EOF\n"))
        status, hdrs, body = self.c.scrape(headers={"Accept-Encoding": "gzip"})
        self.assertEqual(hdrs.get("Content-Encoding"), "gzip")
        self.assertIn(b"slurm_node_info", gzip.decompress(body))
        with self.assertRaises(Exception) as ctx:
            self.c.scrape("/nope")
        self.assertIn("404", str(ctx.exception))
        mon = self.c.monitoring()
        self.assertGreater(one(mon, "slurm_exporter_metrics_requests_total")[1], 0)
        self.assertEqual(one(mon, "slurm_exporter_collection_failures_total")[1], 0)
        hold = one(mon, "slurm_exporter_controller_last_lock_hold_seconds", collector="jobs")[1]
        self.assertLess(hold, 0.5)

    # ----------------------------------------------------- reconfig/restart

    def test_10_reconfigure_and_restart_during_scrapes(self):
        c = self.c
        stop = threading.Event()
        errors, ok = [], [0]

        def scrape_loop():
            while not stop.is_set():
                try:
                    status, _, _ = c.scrape()
                    ok[0] += 1
                except Exception as e:  # noqa: BLE001
                    errors.append(str(e))  # refused while re-binding is fine
                time.sleep(0.05)

        threads = [threading.Thread(target=scrape_loop) for _ in range(4)]
        for t in threads:
            t.start()
        try:
            c.scontrol("reconfigure")
            time.sleep(3)
            self.assertTrue(c.ctld_alive(), "slurmctld died on reconfigure")
            wait_for("serving after reconfigure", lambda: c.scrape()[0] == 200, timeout=60)
            c.restart_ctld()
            self.assertTrue(c.ctld_alive(), "slurmctld died on restart")
            wait_for("serving after restart", lambda: c.scrape()[0] == 200, timeout=60)
            # Still scheduling, and we still see new jobs.
            jid = c.sbatch("-J", "after-restart", "--wrap", "true")
            wait_for("job done", lambda: json_state(next(
                (j for j in c.squeue_json() if j["job_id"] == jid), {"job_state": "GONE"})
                ["job_state"]) in ("COMPLETED", "GONE"), timeout=60)

            def seen():
                expo = self.fresh()
                return expo if series(expo, "slurm_job_info", job_id=str(jid)) else None
            expo = wait_for("job seen", seen, timeout=60)
            # Cross-scrape history lives in slurmctld's memory: test_08's
            # failure counter is gone with the old process.
            self.assertEqual(series(expo, "slurm_node_fails_total", reason="maint window"), [])
        finally:
            stop.set()
            for t in threads:
                t.join()
        self.assertGreater(ok[0], 10)
        self.assertNotIn("fatal", c.ctld_log().lower())
        self.assertNotIn("segfault", c.ctld_log().lower())

    def test_11_prometheus_scrapes_and_queries(self):
        prom = "/usr/bin/prometheus"
        if not os.path.exists(prom):
            self.skipTest("prometheus not installed")
        d = tempfile.mkdtemp(dir=self.c.dir)
        port = free_port()
        with open(os.path.join(d, "prometheus.yml"), "w") as f:
            f.write("global:\n  scrape_interval: 1s\n"
                    "scrape_configs:\n  - job_name: slurm\n    static_configs:\n"
                    f"      - targets: ['127.0.0.1:{self.c.metrics_port}']\n")
        p = subprocess.Popen([prom, f"--config.file={d}/prometheus.yml",
                              f"--storage.tsdb.path={d}/data",
                              f"--web.listen-address=127.0.0.1:{port}"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            import json
            url = (f"http://127.0.0.1:{port}/api/v1/query?query="
                   "count(slurm_node_info)")

            def answered():
                r = json.loads(http_get(url)[2])
                res = r["data"]["result"]
                return res and float(res[0]["value"][1]) == 3.0
            wait_for("prometheus answer", answered, timeout=60, interval=1)
            up = json.loads(http_get(f"http://127.0.0.1:{port}/api/v1/query?query=up")[2])
            self.assertEqual(up["data"]["result"][0]["value"][1], "1")
        finally:
            p.send_signal(signal.SIGTERM)
            p.wait(timeout=30)

    def test_12_stop_during_scrapes_is_clean(self):
        c = self.c
        stop = threading.Event()

        def scrape_loop():
            while not stop.is_set():
                try:
                    c.scrape()
                except Exception:  # noqa: BLE001
                    pass
        threads = [threading.Thread(target=scrape_loop) for _ in range(4)]
        for t in threads:
            t.start()
        t0 = time.time()
        c.stop()
        stop.set()
        for t in threads:
            t.join()
        self.assertLess(time.time() - t0, 40)
        self.assertFalse(c.ctld_alive())
        log = c.ctld_log()
        self.assertNotIn("segfault", log.lower())
        # The listener is gone with slurmctld: nothing serves the port.
        with self.assertRaises(Exception):
            http_get(c.metrics_url(), timeout=2)


if __name__ == "__main__":
    VERSION, PLUGIN_DIR = sys.argv[1], sys.argv[2]
    unittest.main(argv=[sys.argv[0], "-v"], failfast=False)
