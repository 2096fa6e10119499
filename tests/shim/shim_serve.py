# SPDX-License-Identifier: GPL-2.0-or-later
"""Starting `shim serve` on free loopback ports and waiting until it
answers: what the shim tests that scrape the plugin's own listener share
(cached_bodies.py, first_collection.py, serve_test.py)."""

import os
import subprocess
import sys
import time
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "scripts", "lib"))
from loopback import free_port  # noqa: E402


def answers(url):
    """True when GET url answers 200 with a body."""
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.status == 200 and bool(r.read())
    except OSError:  # refused, not yet listening, or an HTTP error status
        return False


def serve(shim, plugin, args, ready="/metrics", monitoring=False, timeout=20,
          stderr=subprocess.DEVNULL):
    """Starts `SHIM serve --plugin PLUGIN --listen 127.0.0.1:PORT
    [--monitoring-listen 127.0.0.1:MPORT] ARGS...` and waits, at most
    `timeout` seconds, until GET `ready` on PORT answers 200 with a body.
    Returns (process, port, monitoring port or None); the caller stops the
    process (scripts/lib/processes.py, terminate). Exits the test when the
    shim ends or does not answer in time."""
    port = free_port()
    mport = free_port() if monitoring else None
    argv = [shim, "serve", "--plugin", plugin, "--listen", f"127.0.0.1:{port}"]
    if monitoring:
        argv += ["--monitoring-listen", f"127.0.0.1:{mport}"]
    p = subprocess.Popen(argv + list(args), stderr=stderr, text=True)
    deadline = time.monotonic() + timeout
    while not answers(f"http://127.0.0.1:{port}{ready}"):
        rc = p.poll()
        if rc is not None or time.monotonic() > deadline:
            if rc is None:
                p.kill()
                p.wait()
            err = p.stderr.read() if stderr == subprocess.PIPE else ""
            raise SystemExit(f"serve did not answer {ready} within {timeout} s "
                             f"(exit {rc}) {err}".rstrip())
        time.sleep(0.05)
    return p, port, mport
