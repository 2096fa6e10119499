# SPDX-License-Identifier: GPL-2.0-or-later
"""What test_listener.py and test_web_security.py share: the server under
test (tests/tools/http_test_server.cc, its path the script's first
argument), curl, the failure list and the run of the named tests.

    SCRIPT HTTP_TEST_SERVER [TEST...]

Loopback only; every wait is bounded in time."""

import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "scripts", "lib"))
from pki import make_pki  # noqa: E402
from processes import terminate  # noqa: E402

SERVER = sys.argv[1] if len(sys.argv) > 1 else None
WORK = tempfile.mkdtemp(prefix="sm-http-test-")
failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)
        print(f"FAIL: {msg}", flush=True)
    return cond


class Server:
    """http_test_server with the given options; .port once listening (or
    .first, its first line, when it does not start). The first line is
    awaited at most `timeout` seconds: a server stuck before it (e.g. on a
    pass-phrase prompt) is a failure, not a hang."""

    def __init__(self, *args, expect_down=False, timeout=20):
        self.rc = None
        self.proc = subprocess.Popen([SERVER, *args], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True, start_new_session=True)
        box = []
        reader = threading.Thread(target=lambda: box.append(self.proc.stdout.readline()),
                                  daemon=True)
        reader.start()
        reader.join(timeout)
        self.first = box[0].strip() if box else f"(nothing within {timeout} s)"
        self.port = int(self.first.split()[1]) if self.first.startswith("port ") else None
        if not expect_down and self.port is None:
            self.stop()
            raise RuntimeError(f"server did not start: {self.first!r}")

    def stop(self):
        """Closes stdin (the server's signal to stop); sets .rc (None when
        it had to be killed) and returns the seconds taken."""
        t0 = time.monotonic()
        try:
            self.proc.stdin.close()
        except BrokenPipeError:
            pass
        try:
            self.rc = self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            terminate(self.proc, 2)
        return time.monotonic() - t0

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.proc.poll() is None:
            self.stop()


def curl(*args, timeout=10):
    """(exit code, stdout, headers) of `curl -s -D <file> args`."""
    fd, hdr = tempfile.mkstemp(dir=WORK, prefix="headers-")  # one per call: threads
    os.close(fd)
    try:
        p = subprocess.run(["curl", "-s", "--max-time", str(timeout), "-D", hdr, *args],
                           capture_output=True, timeout=timeout + 5)
        headers = open(hdr, "rb").read().decode("latin-1")
    finally:
        os.unlink(hdr)
    return p.returncode, p.stdout, headers


def status_line(headers):
    """The first line of a response's headers (str) or bytes."""
    return headers.split("\r\n" if isinstance(headers, str) else b"\r\n", 1)[0]


def web_config(name, text):
    p = os.path.join(WORK, name)
    with open(p, "w") as f:
        f.write(text)
    return p


def wait_until(what, cond, timeout=10):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(0.2)
    return check(False, f"timed out after {timeout} s waiting for {what}")


def run(make_tests):
    """Runs the tests named on the command line (all when none is):
    make_tests(pki) gives {name: function} for the PKI made under WORK
    (scripts/lib/pki.py); an exception is one failure. Exits 1 when
    anything failed."""
    names = sys.argv[2:]
    tests = make_tests(make_pki(os.path.join(WORK, "pki")))
    for name, fn in tests.items():
        if names and name not in names:
            continue
        try:
            fn()
        except Exception as e:  # noqa: BLE001 - report and go on
            check(False, f"{name}: {type(e).__name__}: {e}")
    shutil.rmtree(WORK, ignore_errors=True)
    print(f"{len(failures)} failed" if failures else "all passed")
    sys.exit(1 if failures else 0)
