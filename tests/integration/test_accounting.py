#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The plugin inside a slurmctld that accounts to a real slurmdbd
(scripts/test-cluster.sh --accounting: MariaDB, slurmdbd, associations, QoS,
licenses, a reservation, multifactor priority, typed GPUs). Every value is
checked against what the daemons and clients report themselves: each issue
14 family equals what sshare -a -l -P, sacctmgr show qos, scontrol show
assoc_mgr flags=qos, scontrol show licenses, scontrol show reservation,
scontrol show node, sinfo, squeue and sacct print for the same moment
(retried until they agree, as the node and job checks do); every body
passes promtool. Hostile names (where Slurm lets us create them) give valid
exposition; a slurmdbd that is down never stops the collections, and
self-monitoring says what slurmctld knows about it.

usage: test_accounting.py VERSION PLUGIN_DIR
"""

import json
import math
import os
import re
import struct
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cli_oracles as cli  # noqa: E402
from harness import (TESTS, Cluster, one, parse_exposition, promtool_ok,  # noqa: E402
                     series, until_agree, wait_for)

VERSION = PLUGIN_DIR = None

# sshare -l column -> the family suffix that carries it.
SSHARE_FIELDS = {
    "FairShare": "",
    "RawShares": "_raw_shares",
    "NormShares": "_norm_shares",
    "RawUsage": "_raw_usage_cpu_seconds",
    "NormUsage": "_norm_usage",
    "EffectvUsage": "_effective_usage",
    "LevelFS": "_level_fs",
}


def as_printed(value):
    """Our value the way sshare/scontrol print a double: %f, inf."""
    return "inf" if math.isinf(value) else "%f" % value


class AccountingTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.c = Cluster(VERSION, PLUGIN_DIR, gpus="h100:1,a100:1", accounting=True,
                        conf_extra=["DefMemPerCPU=500"])
        cls.legacy = VERSION.startswith("22.")

    @classmethod
    def tearDownClass(cls):
        cls.c.cleanup()

    def scrape(self, path="/metrics"):
        status, _, body = self.c.scrape(path)
        self.assertEqual(status, 200)
        self.assertEqual(promtool_ok(body), "", path)
        return parse_exposition(body.decode())

    def body(self):
        return self.scrape()

    def run_cli(self, *args):
        return self.c.run(*args)

    # ------------------------------------------------------------ workload

    def test_01_job_of_an_association_is_exported(self):
        c = self.c
        # The cluster's own view first: the association and QoS exist.
        shares = c.run("sshare", "-a", "-P", "-n", "-o", "Account,User")
        self.assertIn("theory|nobody", shares.replace(" ", ""))
        jid = c.sbatch("--uid=nobody", "-A", "theory", "-q", "high", "-o", "/dev/null",
                       "--chdir=/tmp", "--gres=gpu:h100:1", "-L", "comsol:1",
                       "--wrap", "sleep 600")
        wait_for(f"job {jid} running", lambda: c.run(
            "squeue", "-h", "-j", str(jid), "-o", "%T").strip() == "RUNNING", timeout=60)
        c.wait_collections(2)
        labels, _ = one(self.body(), "slurm_job_info", job_id=str(jid))
        self.assertEqual((labels["user_name"], labels["job_state"]), ("nobody", "RUNNING"))

    def test_02_collections_go_on_without_slurmdbd(self):
        """A slurmdbd that is down must not stall our collector: slurmctld
        queues its messages and keeps its own state. Self-monitoring says
        when slurmctld's connection is gone, and when it is back."""
        c = self.c
        connected = lambda: one(c.monitoring(), "slurm_exporter_slurmdbd_connected")[1]
        self.assertEqual(connected(), 1)
        c.stop_dbd()
        try:
            c.wait_collections(3)
            # slurmctld notices when its agent next writes: a job start.
            jid = c.sbatch("-o", "/dev/null", "--chdir=/tmp", "--wrap", "sleep 5")
            c.wait_collections(2)
            one(self.body(), "slurm_job_info", job_id=str(jid))
            wait_for("slurm_exporter_slurmdbd_connected 0", lambda: connected() == 0,
                     timeout=90, interval=1)
            self.assertEqual(
                one(c.monitoring(), "slurm_exporter_accounting_from_state_file")[1], 0)
        finally:
            c.start_dbd()
        wait_for("sacctmgr answers again", lambda: "high" in c.run(
            "sacctmgr", "-n", "-P", "show", "qos", "format=Name", check=False), timeout=60)
        wait_for("slurm_exporter_slurmdbd_connected 1", lambda: connected() == 1,
                 timeout=90, interval=1)

    # ------------------------------------------------------------------ QoS

    def test_03_qos_equals_sacctmgr_and_assoc_mgr(self):
        c = self.c
        c.run("sacctmgr", "-i", "modify", "qos", "high", "set", "MaxWall=02:00:00",
              "GrpSubmitJobs=10", "MaxSubmitJobsPerUser=5",
              "MaxTRESPerUser=cpu=4,gres/gpu=2")
        limits = {"GrpJobs": "slurm_qos_grp_jobs_limit",
                  "GrpSubmit": "slurm_qos_grp_submit_jobs_limit",
                  "MaxJobsPU": "slurm_qos_max_jobs_per_user_limit",
                  "MaxSubmitPU": "slurm_qos_max_submit_jobs_per_user_limit"}
        used = {"GrpJobs": "slurm_qos_jobs", "GrpSubmitJobs": "slurm_qos_jobs_submitted",
                "GrpJobsAccrue": "slurm_qos_jobs_accruing"}

        def compare():
            expo = self.body()
            defs = cli.sacctmgr_qos(c.run(
                "sacctmgr", "-P", "show", "qos", "format=Name,Priority,GrpJobs,GrpSubmit,"
                "MaxJobsPU,MaxSubmitPU,MaxWall,GrpTRES,MaxTRESPU"))
            live = cli.assoc_mgr_qos(c.scontrol("show", "assoc_mgr", "flags=qos"))
            diffs = []

            def value(name, **labels):
                found = series(expo, name, **labels)
                return found[0][1] if len(found) == 1 else None

            def check(name, want, **labels):
                got = value(name, **labels)
                if got != want:
                    diffs.append(f"{name}{labels}: ours {got}, the CLI {want}")

            for q, d in defs.items():
                check("slurm_qos_priority", float(d["Priority"]), qos=q)
                for col, name in limits.items():
                    check(name, float(d[col]) if d[col] else None, qos=q)
                wall = cli.duration(d["MaxWall"])
                check("slurm_qos_max_wall_per_job_seconds",
                      float(wall) if wall is not None else None, qos=q)
                for col, name in (("GrpTRES", "slurm_qos_grp_tres_limit"),
                                  ("MaxTRESPU", "slurm_qos_max_tres_per_user_limit")):
                    want = cli.tres(d[col])
                    got = {l["tres"]: v for l, v in series(expo, name, qos=q)}
                    if got != {k: float(v) for k, v in want.items()}:
                        diffs.append(f"{name}{{qos={q}}}: ours {got}, sacctmgr {want}")
            for q, s in live.items():
                if as_printed(value("slurm_qos_usage_raw", qos=q) or 0) != "%f" % s["UsageRaw"]:
                    diffs.append(f"slurm_qos_usage_raw{{qos={q}}}: ours "
                                 f"{value('slurm_qos_usage_raw', qos=q)}, scontrol {s['UsageRaw']}")
                for col, name in used.items():
                    check(name, s[col][1], qos=q)
                for t, (_, n) in s["GrpTRES"].items():
                    check("slurm_qos_tres_used", n, qos=q, tres=t)
                for t, (_, minutes) in s["GrpTRESRunMins"].items():
                    got = value("slurm_qos_tres_run_seconds", qos=q, tres=t)
                    if got is None or int(got) // 60 != int(minutes):
                        diffs.append(f"slurm_qos_tres_run_seconds{{qos={q},tres={t}}}: "
                                     f"ours {got} s, scontrol {minutes} min")
            if set(defs) != {l["qos"] for l, _ in expo.get("slurm_qos_priority", [])}:
                diffs.append(f"QoS: ours {expo.get('slurm_qos_priority')}, sacctmgr {list(defs)}")
            return live, diffs
        live = until_agree(self, "QoS to match sacctmgr and scontrol show assoc_mgr", compare)
        # The running job of test_01 is in high: real usage was compared.
        self.assertEqual(live["high"]["GrpJobs"][1], 1)
        self.assertGreaterEqual(live["high"]["GrpTRES"]["gres/gpu"][1], 1)

    # ------------------------------------------------------------- licenses

    def test_04_licenses_equal_scontrol(self):
        def compare():
            expo = self.body()
            lics = cli.licenses(self.c.scontrol("-o", "show", "licenses"))
            diffs = []
            for name, f in lics.items():
                want = {"slurm_license_total": f["Total"], "slurm_license_used": f["Used"],
                        "slurm_license_free": f["Free"],
                        "slurm_license_reserved": f["Reserved"],
                        "slurm_license_last_consumed": f.get("LastConsumed"),
                        "slurm_license_last_deficit": f.get("LastDeficit")}
                if "LastUpdate" in f:
                    want["slurm_license_last_update_timestamp_seconds"] = cli.clock(f["LastUpdate"])
                for fam, text in want.items():
                    got = series(expo, fam, license=name)
                    got = got[0][1] if len(got) == 1 else None
                    if got != (float(text) if text is not None else None):
                        diffs.append(f"{fam}{{license={name}}}: ours {got}, scontrol {text}")
                remote = series(expo, "slurm_license_info", license=name)
                if [l["remote"] for l, _ in remote] != [f["Remote"]]:
                    diffs.append(f"slurm_license_info{{license={name}}}: {remote}, "
                                 f"scontrol Remote={f['Remote']}")
            if set(lics) != {l["license"] for l, _ in expo.get("slurm_license_total", [])}:
                diffs.append(f"licenses: ours {expo.get('slurm_license_total')}, "
                             f"scontrol {list(lics)}")
            return lics, diffs
        lics = until_agree(self, "licenses to match scontrol show licenses", compare)
        # Local and remote, in use (test_01's job) and reserved (sm_resv).
        self.assertEqual((lics["comsol"]["Used"], lics["matlab"]["Reserved"]), ("1", "1"))
        self.assertEqual(lics["fluent@flexlm"]["Remote"], "yes")

    # --------------------------------------------------------- reservations

    def test_05_reservations_equal_scontrol(self):
        def compare():
            expo = self.body()
            resvs = cli.reservations(self.c.scontrol("show", "reservation"))
            diffs = []
            for name, f in resvs.items():
                info = series(expo, "slurm_reservation_info", reservation_name=name)
                want = {"state": f["State"], "users": f["Users"], "nodes": f["Nodes"],
                        "partition": "" if f["PartitionName"] == "(null)" else f["PartitionName"],
                        "flags": f["Flags"]}
                if len(info) != 1 or any(info[0][0].get(k) != v for k, v in want.items()):
                    diffs.append(f"slurm_reservation_info{{{name}}}: ours {info}, scontrol {want}")
                for fam, text in (("slurm_reservation_start_time_seconds", cli.clock(f["StartTime"])),
                                  ("slurm_reservation_end_time_seconds", cli.clock(f["EndTime"])),
                                  ("slurm_reservation_node_count", f["NodeCnt"]),
                                  ("slurm_reservation_core_count", f["CoreCnt"])):
                    got = series(expo, fam, reservation_name=name)
                    if [v for _, v in got] != [float(text)]:
                        diffs.append(f"{fam}{{{name}}}: ours {got}, scontrol {text}")
            if set(resvs) != {l["reservation_name"] for l, _ in
                              expo.get("slurm_reservation_info", [])}:
                diffs.append(f"reservations: ours {expo.get('slurm_reservation_info')}, "
                             f"scontrol {list(resvs)}")
            return resvs, diffs
        resvs = until_agree(self, "reservations to match scontrol show reservation", compare)
        self.assertEqual(resvs["sm_resv"]["State"], "ACTIVE")

    def test_06_reservation_node_states_equal_scontrol_nodes(self):
        """SckyzO's reservation_nodes counts from scontrol show nodes -o: a
        node's ReservationName= (23.02+; on 22.05 the active reservation
        whose node list holds it) and its State= word."""
        c = self.c

        def reservation_of():
            if not self.legacy:
                return {n: f.get("ReservationName", "")
                        for n, f in cli.nodes(c.scontrol("show", "node", "-o")).items()}
            out = {}
            for name, f in cli.reservations(c.scontrol("show", "reservation")).items():
                if f["State"] != "ACTIVE":
                    continue
                for n in c.scontrol("show", "hostnames", f["Nodes"]).split():
                    out[n] = name
            return out

        def compare():
            expo = self.body()
            where = reservation_of()
            counts = {}
            for node, f in cli.nodes(c.scontrol("show", "node", "-o")).items():
                resv = where.get(node, "")
                if not resv:
                    continue
                words = f["State"].split("+")
                base, flags = words[0].rstrip("*"), set(words[1:])
                k = counts.setdefault(resv, dict.fromkeys(
                    ("alloc", "idle", "mix", "down", "drain", "planned", "other", "healthy"), 0))
                kind = {"ALLOCATED": "alloc", "IDLE": "idle", "MIXED": "mix",
                        "DOWN": "down"}.get(base, "other")
                k[kind] += 1
                if "DRAIN" in flags:
                    k["drain"] += 1
                if "PLANNED" in flags:
                    k["planned"] += 1
                if kind in ("alloc", "idle", "mix") and "DRAIN" not in flags:
                    k["healthy"] += 1
            ours = {}
            for kind in ("alloc", "idle", "mix", "down", "drain", "planned", "other", "healthy"):
                for l, v in expo.get(f"slurm_reservation_nodes_{kind}", []):
                    ours.setdefault(l["reservation"], {})[kind] = int(v)
            diffs = [] if ours == counts else [f"ours {ours}", f"scontrol {counts}"]
            return counts, diffs
        counts = until_agree(self, "reservation node states to match scontrol", compare)
        self.assertIn("sm_resv", counts)

    # ------------------------------------------------------------ node GRES

    def test_07_node_gres_equals_sinfo(self):
        def compare():
            expo = self.body()
            rows = cli.sinfo_gres(self.c.run(
                "sinfo", "-N", "-h", "-O",
                "NodeList:60,StateLong:60,Partition:60,Gres:200,GresUsed:200"))
            want = {}
            for node, state, part, gres, used in rows:
                for fam, spec in (("slurm_node_gres_total", gres), ("slurm_node_gres_used", used)):
                    for t, n in cli.gres_counts(spec).items():
                        want[(fam, node, state, part, t)] = float(n)
            ours = {}
            for fam in ("slurm_node_gres_total", "slurm_node_gres_used"):
                for l, v in expo.get(fam, []):
                    ours[(fam, l["node"], l["status"], l["partition"], l["gres_type"])] = v
            diffs = [] if ours == want else [
                f"only ours: {sorted(set(ours.items()) - set(want.items()))}",
                f"only sinfo: {sorted(set(want.items()) - set(ours.items()))}"]
            return want, diffs
        want = until_agree(self, "node GRES to match sinfo", compare)
        # test_01's job holds the h100 on vm; the a100 is free.
        used = {k[4]: v for k, v in want.items() if k[0] == "slurm_node_gres_used"}
        self.assertEqual((used["gpu:h100"], used["gpu:a100"]), (1.0, 0.0))

    # -------------------------------------------------------- pending jobs

    def test_08_pending_jobs_equal_squeue(self):
        c = self.c
        c.sbatch("--uid=nobody", "-A", "physics", "-o", "/dev/null", "--chdir=/tmp",
                 "--hold", "--wrap", "true")
        c.sbatch("-p", "debug,batch", "-w", "ghost1", "-n", "2", "-o", "/dev/null",
                 "--chdir=/tmp", "--wrap", "true")

        def compare():
            expo = self.body()
            want = cli.squeue_pending(c.run(
                "squeue", "-h", "-a", "-t", "PENDING", "-o", "%P|%T|%C|%r|%u"))
            ours = {}
            for fam, i in (("slurm_queue_pending", 0), ("slurm_cores_pending", 1)):
                for l, v in expo.get(fam, []):
                    key = (l["user"], l["partition"], l["reason"])
                    ours.setdefault(key, [0, 0])[i] = int(v)
            ours = {k: tuple(v) for k, v in ours.items()}
            diffs = [] if ours == want else [f"ours {ours}", f"squeue {want}"]
            return want, diffs
        want = until_agree(self, "pending jobs to match squeue", compare)
        users = {k[0] for k in want}
        parts = {k[1] for k in want}
        self.assertTrue({"nobody", "root"} <= users and {"debug", "batch"} <= parts, want)
        self.assertTrue(any(k[2].startswith("ReqNodeNotAvail") for k in want), want)

    # ----------------------------------------------------------- queue wait

    def test_09_queue_wait_equals_sacct(self):
        """Every job that started while the plugin ran (it started with the
        cluster, before any job) once, submit to start, by partition; sacct
        (slurmdbd) is the oracle."""
        c = self.c
        buckets = (1, 5, 10, 30, 60, 300, 600, 1800, 3600, 7200, 14400, 28800,
                   43200, 86400, 172800, 604800)

        def compare():
            expo = self.body()
            want = {}
            for line in c.run("sacct", "-X", "-n", "-P", "-a", "-o",
                              "JobID,Partition,Submit,Start,NodeList").splitlines():
                jid, part, submit, start, nodelist = line.split("|")
                s, b = cli.clock(start), cli.clock(submit)
                if s is None or nodelist in ("", "None assigned") or "_" in jid:
                    continue
                h = want.setdefault(part, {"count": 0, "sum": 0, "le": [0] * len(buckets)})
                wait = max(s - b, 0)
                h["count"] += 1
                h["sum"] += wait
                for i, bound in enumerate(buckets):
                    if wait <= bound:
                        h["le"][i] += 1
            ours = {}
            for l, v in expo.get("slurm_job_queue_wait_seconds_count", []):
                ours.setdefault(l["partition"], {})["count"] = int(v)
            for l, v in expo.get("slurm_job_queue_wait_seconds_sum", []):
                ours.setdefault(l["partition"], {})["sum"] = int(v)
            for l, v in expo.get("slurm_job_queue_wait_seconds_bucket", []):
                if l["le"] != "+Inf":
                    h = ours.setdefault(l["partition"], {})
                    h.setdefault("le", [0] * len(buckets))[
                        buckets.index(float(l["le"]))] = int(v)
            diffs = [] if ours == want else [f"ours {ours}", f"sacct {want}"]
            return want, diffs
        want = until_agree(self, "queue waits to match sacct", compare, timeout=90)
        self.assertGreaterEqual(sum(h["count"] for h in want.values()), 2)

    # ------------------------------------------------------------ fairshare

    def test_10_fairshare_equals_sshare(self):
        # Usage comes from slurmctld's decay thread, once a minute
        # (PriorityCalcPeriod=1): wait until sshare shows some.
        wait_for("sshare to show usage", lambda: any(
            r["RawUsage"] not in ("", "0") and r["User"]
            for r in cli.sshare(self.run_cli("sshare", "-a", "-l", "-P"))),
            timeout=90, interval=2)

        def compare():
            expo = self.body()
            rows = cli.sshare(self.run_cli("sshare", "-a", "-l", "-P"))
            diffs = []
            expected = {}  # (family, labels) -> printed value
            seen = set()
            for r in rows:
                if r["RawShares"] == "parent" or not r["Account"]:
                    continue
                key = (r["Account"], r["User"])
                if key in seen:  # partition associations repeat; first wins
                    continue
                seen.add(key)
                level = "user" if r["User"] else "account"
                labels = (("account", r["Account"]),) + (
                    (("user", r["User"]),) if r["User"] else ())
                for field, suffix in SSHARE_FIELDS.items():
                    if r[field] != "":
                        expected[(f"slurm_{level}_fairshare{suffix}", labels)] = r[field]
            ours = {}
            for level in ("account", "user"):
                for suffix in SSHARE_FIELDS.values():
                    name = f"slurm_{level}_fairshare{suffix}"
                    for l, v in expo.get(name, []):
                        ours[(name, tuple(sorted(l.items())))] = v
            for key, text in expected.items():
                name, labels = key
                got = ours.get((name, tuple(sorted(labels))))
                if got is None:
                    diffs.append(f"missing {name}{dict(labels)} (sshare: {text})")
                elif name.endswith("raw_shares") or name.endswith("cpu_seconds"):
                    if int(got) != int(text):
                        diffs.append(f"{name}{dict(labels)} {got} != sshare {text}")
                elif as_printed(got) != text:
                    diffs.append(f"{name}{dict(labels)} {as_printed(got)} != sshare {text}")
            for name, labels in ours:
                if (name, tuple(sorted(labels))) not in {(n, tuple(sorted(l))) for n, l in expected}:
                    diffs.append(f"extra {name}{dict(labels)}: sshare prints nothing there")
            return expected, diffs
        expected = until_agree(self, "fairshare to match sshare -a -l -P", compare)
        # The comparison covered users and accounts, and real usage.
        self.assertIn(("slurm_user_fairshare", (("account", "theory"), ("user", "nobody"))),
                      expected)
        self.assertTrue(any(n.endswith("cpu_seconds") and int(v) > 0
                            for (n, _), v in expected.items()))

    # ---------------------------------------------------------------- paths

    def test_11_each_group_on_its_path(self):
        """/metrics has every group; each /metrics/<group> path the ones it
        belongs with (docs/metrics.md), and only those."""
        groups = {
            "/metrics/jobs-users-accts": ("slurm_account_fairshare_norm_shares",
                                          "slurm_qos_priority"),
            "/metrics/scheduler": ("slurm_license_total", "slurm_reservation_info"),
            "/metrics/nodes": ("slurm_node_gres_total", "slurm_reservation_nodes_other"),
            "/metrics/jobs": ("slurm_queue_pending", "slurm_job_queue_wait_seconds_count"),
        }
        every = self.scrape("/metrics")
        for path, families in groups.items():
            body = self.scrape(path)
            for fam in families:
                self.assertIn(fam, every, "/metrics")
                self.assertIn(fam, body, path)
            for other, fams in groups.items():
                if other != path:
                    for fam in fams:
                        self.assertNotIn(fam, body, f"{fam} on {path}")

    def test_11_example_dashboard_families_are_served(self):
        """Every family docs/examples/grafana-soperator-metrics-accounting.json
        queries is in /metrics of this cluster (names as its queries spell
        them: a histogram's _bucket/_count)."""
        path = os.path.join(TESTS, "..", "docs", "examples",
                            "grafana-soperator-metrics-accounting.json")
        with open(path) as f:
            exprs = [t["expr"] for p in json.load(f)["panels"] for t in p["targets"]]
        names = sorted({m for e in exprs for m in re.findall(r"\b(slurm_[a-z0-9_]+)", e)})
        if self.legacy:  # 22.05 licenses have no LastConsumed (23.02+)
            names = [n for n in names if not n.startswith("slurm_license_last_")]
        every = self.scrape("/metrics")
        missing = [n for n in names if n not in every]
        self.assertEqual(missing, [], f"queried by the dashboard, not served: {missing}")

    # ----------------------------------------------------------- bad input

    def test_12_hostile_names_give_valid_exposition(self):
        """Names with quotes, backslashes, newlines and invalid UTF-8, where
        Slurm lets them be created (sacctmgr turns " into `; invalid UTF-8
        reaches slurmctld in reservation and remote license names): every
        body and its OpenMetrics form stay valid, and the label is the name
        slurmctld holds, escaped, invalid bytes replaced by U+FFFD. 22.05.8's
        slurmdbd crashes adding a user that is no Unix user (a segfault in
        accounting_storage_mysql.so), so there the odd user is left out."""
        c = self.c
        account, user = "back\\slash", "u\nl"
        resv_bad, resv_nl = b"r\xffx", "r\"x\\\ny"
        lic = b"l\xff\"z"
        c.run("sacctmgr", "-i", "add", "account", account)
        if not self.legacy:
            c.run("sacctmgr", "-i", "add", "user", user, f"account={account}")
        c.run("sacctmgr", "-i", "add", "qos", 'q"o\\s')
        r = subprocess.run([b"sacctmgr", b"-i", b"add", b"resource", lic, b"server=flexlm",
                            b"type=license", b"count=4", b"cluster=t" + VERSION.replace(".", "").encode(),
                            b"percentallowed=100"], env=c.env, capture_output=True, timeout=30)
        self.assertEqual(r.returncode, 0, r.stderr)
        for name in (resv_bad, resv_nl.encode()):
            r = subprocess.run([b"scontrol", b"create", b"reservation", b"ReservationName=" + name,
                                b"StartTime=now", b"Duration=60", b"Nodes=ghost1", b"Users=root",
                                b"Flags=OVERLAP"], env=c.env, capture_output=True, timeout=30)
            self.assertEqual(r.returncode, 0, r.stderr)

        def appeared():
            expo = self.body()
            accounts = {l["account"] for l, _ in expo.get("slurm_account_fairshare_norm_shares", [])}
            users = {l["user"] for l, _ in expo.get("slurm_user_fairshare_norm_shares", [])}
            resvs = {l["reservation_name"] for l, _ in expo.get("slurm_reservation_info", [])}
            lics = {l["license"] for l, _ in expo.get("slurm_license_total", [])}
            qos = {l["qos"] for l, _ in expo.get("slurm_qos_priority", [])}
            return (any("slash" in a for a in accounts)
                    and (self.legacy or user in users)
                    and "r\ufffdx" in resvs and resv_nl in resvs
                    and any(x.startswith("l\ufffd") and x.endswith("z@flexlm") for x in lics)
                    and any(q.startswith("q`o") for q in qos))
        wait_for("the hostile names in /metrics", appeared, timeout=60, interval=1)
        status, _, om = c.scrape("/metrics", {"Accept": "application/openmetrics-text"})
        self.assertEqual(status, 200)
        r = subprocess.run(["/usr/bin/python3", os.path.join(TESTS, "check_exposition.py"),
                            "openmetrics", "cat"], input=om, capture_output=True)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertGreater(one(c.monitoring(), "slurm_exporter_label_values_repaired_total")[1], 0)
        for path in ("/metrics/jobs-users-accts", "/metrics/scheduler", "/metrics/nodes"):
            self.scrape(path)  # promtool on each

    # ------------------------------------------------- slurmdbd at startup

    def test_13_started_without_slurmdbd(self):
        """slurmctld restarted while slurmdbd is down runs on its saved
        association state: we keep collecting, say so, and say when it has
        reloaded from slurmdbd. The last decay time is the one its decay
        thread wrote."""
        c = self.c
        gauge = lambda name: one(c.monitoring(), name)[1]
        c.stop_dbd()
        try:
            c.restart_ctld()
            wait_for("running on the saved association state",
                     lambda: gauge("slurm_exporter_accounting_from_state_file") == 1,
                     timeout=60, interval=1)
            c.wait_collections(3)
            self.assertIn("theory", {l["account"] for l, _ in
                                     self.body().get("slurm_account_fairshare_norm_shares", [])})
        finally:
            c.start_dbd()
        wait_for("association state reloaded from slurmdbd",
                 lambda: gauge("slurm_exporter_accounting_from_state_file") == 0,
                 timeout=120, interval=1)
        self.assertEqual(gauge("slurm_exporter_slurmdbd_connected"), 1)
        with open(os.path.join(c.cdir, "state", "priority_last_decay_ran"), "rb") as f:
            last_ran = struct.unpack(">q", f.read(8))[0]
        wait_for("the decay time slurmctld saved", lambda: gauge(
            "slurm_exporter_fairshare_last_decay_timestamp_seconds") >= last_ran,
            timeout=30, interval=1)
        self.assertLessEqual(gauge("slurm_exporter_fairshare_last_decay_timestamp_seconds"),
                             time.time())


if __name__ == "__main__":
    VERSION, PLUGIN_DIR = sys.argv[1], sys.argv[2]
    unittest.main(argv=[sys.argv[0], "-v"], failfast=False)
