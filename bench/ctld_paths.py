# SPDX-License-Identifier: GPL-2.0-or-later
"""controller_bench.py --metrics-type: slurmctld's own port (Slurm 25.11+).

One controller (10,000 never-registered nodes, 50,000 held jobs of 25
users), its state saved once, then started from that state three times:

  native:  MetricsType=metrics/openmetrics (Slurm's plugin)
  ours:    MetricsType=metrics/soperator, CollectionInterval=30s
  overlap: MetricsType=metrics/soperator, CollectionInterval=5s, while one
           client scrapes slurmctld's /metrics/jobs back to back

and measures per scrape of each path on slurmctld's port (12 scrapes, one
at a time): wall time, the controller locks the request path took
(uprobes: lock uses of slurmctld's worker threads during the scrape), and
slurmctld's CPU beyond its idle rate; idle CPU and RSS; job submission
latency (20 submits/s for 60 s) quiet and while one client scrapes a path
back to back; and in the overlap run, our collector's hold as its gauge
reports it against the uprobe trace, and how much of each hold of ours a
native walk did not explain.
"""

import os
import re
import shutil
import statistics
import subprocess
import threading
import time

import controller_lib as cb

NATIVE_PATHS = ["/metrics/jobs", "/metrics/partitions", "/metrics/jobs-users-accts",
                "/metrics/nodes", "/metrics/scheduler"]
OUR_PATHS = ["/metrics/soperator", "/metrics/soperator/jobs"]
SCRAPES = 12


def scrape_series(url, n, gzip=False):
    """n sequential scrapes: [(t0, t1, status, bytes)] on CLOCK_MONOTONIC."""
    headers = {"Accept-Encoding": "gzip"} if gzip else {}
    out = []
    for _ in range(n):
        t0 = time.monotonic()
        try:
            status, body = cb.http_get(url, headers=headers, timeout=120)
        except Exception as e:  # noqa: BLE001 - an HTTP error is a result too
            status, body = getattr(e, "code", 0), b""
        out.append((t0, time.monotonic(), status, len(body)))
    return out


# slurmctld's agent (agent.c: _agent_defer() inlined into _agent_init())
# runs on the same conmgr "worker" threads as requests and takes the job
# write lock every few seconds: not part of any scrape.
BACKGROUND = {"_agent_defer", "_agent_init"}


class Callers:
    """The function a lock_slurmctld() call returned into: the return
    probe's address, less the process's load base, through addr2line (the
    innermost inlined function first; binutils, like nm)."""

    def __init__(self, binary):
        self.binary = binary
        nm = subprocess.run(["nm", "-D", "--defined-only", binary],
                            capture_output=True, text=True, check=True).stdout
        self.lock = next(int(p[0], 16) for p in (ln.split() for ln in nm.splitlines())
                         if len(p) == 3 and p[2] == "lock_slurmctld")
        self.names = {}

    def offset(self, u):
        return u["ret"] - (u["func"] - self.lock) if "ret" in u else None

    def resolve(self, uses):
        offs = sorted({o for o in map(self.offset, uses) if o is not None} - set(self.names))
        if not offs:
            return
        out = subprocess.run(["addr2line", "-a", "-f", "-i", "-e", self.binary]
                             + [hex(o) for o in offs],
                             capture_output=True, text=True).stdout.splitlines()
        cur = None
        for line in out:
            if line.startswith("0x"):
                cur = int(line, 16)
                self.names[cur] = []
            elif cur is not None and not line.startswith(("/", "??:")) and ":" not in line:
                self.names[cur].append(line)

    def chain(self, u):
        return self.names.get(self.offset(u), [])

    def name(self, u):
        c = self.chain(u)
        return c[0] if c else "?"

    def background(self, u):
        return bool(BACKGROUND.intersection(self.chain(u)))


def worker_locks(uses, t0, t1):
    """slurmctld's worker threads' lock uses that started within [t0, t1]:
    a scrape's request path and, on the same threads, slurmctld's agent
    (told apart by the caller, Callers.background)."""
    return [u for u in uses if t0 <= u["t_req"] <= t1 and u["comm"].startswith("worker")]


def path_result(uses, scrapes, cpu, idle_per_s, callers):
    per_hold, per_calls, kinds, agent = [], [], {}, 0
    callers.resolve(uses)
    for t0, t1, _, _ in scrapes:
        lk = worker_locks(uses, t0, t1)
        agent += sum(1 for u in lk if callers.background(u))
        lk = [u for u in lk if not callers.background(u)]
        per_calls.append(len(lk))
        per_hold.append(sum(e - s for s, e in cb.union([(u["t_acq"], u["t_rel"]) for u in lk])))
        for u in lk:
            k = f"{cb.lock_text(u['locks'])} in `{callers.name(u)}`"
            kinds[k] = kinds.get(k, 0) + 1
    walls = [t1 - t0 for t0, t1, _, _ in scrapes]
    extra_cpu = max(0.0, cpu["process"] - idle_per_s * cpu["seconds"])
    return {"wall": statistics.median(walls), "wall_max": max(walls),
            "hold": statistics.median(per_hold), "hold_max": max(per_hold),
            "lock_calls": sum(per_calls), "locks": kinds, "agent_locks": agent,
            "cpu_per_scrape": extra_cpu / len(scrapes),
            "status": sorted({s for _, _, s, _ in scrapes}),
            "bytes": scrapes[-1][3]}


def measure_paths(ctl, tracer, callers, paths, idle_per_s, gzip_too=()):
    """Each path SCRAPES times under uprobes; -> {label: result}."""
    tracer.setup()
    runs = []
    for p in paths:
        for gz in ([False, True] if p in gzip_too else [False]):
            label = p + (" (gzip)" if gz else "")
            cb.log(f"  {label}: {SCRAPES} scrapes")
            w = cb.CpuWindow(ctl.pid)
            s = scrape_series(ctl.ctld_url(p), SCRAPES, gz)
            runs.append((label, s, w.end()))
            time.sleep(1)
    tracer.stop()
    uses, _ = tracer.parse(ctl.pid)
    return {label: path_result(uses, s, cpu, idle_per_s, callers) for label, s, cpu in runs}


def submit_under(exe, ctl, args, url, name, gzip=False):
    """Submit latency while one client scrapes `url` back to back (wrk -c 1);
    url None: quiet."""
    load = None
    if url:
        c = ["wrk", "-t", "1", "-c", "1", "-d", f"{args.submit_seconds + 8}s",
             "--timeout", "120s"]
        if gzip:
            c += ["-H", "Accept-Encoding: gzip"]
        load = subprocess.Popen(c + [url], stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, text=True)
        time.sleep(3)
    try:
        res = cb.submit(exe, ctl, args, "--rate", str(args.submit_rate),
                        "--duration", str(args.submit_seconds), "--name", name)
    finally:
        if load:
            out, _ = load.communicate()
            m = re.search(r"(\d+) requests in", out)
            res["scrapes"] = int(m.group(1)) if m else None
    return res


def idle(ctl, seconds, ours=False):
    """slurmctld's CPU and RSS with no scrapes; with our plugin also the
    collections in the window and what the last one cost (its gauges)."""
    a0 = ctl.attempts() if ours else None
    w = cb.idle_window(ctl, seconds)
    r = {"cpu_per_s": w["process"] / w["seconds"], "ours_per_s": w["ours"] / w["seconds"],
         "ours_cpu": w["ours"], "seconds": w["seconds"], "rss": cb.rss_bytes(ctl.pid)}
    if ours:
        m = ctl.monitoring()
        r["collections"] = m.get("slurm_exporter_collection_attempts_total", 0) - a0
        r["collection_s"] = m.get("slurm_exporter_collection_duration_seconds")
        r["render_s"] = m.get("slurm_exporter_render_duration_seconds")
        r["cached_body_bytes"] = m.get("slurm_exporter_cached_body_bytes")
    return r


# Seconds between the last release of one collection's job slices and the
# first request of the next: far below the 5 s interval of the overlap run,
# far above the microseconds between two slices of one collection.
TICK_GAP = 0.5


def pair_with_gauge(ticks, sampler, key):
    """Each traced collection (its holds) with the gauge of the same
    collection: the first monitoring sample taken after its last release
    (the sampler polls every 0.5 s; a collection ends within a tick)."""
    seen = sorted((t, a) for a, t in sampler.first_seen.items())
    pairs = []
    for tick in ticks:
        end = max(u["t_rel"] for u in tick)
        after = [a for t, a in seen if t >= end]
        if after and key in sampler.by_attempt[after[0]]:
            pairs.append((sum(u["t_rel"] - u["t_acq"] for u in tick),
                          sampler.by_attempt[after[0]][key]))
    return pairs


def overlap_check(uses, gauges, t0, t1, sampler=None, callers=None):
    """Our holds (sm-* threads) against native walks (worker threads holding
    the job lock, slurmctld's agent aside) and against our gauges."""
    ours = [u for u in uses if t0 <= u["t_req"] <= t1 and cb.is_ours(u["comm"])]
    if callers:
        callers.resolve(uses)
    native = cb.union([(u["t_acq"], u["t_rel"]) for u in uses
                       if t0 <= u["t_req"] <= t1 and u["comm"].startswith("worker")
                       and u["locks"][1] > 0 and not (callers and callers.background(u))])
    starts = [s for s, _ in native]
    excess = []
    for u in ours:
        hold = u["t_rel"] - u["t_acq"]
        # The part of our hold a native walk explains: while we held the
        # read locks, a worker held them too, walking job_list.
        covered = cb.overlap(u["t_acq"], u["t_rel"], native, starts)
        excess.append(max(0.0, hold - covered))
    # The job copy is the hold with the federation lock (the node copy
    # takes conf, job, node and part only); all our workers are sm-collector.
    jobs_threads = [u for u in ours if len(u["locks"]) > 4 and u["locks"][4] > 0]
    # One collection's slices follow each other at once: the next lock is
    # requested as soon as the last one is released (the wait for it, behind
    # a writer queued on a native walk, can last a second, so acquisitions
    # are no guide). Collections are an interval apart: a request more than
    # TICK_GAP after the previous release starts the next one. (Grouping by
    # "less than 2 s since the first hold" split collections longer than 2 s
    # and paired the wrong gauges, 9 of 15 in run 2.)
    ticks, cur = [], []
    for u in sorted(jobs_threads, key=lambda u: u["t_req"]):
        if cur and u["t_req"] - cur[-1]["t_rel"] > TICK_GAP:
            ticks.append(cur)
            cur = []
        cur.append(u)
    if cur:
        ticks.append(cur)
    trace_holds = [sum(u["t_rel"] - u["t_acq"] for u in t) for t in ticks]
    longest = max(ours, key=lambda u: u["t_rel"] - u["t_acq"], default=None)
    pairs = pair_with_gauge(ticks, sampler, cb.GaugeSampler.KEYS["hold_jobs"]) if sampler else []
    return {"paired": [{"trace": tr, "gauge": g} for tr, g in pairs],
            "our_lock_uses": len(ours), "native_walks": len(native),
            "max_hold": (longest["t_rel"] - longest["t_acq"]) if longest else None,
            "max_excess": max(excess, default=0.0),
            "trace_jobs_hold": {"median": cb.median(trace_holds), "max": max(trace_holds, default=None)},
            "gauge_jobs_hold": gauges["hold_jobs"],
            "gauge_jobs_list_wait": gauges.get("list_wait_jobs")}


class LoadSampler:
    """The 1-minute load average every 15 s while the run lasts: the machine
    is shared, and the numbers are only comparable within one run."""

    def __init__(self):
        self.samples, self.stop = [], threading.Event()
        self.thread = threading.Thread(target=self._loop, daemon=True)

    def _loop(self):
        while not self.stop.wait(15):
            self.samples.append(round(os.getloadavg()[0], 2))

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join()

    def summary(self):
        s = self.samples
        return {"n": len(s), "min": min(s, default=None), "max": max(s, default=None),
                "median": statistics.median(s) if s else None}


def run(args):
    prefix = args.slurm_prefix
    version = cb.slurm_version(prefix)
    R = cb.start_record(args)
    R["version"] = version
    plugin_so = cb.fresh_workdir(args, "metrics_soperator.so")
    exe = cb.build_submitter(prefix)
    users = cb.Users(args.users, args.uid_base)
    ctl = cb.Controller(args, args.workdir, plugin_so)
    tracer = cb.LockTracer(os.path.join(prefix, "sbin", "slurmctld"),
                           os.path.join(args.workdir, "trace.txt"),
                           select_node=version >= "26.05")
    callers = Callers(os.path.join(prefix, "sbin", "slurmctld"))
    state = os.path.join(args.workdir, "state")
    saved = state + ".saved"

    def restart(metrics_type, interval):
        if os.path.exists(state):
            shutil.rmtree(state)
        shutil.copytree(saved, state, symlinks=True)
        ctl.metrics_type = metrics_type
        ctl.start(plugin=False, interval=interval)
        t = time.monotonic()
        if metrics_type == "metrics/soperator":
            ctl.wait_ready()
        left = t + args.settle_seconds - time.monotonic()
        if left > 0:
            time.sleep(left)
        return t

    load_sampler = LoadSampler().__enter__()
    try:
        users.ensure()
        subprocess.run([os.path.join(cb.ROOT, "scripts", "test-cluster.sh"), "munge"], check=True)
        cb.log(f"Slurm {version}: fresh slurmctld, {args.nodes} nodes; submitting {args.jobs} held jobs")
        ctl.metrics_type = None
        ctl.start(plugin=False, fresh=True)
        R["bulk_submit"] = cb.submit(exe, ctl, args, "--count", str(args.jobs), "--threads", "8")
        R["jobs_at_measure"] = ctl.job_count()
        ctl.stop()
        shutil.copytree(state, saved, symlinks=True)

        for key, mtype, interval in (("native", "metrics/openmetrics", "30s"),
                                     ("ours", "metrics/soperator", "30s")):
            cb.log(f"{key}: MetricsType={mtype}")
            started = restart(mtype, interval)
            run_r = R[key] = {}
            ours = mtype == "metrics/soperator"
            if ours:
                # Nothing asked for: collections only, no body rendered
                # (986ee8a) once the carrier's paths, warm from the start,
                # went unasked for 2 minutes and a collection dropped them;
                # then what a Prometheus scraping /metrics/soperator asks
                # for, rendered after every collection.
                left = started + 120 + 35 - time.monotonic()
                if left > 0:
                    time.sleep(left)
                cb.log(f"{key}: idle {args.idle_seconds} s, no body asked for")
                run_r["idle_unasked"] = idle(ctl, args.idle_seconds, ours=True)
                cb.http_get(ctl.ctld_url("/metrics/soperator"), timeout=120)
                cb.http_get(ctl.ctld_url("/metrics/soperator"),
                            headers={"Accept-Encoding": "gzip"}, timeout=120)
            cb.log(f"{key}: idle {args.idle_seconds} s")
            run_r["idle"] = idle(ctl, args.idle_seconds, ours=ours)
            paths = NATIVE_PATHS + (OUR_PATHS if mtype == "metrics/soperator" else [])
            run_r["paths"] = measure_paths(ctl, tracer, callers, paths, run_r["idle"]["cpu_per_s"],
                                           gzip_too=("/metrics/soperator",))
            run_r["rss_after_scrapes"] = cb.rss_bytes(ctl.pid)
            cb.log(f"{key}: submits, quiet")
            run_r["submit_quiet"] = submit_under(exe, ctl, args, None, f"{key}-quiet")
            # /metrics/scheduler (8 kB, no lock, nothing of ours to copy)
            # is the floor: what slurmctld's own HTTP server costs the
            # submits when one client keeps it busy, whatever the body.
            loads = [("/metrics/scheduler", False), ("/metrics/jobs", False),
                     ("/metrics/jobs-users-accts", False)]
            if mtype == "metrics/soperator":
                loads += [("/metrics/soperator", False), ("/metrics/soperator", True)]
            run_r["submit_under"] = {}
            for p, gz in loads:
                label = p + (" (gzip)" if gz else "")
                cb.log(f"{key}: submits while {label} is scraped back to back")
                run_r["submit_under"][label] = submit_under(
                    exe, ctl, args, ctl.ctld_url(p), f"{key}-{p.rsplit('/', 1)[-1]}", gz)
            ctl.stop()

        cb.log("overlap: MetricsType=metrics/soperator at 5 s while /metrics/jobs is scraped")
        restart("metrics/soperator", "5s")
        gs = cb.GaugeSampler(ctl)
        tracer.setup()
        load = subprocess.Popen(["wrk", "-t", "1", "-c", "1", "-d", f"{args.overlap_seconds}s",
                                 "--timeout", "120s", ctl.ctld_url("/metrics/jobs")],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        t0 = time.monotonic()
        gs.watch(args.overlap_seconds)
        t1 = time.monotonic()
        load.wait()
        tracer.stop()
        uses, _ = tracer.parse(ctl.pid)
        R["overlap"] = overlap_check(uses, gs.summary(), t0, t1, gs, callers)
        ctl.stop()
        R["quiet_after"] = cb.quiet_state()
    finally:
        load_sampler.__exit__()
        R["load_during"] = load_sampler.summary()
        tracer.stop()
        ctl.stop()
        users.remove()
    cb.save_results(args, R)
    return R


def report(R):
    a = R["args"]
    lines = []
    add = lines.append
    qb, qa = R["quiet_before"], R["quiet_after"]
    add(f"Slurm {R['version']} slurmctld, {a['nodes']:,} nodes (defined, never registered), "
        f"{R['jobs_at_measure']:,} held jobs of {a['users']} users; {R['date']}, {R['machine']}; "
        f"load average {qb['load1']} before, {qa['load1']} after"
        + (f" (during the run, every 15 s: median {R['load_during']['median']}, "
           f"min {R['load_during']['min']}, max {R['load_during']['max']})"
           if R.get("load_during", {}).get("n") else "")
        + (f"; foreign processes: {' '.join(qb['busy'])}" if qb["busy"] else ""))
    add("")
    add(f"Per scrape of slurmctld's port ({SCRAPES} scrapes each, one at a time; median):")
    add("")
    add("| path | `metrics/openmetrics`: wall / lock held / slurmctld CPU | "
        "`metrics/soperator`: wall / lock held / slurmctld CPU | request-path locks (ours) |")
    add("|---|---|---|---|")
    nat, our = R["native"]["paths"], R["ours"]["paths"]
    for p in list(our):
        n = nat.get(p)
        o = our[p]
        ncell = (f"{cb.fmt_ms(n['wall'])} / {cb.fmt_ms(n['hold'])} / {cb.fmt_ms(n['cpu_per_scrape'])}"
                 if n else "—")
        ocell = f"{cb.fmt_ms(o['wall'])} / {cb.fmt_ms(o['hold'])} / {cb.fmt_ms(o['cpu_per_scrape'])}"
        locks = "; ".join(f"{k} ×{v}" for k, v in sorted(o["locks"].items())) or "none"
        agent = (f"; besides, {o['agent_locks']} of slurmctld's agent (`_agent_defer`) on the "
                 "same worker threads" if o.get("agent_locks") else "")
        add(f"| `{p}` ({cb.fmt_bytes(o['bytes'])}) | {ncell} | {ocell} | "
            f"{o['lock_calls']} `lock_slurmctld` calls in {SCRAPES} scrapes: {locks}{agent} |")
    add("")
    add("| submit latency, 20/s for 60 s | `metrics/openmetrics` | `metrics/soperator` |")
    add("|---|---|---|")

    def lat(res, quiet):
        lm = res["latency_ms"]
        return (f"median {lm['median']:.1f} ms ({lm['median'] / quiet['latency_ms']['median']:.2f}× quiet), "
                f"p99 {lm['p99']:.0f} ms")
    nq, oq = R["native"]["submit_quiet"], R["ours"]["submit_quiet"]
    add(f"| quiet | median {nq['latency_ms']['median']:.1f} ms, p99 {nq['latency_ms']['p99']:.0f} ms | "
        f"median {oq['latency_ms']['median']:.1f} ms, p99 {oq['latency_ms']['p99']:.0f} ms |")
    for label in R["ours"]["submit_under"]:
        n = R["native"]["submit_under"].get(label)
        o = R["ours"]["submit_under"][label]
        add(f"| one client scraping `{label}` back to back | "
            f"{lat(n, nq) if n else '—'} | {lat(o, oq)} |")
    add("")
    ni, oi = R["native"]["idle"], R["ours"]["idle"]
    ou = R["ours"].get("idle_unasked")

    def ours_idle(r):
        per = (f", {cb.fmt_ms(r['ours_cpu'] / r['collections'])} of our threads' CPU per "
               f"collection ({r['collections']} collections)" if r.get("collections") else "")
        return (f"{r['cpu_per_s'] * 1e3:.1f} ms/s (our threads {r['ours_per_s'] * 1e3:.1f} ms/s"
                f"{per}; last collection {cb.fmt_ms(r.get('collection_s'))}, render "
                f"{cb.fmt_ms(r.get('render_s'))}, bodies kept {cb.fmt_bytes(r.get('cached_body_bytes'))})"
                f", RSS {cb.fmt_bytes(r['rss'])}")
    add(f"Idle ({a['idle_seconds']} s, no scrapes): slurmctld CPU {ni['cpu_per_s'] * 1e3:.1f} ms/s "
        f"native, RSS {cb.fmt_bytes(ni['rss'])}; ours at CollectionInterval=30s"
        + (f", before any body was asked for: {ours_idle(ou)}" if ou else "")
        + f"; after /metrics/soperator was asked for (plain and gzip): {ours_idle(oi)}; "
        f"RSS {cb.fmt_bytes(R['ours']['rss_after_scrapes'])} after the scrapes.")
    o = R["overlap"]
    g, t = o["gauge_jobs_hold"], o["trace_jobs_hold"]
    add("")
    add(f"Our collector at 5 s while `/metrics/jobs` is scraped back to back "
        f"({a['overlap_seconds']} s): jobs hold per collection, gauge median "
        f"{cb.fmt_ms(g['median'])} / max {cb.fmt_ms(g['max'])}, uprobes median "
        f"{cb.fmt_ms(t['median'])} / max {cb.fmt_ms(t['max'])}; {o['our_lock_uses']} holds of ours, "
        f"longest {cb.fmt_ms(o['max_hold'])}, at most {cb.fmt_ms(o['max_excess'])} of a hold not "
        f"spent behind a native walk ({o['native_walks']} native walks)"
        + (f"; job_list wait (gauge) max {cb.fmt_ms(o['gauge_jobs_list_wait']['max'])}"
           if o.get("gauge_jobs_list_wait") and o["gauge_jobs_list_wait"].get("max") is not None
           else "") + ".")
    if o.get("paired"):
        d = [abs(p["gauge"] - p["trace"]) for p in o["paired"]]
        add(f"The same collections paired ({len(d)}, {sum(x <= 0.010 for x in d)} within 10 ms): "
            f"gauge − uprobes differs by median "
            f"{cb.fmt_ms(statistics.median(d))}, max {cb.fmt_ms(max(d))} "
            f"(largest hold {cb.fmt_ms(max(p['trace'] for p in o['paired']))}).")
    return "\n".join(lines)
