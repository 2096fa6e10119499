#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""What a collection plus the render of the asked-for bodies costs on a
real slurmctld whose cluster does not change, with IncrementalRender=no
(every byte written and compressed again, as before) against the default
(docs/performance.md, "Render cost that follows change").

One run, one cluster: 10,000 nodes defined and never registered, 50,000
held jobs (nothing changes but the clock), our plugin at
CollectionInterval=30s, then for each setting, after a restart from the
same state:
- unasked: 60 s with no body asked for (collections only; the carrier's
  start-up bodies were dropped after 2 minutes unasked), default setting
  only: the collection's own cost;
- asked: the carrier's Soperator path asked for once, plain and gzip
  (as a Prometheus keeps it), then 60 s untouched: each collection
  renders it and its gzip form;
- scraped: 60 s with one gzip scrape every 30 s.
Prints the idle table; our threads' CPU per collection is the number to
compare (slurmctld's own idle CPU is the rest), and of it the render
thread's (renders and gzip forms; IncrementalRender changes nothing else).

    bench/render_follows_change.py --slurm-prefix /var/cache/soperator-metrics/slurm-26.05.3 \\
        --plugin build-26.05.3/plugin/slurm/metrics_soperator.so --metrics-type
    bench/render_follows_change.py --slurm-prefix /var/cache/soperator-metrics/slurm-24.11.5 \\
        --plugin build-24.11.5/plugin/slurm/job_submit_soperator.so

Needs root (job submission for other uids) and munge, as controller_bench.py.
"""

import argparse
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import controller_lib as cb  # noqa: E402

COUNTERS = {
    "families_copied": 'slurm_exporter_render_families_total{outcome="copied"}',
    "families_written": 'slurm_exporter_render_families_total{outcome="written"}',
    "pieces_copied": 'slurm_exporter_gzip_pieces_total{outcome="copied"}',
    "pieces_compressed": 'slurm_exporter_gzip_pieces_total{outcome="compressed"}',
}


def window(ctl, seconds, scrape=None, every=30):
    """slurmctld's CPU over `seconds`, with `scrape()` at the start and every
    `every` seconds if given, and what the plugin counted meanwhile."""
    m0 = ctl.monitoring()
    th0 = cb.thread_cpu(ctl.pid)
    w = cb.CpuWindow(ctl.pid)
    next_scrape = w.t0
    end = w.t0 + seconds
    scrapes = 0
    while time.monotonic() < end:
        if scrape and time.monotonic() >= next_scrape:
            scrape()
            scrapes += 1
            next_scrape += every
        time.sleep(min(0.5, max(0.0, end - time.monotonic())))
    r = w.end()
    th1 = cb.thread_cpu(ctl.pid)
    m1 = ctl.monitoring()
    # The render thread apart: what IncrementalRender changes.
    render_cpu = sum(cpu - th0.get(tid, (comm, 0.0))[1]
                     for tid, (comm, cpu) in th1.items() if comm == "sm-render")
    collections = (m1.get("slurm_exporter_collection_attempts_total", 0)
                   - m0.get("slurm_exporter_collection_attempts_total", 0))
    out = {"seconds": r["seconds"], "cpu_per_s": r["process"] / r["seconds"],
           "ours_per_s": r["ours"] / r["seconds"], "ours_cpu": r["ours"],
           "render_cpu": render_cpu,
           "collections": collections, "scrapes": scrapes, "rss": cb.rss_bytes(ctl.pid),
           "collection_s": m1.get("slurm_exporter_collection_duration_seconds"),
           "render_s": m1.get("slurm_exporter_render_duration_seconds"),
           "cached_body_bytes": m1.get("slurm_exporter_cached_body_bytes")}
    for k, name in COUNTERS.items():
        out[k] = m1.get(name, 0) - m0.get(name, 0)
    return out


def fmt(r):
    n = r["collections"] or float("nan")
    return (f"| {r['cpu_per_s'] * 1e3:.1f} ms/s | {r['ours_per_s'] * 1e3:.1f} ms/s | "
            f"{cb.fmt_ms(r['ours_cpu'] / n)} ({r['collections']:.0f}) | "
            f"{cb.fmt_ms(r['render_cpu'] / n)} | {cb.fmt_ms(r['render_s'])} | "
            f"{r['families_copied']:.0f} / {r['families_written']:.0f} | "
            f"{r['pieces_copied']:.0f} / {r['pieces_compressed']:.0f} | "
            f"{cb.fmt_bytes(r['rss'])} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--slurm-prefix", required=True)
    ap.add_argument("--plugin", required=True)
    ap.add_argument("--metrics-type", action="store_true",
                    help="MetricsType=metrics/soperator (25.11+), scraped on slurmctld's port")
    cb.cluster_args(ap, "/tmp/sm-render-follows-change")
    ap.add_argument("--listener-threads", type=int, default=4)
    ap.add_argument("--accounting", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--wait-quiet", type=float, default=10,
                    help="minutes to wait for a quiet machine first")
    ap.add_argument("--quiet-load", type=float, default=0.5)
    ap.add_argument("--json", help="also write the raw results here")
    args = ap.parse_args()

    R = cb.start_record(args)
    R["version"] = version = cb.slurm_version(args.slurm_prefix)
    name = "metrics_soperator.so" if args.metrics_type else "job_submit_soperator.so"
    plugin_so = cb.fresh_workdir(args, name)
    exe = cb.build_submitter(args.slurm_prefix)
    cb.Users(args.users, args.uid_base).ensure()
    ctl = cb.Controller(args, args.workdir, plugin_so)
    state = os.path.join(args.workdir, "state")
    saved = state + ".saved"
    subprocess.run([os.path.join(cb.ROOT, "scripts", "test-cluster.sh"), "munge"], check=True)
    cb.log(f"Slurm {version}: {args.nodes} nodes, submitting {args.jobs} held jobs")
    ctl.start(plugin=False, fresh=True)
    R["bulk_submit"] = cb.submit(exe, ctl, args, "--count", str(args.jobs), "--threads", "8")
    R["jobs"] = ctl.job_count()
    ctl.stop()
    shutil.copytree(state, saved, symlinks=True)

    if args.metrics_type:
        path = ctl.ctld_url("/metrics/soperator")
    else:
        path = ctl.url("/metrics")

    def ask(gzip):
        cb.http_get(path, headers={"Accept-Encoding": "gzip"} if gzip else None, timeout=120)

    try:
        for setting in ("no", "yes"):
            shutil.rmtree(state)
            shutil.copytree(saved, state, symlinks=True)
            ctl.metrics_type = "metrics/soperator" if args.metrics_type else None
            ctl.extra_conf = [f"IncrementalRender={setting}"]
            ctl.start(plugin=not args.metrics_type)
            ctl.wait_ready()
            started = time.monotonic()
            runs = R[setting] = {}
            if setting == "yes":
                # The start-up bodies go after 2 minutes unasked.
                time.sleep(max(0.0, started + 155 - time.monotonic()))
                cb.log(f"{setting}: unasked {args.idle_seconds} s")
                runs["unasked"] = window(ctl, args.idle_seconds)
            ask(False)
            ask(True)
            ctl.wait_collections(1)
            cb.log(f"{setting}: asked (plain and gzip), {args.idle_seconds} s")
            runs["asked"] = window(ctl, args.idle_seconds)
            cb.log(f"{setting}: a gzip scrape every 30 s, {args.idle_seconds} s")
            runs["scraped"] = window(ctl, args.idle_seconds, scrape=lambda: ask(True))
            ctl.stop()
    finally:
        ctl.stop()
    R["quiet_after"] = cb.quiet_state()
    cb.save_results(args, R)

    a = R["args"]
    print(f"Slurm {version} slurmctld, {a['nodes']:,} nodes (defined, never registered), "
          f"{R['jobs']:,} held jobs; {R['date']}, {R['machine']}; load {R['quiet_before']['load1']} "
          f"before, {R['quiet_after']['load1']} after; "
          f"{'MetricsType=metrics/soperator' if a['metrics_type'] else 'JobSubmitPlugins=soperator'}, "
          f"CollectionInterval=30s, {a['idle_seconds']} s windows")
    print()
    print("| IncrementalRender, window | slurmctld CPU | our threads | our CPU per collection "
          "(collections) | of it the render thread | last render (wall) | families copied / "
          "written | gzip pieces copied / compressed | RSS |")
    print("|---|---|---|---|---|---|---|---|---|")
    for setting in ("no", "yes"):
        for key, label in (("unasked", "nothing asked"),
                           ("asked", "asked for, plain and gzip"),
                           ("scraped", "scraped every 30 s with gzip")):
            if key in R[setting]:
                print(f"| {setting}, {label} {fmt(R[setting][key])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
