#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Scale benchmark on a real slurmctld (docs/performance.md).

Starts a loopback Slurm 24.11.5 controller with 10,000 nodes defined but
never registered (no slurmd), our plugin loaded as JobSubmitPlugins,
submits 50,000 held jobs of 25 users through the C API, and measures in one
run: our lock hold per collection and which locks (the plugin's gauges and
uprobes), the waits we impose on slurmctld's other threads (uprobes on
lock_slurmctld/unlock_slurmctld), collection and render time, scrape latency
under 16 concurrent wrk scrapers, slurmctld CPU per minute with and without
the plugin, the paths we replace (squeue --json, scontrol show nodes --json,
sdiag --json, squeue), submit latency quiet and under monitoring, and memory.
Prints one table; see docs/performance.md.

    bench/controller_bench.py                     # full size, ~15 minutes
    bench/controller_bench.py --quick             # 1,000 nodes, 5,000 jobs
    bench/controller_bench.py --metrics-type --slurm-prefix PREFIX \
        --plugin BUILD/plugin/slurm/metrics_soperator.so   # Slurm 25.11+

--metrics-type measures slurmctld's own port instead (metrics/openmetrics
against metrics/soperator, bench/ctld_paths.py), on a Slurm 25.11 or later
installed under PREFIX (~30 minutes).

Needs root (tracefs, job submission for other uids), Slurm 24.11.5 built by
SM_SLURM_CFLAGS=configure scripts/slurm-build.sh (configure's -O1, not the
tests' -O0), the plugin built in build-24.11.5, wrk and cc.
"""

import argparse
import contextlib
import hashlib
import os
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from controller_lib import (  # noqa: E402
    Accounting,
    CACHE,
    Controller,
    GaugeSampler,
    LockTracer,
    ROOT,
    Users,
    Wrk,
    accounting_locks,
    analyse_locks,
    build_submitter,
    cluster_args,
    curl_scrape,
    fmt_bytes,
    fmt_ms,
    fresh_workdir,
    http_get,
    idle_window,
    log,
    median,
    overlap,
    path_locks,
    quiet_state,
    rss_bytes,
    run_path,
    run_wrk,
    save_results,
    start_record,
    submit,
    union,
    wait_quiet,
)


def report(R):
    a = R["args"]
    lines = []
    add = lines.append
    qb, qa = R["quiet_before"], R["quiet_after"]
    add(f"Slurm 24.11.5 slurmctld, {a['nodes']:,} nodes (defined, never registered), "
        f"{R['jobs_at_measure']:,} held jobs of {a['users']} users; {R['date']}, "
        f"{R['machine']}; load average {qb['load1']} before, {qa['load1']} after"
        + (f"; foreign processes: {' '.join(qb['busy'])}" if qb["busy"] else
           "; no other Slurm daemons or compilers"))
    add("")
    add("| path | wall | slurmctld CPU | controller lock held |")
    add("|---|---|---|---|")
    g5 = R["gauges_5s"]
    L = R["locks"]["idle"]
    hold_u = L["hold_per_collection_union"]
    cpu5 = R["cpu"]["5s"]
    per_coll = cpu5["ours_per_min"] / 12  # collections per minute at 5 s
    add(f"| **ours: one collection (nodes, jobs, diag) and render of /metrics**, off-lock | "
        f"{fmt_ms(g5['collection']['median'])} + {fmt_ms(g5['render']['median'])} "
        f"(max {fmt_ms(g5['collection_plus_render']['max'])}) | {fmt_ms(per_coll)} | "
        f"{fmt_ms(hold_u['median'])} (max {fmt_ms(hold_u['max'])}), read locks only |")
    if R.get("gauges_all"):
        ga = R["gauges_all"]
        add(f"| ours: the same, rendering every family (/metrics + the 5 native paths) | "
            f"{fmt_ms(ga['collection']['median'])} + {fmt_ms(ga['render']['median'])} "
            f"(max {fmt_ms(ga['collection_plus_render']['max'])}) | – | same |")
    for key, label in (("plain", "plain"), ("gzip", "gzip")):
        s = R["scrape_single"][key]
        w = R["wrk"][key]
        p = R["wrk"][f"paced_{key}"]
        add(f"| **ours: scrape /metrics from the cache, {label}** ({fmt_bytes(s['bytes'])}) | "
            f"{fmt_ms(s['median'])} alone; 16 scrapers each every {a['pace_ms'] / 1000:g} s: "
            f"p50 {fmt_ms(p['p50'])}, p99 {fmt_ms(p['p99'])}, max {fmt_ms(p['max'])}; "
            f"16 back to back: p50 {fmt_ms(w['p50'])}, p99 {fmt_ms(w['p99'])}, "
            f"max {fmt_ms(w['max'])} | {fmt_ms(w['ours_cpu_per_request'])} | none |")
    for p in R["paths"]:
        lk = p.get("locks")
        lk_text = f"{fmt_ms(lk['max_hold'])} ({lk['locks']})" if lk else "none"
        extra = f", {fmt_bytes(p['bytes'])}"
        if p.get("client_rss"):
            extra += f", {fmt_bytes(p['client_rss'])} client RSS"
        if p["timed_out"]:
            extra += ", **killed at the timeout**"
        add(f"| `{p['name']}` | {fmt_ms(p['wall'])}{extra} | {fmt_ms(p['workers_cpu'])} "
            f"(~{fmt_ms(p['ctld_cpu'])} process) | {lk_text} |")
    add("")
    add("| measurement | value |")
    add("|---|---|")
    add(f"| our lock hold per collection, plugin gauges (5 s interval, {g5['n']} collections, idle) | "
        f"jobs: median {fmt_ms(g5['hold_jobs']['median'])}, max {fmt_ms(g5['hold_jobs']['max'])}; "
        f"nodes: median {fmt_ms(g5['hold_nodes']['median'])}, max {fmt_ms(g5['hold_nodes']['max'])}; "
        f"our wait: max {fmt_ms(max(g5['wait_jobs']['max'] or 0, g5['wait_nodes']['max'] or 0))} |")
    for name, label in (("idle", "idle"), ("scrapers", "16 scrapers"),
                        ("submits", "submits, collector only"),
                        ("submits_scrapers", "submits + 16 gzip scrapers")):
        L = R["locks"].get(name)
        if not L:
            continue
        u = L["hold_per_collection_union"]
        by = "; ".join(f"{k}: median {fmt_ms(v['median'])}, max {fmt_ms(v['max'])}"
                       for k, v in sorted(L["hold_by_locks"].items()))
        imp = L["imposed"]
        worst = imp["worst"]
        add(f"| uprobes, {label}: our holds ({L['collections']} collections, "
            f"{L['our_write_locks']} write locks) | per collection (union) median {fmt_ms(u['median'])}, "
            f"max {fmt_ms(u['max'])}; {by} |")
        add(f"| uprobes, {label}: write-lock waits of other threads while we held a lock | {imp['n']}"
            + (f": blocked by us at most {fmt_ms(imp['max_blocked'])} ({worst['comm']}, "
               f"{worst['locks']}; its whole wait {fmt_ms(worst['wait'])}), "
               f"p99 {fmt_ms(imp['p99_blocked'])}; longest whole wait {fmt_ms(imp['max_wait'])}"
               if worst else "")
            + f"; all waits of other threads: {L['other_lock_uses']} lock uses, "
            f"max {fmt_ms(L['other_waits_all']['max'])}, p99 {fmt_ms(L['other_waits_all']['p99'])} |")
    add(f"| collection wall (gauge) | median {fmt_ms(g5['collection']['median'])}, "
        f"max {fmt_ms(g5['collection']['max'])} (jobs {fmt_ms(g5['collector_jobs']['median'])}, "
        f"nodes {fmt_ms(g5['collector_nodes']['median'])}, diag {fmt_ms(g5['collector_diag']['median'])}) |")
    add(f"| render wall (gauge) | /metrics: median {fmt_ms(g5['render']['median'])}, "
        f"max {fmt_ms(g5['render']['max'])}"
        + (f"; every family: median {fmt_ms(R['gauges_all']['render']['median'])}, "
           f"max {fmt_ms(R['gauges_all']['render']['max'])}" if R.get("gauges_all") else "") + " |")
    c = R["cpu"]
    add(f"| slurmctld CPU per minute, idle ({a['idle_seconds']} s windows) | without plugin "
        f"{c['none']['process_per_min']:.2f} s; plugin at 30 s {c['30s']['process_per_min']:.2f} s "
        f"(our threads {c['30s']['ours_per_min']:.2f} s); at 5 s {c['5s']['process_per_min']:.2f} s "
        f"(our threads {c['5s']['ours_per_min']:.2f} s) |")
    for key, label in (("plain", "plain, back to back"), ("gzip", "gzip, back to back"),
                       ("paced_plain", f"plain, each every {a['pace_ms']} ms"),
                       ("paced_gzip", f"gzip, each every {a['pace_ms']} ms")):
        w = R["wrk"][key]
        secs = w["duration_us"] / 1e6
        add(f"| 16 scrapers, {label}, {secs:.0f} s | {w['requests']} scrapes "
            f"({w['requests'] / secs:.0f}/s, {w['errors']} errors), {fmt_bytes(w['bytes'] / secs)}/s; "
            f"CPU: our listener {w['ours_cpu']:.1f} s, wrk {w['client_cpu']:.1f} s |")
    q = R["submit_quiet"]["latency_ms"]
    for key, label in (("submit_collector", "collector at 5 s"),
                       ("submit_loaded", "collector at 5 s + 16 gzip scrapers")):
        s = R[key]["latency_ms"]
        add(f"| submit latency, {label} | median {s['median']:.2f} ms ({s['median'] / q['median']:.2f}× quiet), "
            f"p99 {s['p99']:.2f} ms ({s['p99'] / q['p99']:.2f}×), max {s['max']:.2f} ms |")
    add(f"| submit latency, quiet (no plugin), {a['submit_rate']:g}/s for {a['submit_seconds']} s | "
        f"median {q['median']:.2f} ms, p99 {q['p99']:.2f} ms, max {q['max']:.2f} ms |")
    bulk = R["bulk_submit"]
    add(f"| bulk submit of {bulk['submitted']:,} held jobs (8 threads, plugin at 30 s) | "
        f"{bulk['seconds']:.0f} s, {bulk['rate']:.0f} jobs/s |")
    m = R["memory"]
    d0 = m["rss_with"] - m["rss_without"]
    d1 = m["rss_with_after_scrapes"] - m["rss_without"]
    add(f"| memory: slurmctld RSS with − without plugin | {fmt_bytes(d0)} idle "
        f"({fmt_bytes(m['rss_with'])} − {fmt_bytes(m['rss_without'])}, both restarted from the same "
        f"state), {fmt_bytes(d1)} after the 16-scraper runs = {d0 / m['body_plain']:.2f}× / {d1 / m['body_plain']:.2f}× the plain body |")
    add(f"| rendered /metrics body | {fmt_bytes(m['body_plain'])} plain, {fmt_bytes(m['body_gzip'])} gzip, "
        f"{R['series']:,} series |")
    if R.get("accounting"):
        lines += report_accounting(R)
    return "\n".join(lines)


def report_accounting(R):
    """--accounting: per sub-collector, what it held of slurmctld's and
    assoc_mgr's locks (uprobes, all of phase B), the plugin's gauge, and
    the write-lock waits of other threads while it held them."""
    A, g5 = R["accounting"], R["gauges_5s"]
    ld, rv = A["load"], A["reservations"]
    every = A["locks"]["all"]
    out = ["", f"Accounting: slurmdbd with {ld['associations']:,} associations ({ld['accounts']} "
           f"accounts, {ld['users']:,} users), {ld['qos']} QoS besides normal, loaded by "
           f"{ld['commands']} sacctmgr commands in {ld['seconds']:.0f} s; {rv['count']} reservations "
           f"({rv['seconds']:.1f} s); 4 local licenses and 1 remote; {A.get('updates', 0)} fairshare "
           "updates pushed from slurmdbd in the dbd_updates window. uprobes over all of phase B "
           "(idle, scrapers, submits, updates, every family):", "",
           "| sub-collector | lock it takes (uprobes) | our holds: n, median, max | plugin gauge: "
           "hold median, max | write-lock waits of other threads while it held that lock |",
           "|---|---|---|---|---|"]
    order = ["associations", "qos", "licenses", "reservations", "accounting", "nodes", "jobs", "diag", "?"]
    for sub in sorted(every["subs"], key=lambda x: order.index(x) if x in order else 99):
        gh = g5.get(f"hold_{sub}")
        gauge = (f"{fmt_ms(gh['median'])}, {fmt_ms(gh['max'])}" if gh and gh["median"] is not None
                 else "–")
        for kind, L in sorted(every["subs"][sub].items()):
            w = L["imposed"]["worst"]
            out.append(f"| {sub if sub != '?' else 'none (the collection itself)'} | {kind}: "
                       f"{'; '.join(L['locks'])} | {L['n']}, {fmt_ms(L['median'])}, "
                       f"{fmt_ms(L['max'])} | {gauge} | {L['imposed']['n']}"
                       + (f": blocked by it at most {fmt_ms(w['overlap'])} ({w['comm']}, {w['locks']}; "
                          f"its whole wait {fmt_ms(w['wait'])})" if w else "") + " |")
            gauge = "(the same gauge)"
    ours = [L for S in every["subs"].values() for L in S.values()]
    writes = sum(1 for L in ours for t in L["locks"] if "**W**" in t)
    worst = max((L["imposed"]["max_blocked"] for L in ours), default=0.0)
    out += ["", f"Bounds (all of phase B): our lock uses that take a write lock: "
            f"{writes}; longest write-lock wait of another thread while we held that lock: "
            f"{fmt_ms(worst)} (bound 10 ms): "
            + ("**met**" if writes == 0 and worst <= 0.010 else "**not met**")]
    out += ["", "| window | assoc_mgr: other threads' lock uses, max wait | their write locks: "
            "thread (locks): n, max wait, max hold | longest write wait imposed by our "
            "assoc_mgr holds |", "|---|---|---|---|"]
    for name, L in A["locks"].items():
        o = L["assoc_others"]
        writes = "; ".join(f"{k}: {v['n']}, {fmt_ms(v['max_wait'])}, {fmt_ms(v['max_hold'])}"
                           for k, v in sorted(o["writes"].items(), key=lambda kv: -kv[1]["n"]))
        worst = max((S["assoc_mgr"]["imposed"]["max_blocked"] for S in L["subs"].values()
                     if "assoc_mgr" in S), default=0.0)
        out.append(f"| {name} | {o['n']}, {fmt_ms(o['max_wait'])} | {writes or 'none'} | "
                   f"{fmt_ms(worst)} |")
    return out


# ------------------------------------------------------------------- main

def on_term(signum, frame):
    raise KeyboardInterrupt


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--slurm-prefix", default=os.path.join(CACHE, "slurm-24.11.5"))
    ap.add_argument("--plugin", default=os.path.join(ROOT, "build-24.11.5", "plugin", "slurm",
                                                     "job_submit_soperator.so"))
    cluster_args(ap, "/tmp/sm-controller-bench")
    ap.add_argument("--settle-seconds", type=int, default=30,
                    help="wait after each (re)start before measuring")
    ap.add_argument("--submit-rate", type=float, default=20)
    ap.add_argument("--submit-seconds", type=int, default=60)
    ap.add_argument("--wrk-seconds", type=int, default=30)
    ap.add_argument("--scrapers", type=int, default=16)
    ap.add_argument("--pace-ms", type=int, default=1000,
                    help="interval of each paced scraper")
    ap.add_argument("--listener-threads", type=int, default=4,
                    help="ListenerThreads of the plugin (default: its default, 4)")
    ap.add_argument("--path-timeout", type=int, default=900,
                    help="seconds before a replaced path (squeue --json) is killed")
    ap.add_argument("--wait-quiet", type=float, default=30,
                    help="minutes to wait for load < --quiet-load and no foreign slurm/compilers")
    ap.add_argument("--quiet-load", type=float, default=0.5)
    ap.add_argument("--quick", action="store_true",
                    help="1,000 nodes, 5,000 jobs, short phases (development)")
    ap.add_argument("--json", help="also write the raw results here")
    ap.add_argument("--metrics-type", action="store_true",
                    help="Slurm 25.11+: slurmctld's own port with metrics/openmetrics and "
                         "metrics/soperator (bench/ctld_paths.py); --slurm-prefix names the "
                         "install, --plugin its metrics_soperator.so")
    ap.add_argument("--overlap-seconds", type=int, default=60,
                    help="--metrics-type: collector at 5 s against back-to-back /metrics/jobs")
    ap.add_argument("--accounting", action="store_true",
                    help="the same cluster with MariaDB and a real slurmdbd "
                         "(scripts/test-cluster.sh start-accounting), priority/multifactor, "
                         "associations, QoS, licenses and reservations; adds uprobes on "
                         "assoc_mgr_lock/unlock and on our sub-collectors")
    ap.add_argument("--accounts", type=int, default=100, help="--accounting: accounts under root")
    ap.add_argument("--assoc-users", type=int, default=1000,
                    help="--accounting: users with an association, spread over the accounts "
                         "(besides the --users that submit)")
    ap.add_argument("--qos", type=int, default=20, help="--accounting: QoS besides normal")
    ap.add_argument("--reservations", type=int, default=6, help="--accounting: reservations")
    args = ap.parse_args()
    if args.quick:
        args.accounts, args.assoc_users = 20, 200
        args.nodes, args.jobs = 1000, 5000
        args.idle_seconds, args.submit_seconds, args.wrk_seconds = 15, 15, 5
        args.settle_seconds, args.wait_quiet = 5, 0
        args.overlap_seconds = 15
    if os.geteuid() != 0:
        sys.exit("controller_bench.py needs root (tracefs, submitting as other uids)")
    for tool in ("wrk", "cc", "curl", "nm", "readelf", "useradd"):
        if not shutil.which(tool):
            sys.exit(f"missing {tool}")
    if not os.path.exists(os.path.join(args.slurm_prefix, "sbin", "slurmctld")):
        sys.exit(f"no Slurm in {args.slurm_prefix}: run SM_SLURM_CFLAGS=configure scripts/slurm-build.sh 24.11.5")
    if not os.path.exists(args.plugin):
        sys.exit(f"no plugin at {args.plugin}: build build-24.11.5 first")
    if args.metrics_type:
        if args.accounting:
            sys.exit("--accounting measures the job_submit plugin, not --metrics-type")
        if not os.path.basename(args.plugin).startswith("metrics_"):
            sys.exit("--metrics-type needs --plugin .../metrics_soperator.so")
        import ctld_paths
        signal.signal(signal.SIGTERM, on_term)
        print(ctld_paths.report(ctld_paths.run(args)))
        return

    R = start_record(args)
    if args.accounting and os.path.exists(os.path.join(args.workdir, "env.sh")):
        # A MariaDB and slurmdbd an interrupted run left behind.
        subprocess.run([os.path.join(ROOT, "scripts", "test-cluster.sh"), "stop", args.workdir],
                       stdout=subprocess.DEVNULL)
    plugin_so = fresh_workdir(args, "job_submit_soperator.so")
    with open(plugin_so, "rb") as f:
        R["plugin_sha256"] = hashlib.sha256(f.read()).hexdigest()[:16]
    exe = build_submitter(args.slurm_prefix)
    users = Users(args.users, args.uid_base)
    ctl = Controller(args, args.workdir, plugin_so)
    acct = Accounting(args, ctl) if args.accounting else None
    tracer = LockTracer(os.path.join(args.slurm_prefix, "sbin", "slurmctld"),
                        os.path.join(args.workdir, "trace.txt"),
                        libslurmfull=(os.path.join(args.slurm_prefix, "lib", "slurm", "libslurmfull.so")
                                      if acct else None),
                        plugin=plugin_so if acct else None)
    wrk = Wrk(args.workdir)
    background = []
    windows = {}
    R["cpu"] = {}
    mem = R["memory"] = {}

    signal.signal(signal.SIGTERM, on_term)

    def settle(since):
        left = since + args.settle_seconds - time.monotonic()
        if left > 0:
            time.sleep(left)

    try:
        users.ensure()
        subprocess.run([os.path.join(ROOT, "scripts", "test-cluster.sh"), "munge"], check=True)
        if acct:
            log("accounting: MariaDB, slurmdbd, then sacctmgr")
            ctl.write_conf(True, "30s")  # sacctmgr reads slurm.conf
            acct.start()
            R["accounting"] = {"load": acct.load()}
            ld = R["accounting"]["load"]
            log(f"accounting: {ld['associations']} associations ({ld['commands']} sacctmgr "
                f"commands) in {ld['seconds']:.0f} s")
        # ------------------------------------------------ A: fresh, 30 s
        log(f"A: fresh slurmctld, {args.nodes} nodes, plugin at CollectionInterval=30s")
        ctl.start(plugin=True, interval="30s", fresh=True)
        if acct:
            R["accounting"]["reservations"] = acct.reservations()
        log(f"A: submitting {args.jobs} held jobs")
        R["bulk_submit"] = submit(exe, ctl, args, "--count", str(args.jobs), "--threads", "8")
        log(f"A: {R['bulk_submit']['rate']:.0f} jobs/s")
        t_submitted = time.monotonic()
        ctl.wait_collections(1, timeout=120)
        # Ask for plain and gzip once: both are then rendered (and
        # compressed) after every collection, as with Prometheus scraping.
        _, body = http_get(ctl.url(), timeout=120)
        R["series"] = sum(1 for ln in body.split(b"\n") if ln and not ln.startswith(b"#"))
        http_get(ctl.url(), headers={"Accept-Encoding": "gzip"}, timeout=120)
        R["jobs_at_measure"] = ctl.job_count()
        log(f"A: {R['jobs_at_measure']} jobs, /metrics {len(body)} bytes, {R['series']} series")
        del body
        settle(t_submitted)
        log(f"A: idle CPU over {args.idle_seconds} s")
        R["cpu"]["30s"] = idle_window(ctl, args.idle_seconds)
        # The paths we replace, with uprobes for their lock holds.
        tracer.setup()
        R["paths"] = []
        for name, argv in (
                ("squeue", [ctl.bin("squeue")]),
                ("sdiag --json", [ctl.bin("sdiag"), "--json"]),
                ("scontrol show nodes --json", [ctl.bin("scontrol"), "show", "nodes", "--json"]),
                ("squeue --json", [ctl.bin("squeue"), "--json"])):
            R["paths"].append(run_path(ctl, name, argv, args.path_timeout,
                                       R["cpu"]["30s"]["process_per_min"]))
            time.sleep(2)
        tracer.stop()
        uses, _ = tracer.parse(ctl.pid)
        for p in R["paths"]:
            p["locks"] = path_locks(uses, p["t0"], p["t1"])
        ctl.stop()
        # B and C start from this very state (50,000 jobs), so that their
        # memory compares like with like.
        state = os.path.join(ctl.dir, "state")
        shutil.copytree(state, state + ".A", symlinks=True)

        # ---------------------------------------- B: restart, 5 s interval
        log("B: restart with the plugin at CollectionInterval=5s")
        ctl.start(plugin=True, interval="5s")
        t_started = time.monotonic()
        http_get(ctl.url(), timeout=120)
        http_get(ctl.url(), headers={"Accept-Encoding": "gzip"}, timeout=120)
        settle(t_started)
        gs = GaugeSampler(ctl)
        tracer.setup()
        log(f"B: idle CPU and gauges over {args.idle_seconds} s")
        R["cpu"]["5s"] = idle_window(ctl, args.idle_seconds, gs)
        windows["idle"] = (R["cpu"]["5s"]["t0"], R["cpu"]["5s"]["t1"])
        R["gauges_5s"] = gs.summary()
        mem["rss_with"] = rss_bytes(ctl.pid)
        R["scrape_single"] = {"plain": curl_scrape(ctl.url(), False),
                              "gzip": curl_scrape(ctl.url(), True)}
        mem["body_plain"] = R["scrape_single"]["plain"]["bytes"]
        mem["body_gzip"] = R["scrape_single"]["gzip"]["bytes"]
        R["wrk"] = {}
        for key, gz in (("plain", False), ("gzip", True)):
            log(f"B: wrk, {args.scrapers} connections, {key}, {args.wrk_seconds} s")
            R["wrk"][key] = run_wrk(wrk, ctl, args.scrapers, args.wrk_seconds, gz)
        for key, gz in (("plain", False), ("gzip", True)):
            log(f"B: wrk, {args.scrapers} connections each scraping every "
                f"{args.pace_ms} ms, {key}, {args.wrk_seconds} s")
            R["wrk"][f"paced_{key}"] = run_wrk(wrk, ctl, args.scrapers, args.wrk_seconds, gz,
                                              args.pace_ms)
        mem["rss_with_after_scrapes"] = rss_bytes(ctl.pid)
        windows["scrapers"] = (R["wrk"]["plain"]["t0"], R["wrk"]["gzip"]["t1"])
        log(f"B: submits at {args.submit_rate:g}/s for {args.submit_seconds} s, collector only")
        t0 = time.monotonic()
        R["submit_collector"] = submit(exe, ctl, args, "--rate", str(args.submit_rate),
                                       "--duration", str(args.submit_seconds), "--name", "collector")
        windows["submits"] = (t0, time.monotonic())
        log(f"B: submits at {args.submit_rate:g}/s for {args.submit_seconds} s "
            f"under {args.scrapers} gzip scrapers")
        load = subprocess.Popen(wrk.cmd(ctl.url(), args.scrapers, args.submit_seconds + 6, True),
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        background.append(load)
        time.sleep(3)
        t0 = time.monotonic()
        R["submit_loaded"] = submit(exe, ctl, args, "--rate", str(args.submit_rate),
                                    "--duration", str(args.submit_seconds), "--name", "loaded")
        windows["submits_scrapers"] = (t0, time.monotonic())
        load_out, _ = load.communicate()
        background.remove(load)
        R["wrk"]["during_submits"] = Wrk.result(load_out)
        if acct:
            log(f"B: fairshare updates from slurmdbd for {args.idle_seconds} s")
            t0 = time.monotonic()
            R["accounting"]["updates"] = acct.updates(args.idle_seconds)
            windows["dbd_updates"] = (t0, time.monotonic())
        # Every family: ask for the five native paths too, then watch six
        # more collections.
        for path in ("/metrics/nodes", "/metrics/jobs", "/metrics/partitions",
                     "/metrics/scheduler", "/metrics/jobs-users-accts"):
            http_get(ctl.url(path), timeout=120)
        ctl.wait_collections(1, timeout=120)
        gs.reset()
        gs.watch(6 * 5 + 2)
        R["gauges_all"] = gs.summary()
        t_traced = time.monotonic()
        tracer.stop()
        uses, foreign = tracer.parse(ctl.pid)
        R["trace_foreign_events"] = foreign
        R["locks"] = {k: analyse_locks(uses, t0, t1) for k, (t0, t1) in windows.items()}
        if acct:
            auses, subs = tracer.parse_accounting(ctl.pid)
            spans = dict(windows, all=(windows["idle"][0], t_traced))
            R["accounting"]["locks"] = {k: accounting_locks(uses, auses, subs, t0, t1)
                                        for k, (t0, t1) in spans.items()}
        ctl.stop()

        # -------------------------------------------- C: without the plugin
        log("C: restart without the plugin, from the state B started from")
        shutil.rmtree(state)
        os.rename(state + ".A", state)
        ctl.start(plugin=False)
        settle(time.monotonic())
        log(f"C: idle CPU over {args.idle_seconds} s")
        R["cpu"]["none"] = idle_window(ctl, args.idle_seconds)
        mem["rss_without"] = rss_bytes(ctl.pid)
        log(f"C: quiet submits at {args.submit_rate:g}/s for {args.submit_seconds} s")
        R["submit_quiet"] = submit(exe, ctl, args, "--rate", str(args.submit_rate),
                                   "--duration", str(args.submit_seconds), "--name", "quiet")
        ctl.stop()
        R["quiet_after"] = quiet_state()
    finally:
        for p in background:
            with contextlib.suppress(Exception):
                p.kill()
                p.wait()
        tracer.stop()
        ctl.stop()
        if acct:
            acct.stop()
        users.remove()
    save_results(args, R)
    print(report(R))


if __name__ == "__main__":
    main()
