#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A render that follows change gives the bytes of a full render, and real
gzip readers read its gzip forms (docs/performance.md, "Render cost that
follows change").

usage: incremental_render.py --shim SHIM --plugin SO

A generated cluster (300 nodes, 3,000 jobs) goes through a scenario of
eight steps, 30 s apart: unchanged but for the clock, jobs renamed,
removed and added, nodes drained, every job gone, all back. Each step's
/metrics, /metrics/jobs and /metrics/nodes are fetched, plain and with
Accept-Encoding: gzip (the shim's --gzip-dir), in text and OpenMetrics.
Oracles:
- the same scenario under IncrementalRender=no: every body byte for byte;
- each gzip body, read by Python's gzip module, GNU gzip and curl
  --compressed (served by a loopback HTTP server with Content-Encoding:
  gzip), is the plain body of the same fetch;
- a real Prometheus and a real VictoriaMetrics scrape the last step's
  gzip /metrics (most of its pieces copied) from that server: up is 1 and
  the samples scraped are the plain body's sample lines;
- the plugin's own counters say families were copied and gzip pieces
  reused (so the comparison above compared copies, not fresh writes).
"""
import argparse
import copy
import gzip
import http.server
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "scripts", "lib"))
from loopback import free_port  # noqa: E402

PATHS = ["/metrics", "/metrics/jobs", "/metrics/nodes"]


def scenario_steps(gen):
    """Eight steps over the generated dumps; writes the changed dumps."""
    with open(os.path.join(gen, "jobs.json")) as f:
        jobs = json.load(f)
    with open(os.path.join(gen, "nodes.json")) as f:
        nodes = json.load(f)

    changed = copy.deepcopy(jobs)
    kept = []
    for i, j in enumerate(changed["jobs"]):
        if i % 97 == 5:
            continue                        # removed
        if i % 41 == 3:
            j["name"] = f"renamed-{i} \"quoted\""
        kept.append(j)
    for k in range(40):                     # added, new ids
        j = copy.deepcopy(changed["jobs"][k])
        j["job_id"] = 900000 + k
        kept.append(j)
    changed["jobs"] = kept
    drained = copy.deepcopy(nodes)
    for i, n in enumerate(drained["nodes"]):
        if i % 23 == 0:
            n["state"] = sorted(set(n["state"]) | {"DRAIN"})
            n["reason"] = "maintenance\nwindow"
    for name, doc in (("jobs-changed.json", changed), ("nodes-drained.json", drained)):
        with open(os.path.join(gen, name), "w") as f:
            json.dump(doc, f)

    base = ["gen/nodes.json", "gen/jobs.json", "gen/sdiag.json"]
    fetch = {"fetch": PATHS}
    return [
        {"name": "first", "files": base, **fetch},
        {"name": "clock only", **fetch},
        {"name": "clock only again", **fetch},
        {"name": "jobs changed", "files": ["gen/jobs-changed.json"], **fetch},
        {"name": "nodes drained", "files": ["gen/nodes-drained.json"], **fetch},
        {"name": "no jobs", "drop": ["jobs"], **fetch},
        {"name": "all back", "files": base, **fetch},
        {"name": "unchanged", **fetch},
    ]


def play(a, tmp, scenario, conf_lines, openmetrics, tag):
    """Runs the scenario; returns (bodies in output order, gzip files)."""
    conf = os.path.join(tmp, f"{tag}.conf")
    with open(conf, "w") as f:
        f.write("".join(line + "\n" for line in conf_lines))
    gzdir = os.path.join(tmp, f"{tag}.gz")
    os.mkdir(gzdir)
    argv = [a.shim, "scenario", "--plugin", a.plugin, "--conf", conf, "--gzip-dir", gzdir,
            "-vv"]
    if openmetrics:
        argv.append("--openmetrics")
    r = subprocess.run(argv + [scenario], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=600)
    if r.returncode:
        sys.stderr.write(r.stderr.decode(errors="replace")[-3000:])
        raise SystemExit(f"FAIL: {tag}: the shim exited {r.returncode}")
    bodies = re.split(rb"^# ==> .* <==\n", r.stdout, flags=re.M)[1:]
    files = [os.path.join(gzdir, f"{i + 1}.gz") for i in range(len(bodies))]
    # The collector's debug line per render pass: groups of families taken
    # whole from the bodies replaced (render/group_reuse.h, GroupReuse).
    taken = [int(n) for n in re.findall(
        rb"render: (\d+) group\(s\) of families taken", r.stderr)]
    # A fallback to a full render keeps the bytes right but means a key said
    # a body held what it did not: not expected on any step here.
    if b"could not be taken" in r.stderr:
        raise SystemExit(f"FAIL: {tag}: a render fell back to building every group "
                         "(render/endpoint_render.cc, RenderEndpoint)")
    return bodies, files, taken


class GzipServer:
    """Serves one file at a time with Content-Encoding: gzip, on loopback."""

    def __init__(self):
        self.payload = b""
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 (http.server's name)
                self.send_response(200)
                self.send_header("Content-Type", "text/plain; version=0.0.4")
                self.send_header("Content-Encoding", "gzip")
                self.send_header("Content-Length", str(len(outer.payload)))
                self.end_headers()
                self.wfile.write(outer.payload)

            def log_message(self, *args):
                pass

        self.httpd = http.server.HTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def url(self):
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/metrics"

    def stop(self):
        self.httpd.shutdown()


def readers(raw, server):
    """What each reader makes of one gzip body: {reader: bytes}."""
    out = {"python gzip": gzip.decompress(raw)}
    out["gzip -dc"] = subprocess.run(["gzip", "-dc"], input=raw, stdout=subprocess.PIPE,
                                     check=True, timeout=60).stdout
    server.payload = raw
    out["curl --compressed"] = subprocess.run(
        ["curl", "-sS", "--compressed", "--max-time", "30", server.url()],
        stdout=subprocess.PIPE, check=True, timeout=60).stdout
    return out


def scraped(tool, server, tmp):
    """(up, samples scraped) of `tool` scraping the server once a second,
    or the reason it could not tell within 60 s."""
    port = free_port()
    data = tempfile.mkdtemp(prefix=tool + "-", dir=tmp)
    config = os.path.join(data, "scrape.yml")
    target = urllib.parse.urlsplit(server.url()).netloc
    with open(config, "w") as f:
        f.write("global: {scrape_interval: 1s}\nscrape_configs:\n"
                f"  - job_name: gz\n    static_configs: [{{targets: ['{target}']}}]\n")
    if tool == "prometheus":
        argv = ["/usr/bin/prometheus", f"--config.file={config}",
                f"--storage.tsdb.path={data}/tsdb", f"--web.listen-address=127.0.0.1:{port}"]
    else:
        argv = ["/usr/bin/victoria-metrics", f"-promscrape.config={config}",
                f"-storageDataPath={data}/tsdb", f"-httpListenAddr=127.0.0.1:{port}",
                "-search.latencyOffset=1s", "-search.disableCache"]
    with open(os.path.join(data, "log"), "w") as log:
        p = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            time.sleep(1)
            if p.poll() is not None:
                return f"{tool} exited {p.returncode}"
            got = {}
            for q in ('up{job="gz"}', 'scrape_samples_scraped{job="gz"}'):
                url = f"http://127.0.0.1:{port}/api/v1/query?query=" + urllib.parse.quote(q)
                try:
                    with urllib.request.urlopen(url, timeout=5) as r:
                        res = json.load(r)["data"]["result"]
                except OSError:
                    res = []
                if res:
                    got[q] = float(res[0]["value"][1])
            if len(got) == 2 and got['up{job="gz"}'] == 1:
                return 1, int(got['scrape_samples_scraped{job="gz"}'])
        return f"{tool}: no successful scrape within 60 s"
    finally:
        p.terminate()
        try:
            p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def counter(body, name, outcome):
    m = re.search(rb"^" + name.encode() + rb'\{outcome="' + outcome.encode() + rb'"\} (\S+)$',
                  body, flags=re.M)
    return float(m.group(1)) if m else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shim", required=True)
    ap.add_argument("--plugin", required=True)
    a = ap.parse_args()
    problems = []
    server = GzipServer()
    try:
        with tempfile.TemporaryDirectory(prefix="shim-incremental.") as tmp:
            gen = os.path.join(tmp, "gen")
            subprocess.run([a.shim, "generate", "--nodes", "300", "--jobs", "3000",
                            "--seed", "5", "--out", gen], check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            steps = scenario_steps(gen)
            # The last step also fetches the self-monitoring body.
            steps[-1]["fetch"] = PATHS + ["/monitoring"]
            scenario = os.path.join(tmp, "scenario.json")
            with open(scenario, "w") as f:
                json.dump({"steps": steps}, f)
            for om in (False, True):
                fmt = "openmetrics" if om else "text"
                inc, inc_gz, taken = play(a, tmp, scenario, [], om, f"{fmt}-incremental")
                full, _, _ = play(a, tmp, scenario, ["IncrementalRender=no"], om,
                                  f"{fmt}-full")
                # "clock only" and "unchanged" keep the jobs: their groups
                # are taken, so the byte comparison covers taking too.
                if not any(taken):
                    problems.append(f"{fmt}: no render took a group of families "
                                    f"(debug lines: {taken}); the comparison is void")
                monitoring = inc.pop()  # not a data body: its timings differ per run
                full.pop()
                expected = len(steps) * len(PATHS)
                if len(inc) != expected or len(full) != expected:
                    problems.append(f"{fmt}: {len(inc)} and {len(full)} bodies, "
                                    f"expected {expected}")
                    continue
                for i, (x, y) in enumerate(zip(inc, full)):
                    where = f"{fmt}, step {steps[i // len(PATHS)]['name']!r} {PATHS[i % len(PATHS)]}"
                    if x != y:
                        d = next((k for k in range(min(len(x), len(y))) if x[k] != y[k]),
                                 min(len(x), len(y)))
                        problems.append(f"{where}: incremental body differs from the full "
                                        f"render at byte {d} ({len(x)} vs {len(y)} bytes)")
                    with open(inc_gz[i], "rb") as f:
                        raw = f.read()
                    for reader, text in readers(raw, server).items():
                        if text != x:
                            problems.append(f"{where}: {reader} reads {len(text)} bytes, "
                                            f"not the {len(x)}-byte plain body")
                copied = counter(monitoring, "slurm_exporter_render_families_total", "copied")
                pieces = counter(monitoring, "slurm_exporter_gzip_pieces_total", "copied")
                if not copied or not pieces:
                    problems.append(f"{fmt}: families copied {copied}, gzip pieces copied "
                                    f"{pieces}: nothing was reused, the comparison is void")
                else:
                    print(f"{fmt}: {len(inc)} bodies identical to full renders and read "
                          f"alike by 3 gzip readers; {copied:.0f} families copied, "
                          f"{pieces:.0f} gzip pieces copied, {sum(taken)} groups taken")
                if om:
                    continue
                # The last step's /metrics: its gzip form mostly copied pieces.
                last = len(inc) - len(PATHS)
                with open(inc_gz[last], "rb") as f:
                    server.payload = f.read()
                samples = sum(1 for line in inc[last].splitlines()
                              if line and not line.startswith(b"#"))
                for tool in ("prometheus", "victoria-metrics"):
                    got = scraped(tool, server, tmp)
                    if got != (1, samples):
                        problems.append(f"{tool} scraping the gzip /metrics: {got}, "
                                        f"expected up 1 and {samples} samples")
                    else:
                        print(f"{tool}: up 1, {samples} samples from the gzip /metrics")
    finally:
        server.stop()
    for p in problems[:20]:
        print("FAIL:", p)
    if problems:
        return 1
    print("ok: renders that follow change are full renders, byte for byte")
    return 0


if __name__ == "__main__":
    sys.exit(main())
