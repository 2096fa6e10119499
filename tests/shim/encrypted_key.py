#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A WebConfigFile whose key_file is an encrypted PEM key, with stdin a pipe
held open and no controlling terminal (as slurmctld -D in a container):
the plugin must not ask for a pass phrase. Expected: one `error:` line that
names the key file and says encrypted keys are not supported, no listener,
and init() returns to the host: the shim (which needs the listener it
asked for) then says the listener did not come up and exits 1 at once,
where slurmctld would go on without it.

usage: encrypted_key.py --shim SHIM --plugin SO INPUT...

Bounded: 30 s for the start, 20 s for SIGTERM."""
import argparse
import os
import select
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "scripts", "lib"))
from loopback import free_port  # noqa: E402
from processes import terminate  # noqa: E402


def openssl(*args):
    r = subprocess.run(["openssl", *args], capture_output=True, timeout=60)
    assert r.returncode == 0, r.stderr.decode()


def read_stderr_until(p, marker, timeout):
    """Everything p wrote to stderr until a line containing `marker` (or
    the timeout, or p's exit)."""
    out = b""
    deadline = time.monotonic() + timeout
    while marker.encode() not in out:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        ready, _, _ = select.select([p.stderr], [], [], min(left, 0.5))
        if ready:
            chunk = os.read(p.stderr.fileno(), 65536)
            if not chunk:
                break
            out += chunk
        elif p.poll() is not None:
            break
    return out.decode(errors="replace")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shim", required=True)
    ap.add_argument("--plugin", required=True)
    ap.add_argument("inputs", nargs="+")
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="sm-encrypted-key-")
    key, cert = os.path.join(work, "server.key"), os.path.join(work, "server.pem")
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
            "-passout", "pass:secret", "-days", "2", "-subj", "/CN=controller",
            "-keyout", key, "-out", cert)
    with open(key) as f:
        assert "ENCRYPTED" in f.read(), "openssl did not encrypt the key"
    web = os.path.join(work, "web.yml")
    with open(web, "w") as f:
        f.write(f"tls_server_config:\n  cert_file: {cert}\n  key_file: {key}\n")
    conf = os.path.join(work, "extra.conf")
    with open(conf, "w") as f:
        f.write(f"WebConfigFile={web}\n")
    port = free_port()
    # stdin: a pipe we hold open and never write to; a new session: no
    # controlling terminal, so OpenSSL's prompt would read stdin.
    p = subprocess.Popen([a.shim, "serve", "--plugin", a.plugin, "--listen", f"127.0.0.1:{port}",
                          "--conf", conf] + a.inputs,
                         stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, start_new_session=True)
    problems = []
    try:
        t0 = time.monotonic()
        came_back = "listener did not come up"
        err = read_stderr_until(p, came_back, 30)
        took = time.monotonic() - t0
        if came_back not in err:
            problems.append(f"init() did not return within 30 s "
                            f"(exit {p.poll()}); stderr: {err[-400:]!r}")
        if "enter pem pass phrase" in err.lower():
            problems.append(f"OpenSSL asked for a pass phrase: {err[-400:]!r}")
        # The plugin's own lines (the shim prefixes them with its name).
        errors = [l for l in err.splitlines() if "error: soperator-metrics:" in l]
        if len(errors) != 1:
            problems.append(f"want one error: line, got {len(errors)}: {errors!r}")
        elif key not in errors[0] or "encrypted keys are not supported" not in errors[0] \
                or "the listeners and the collector do not start" not in errors[0]:
            problems.append(f"the error line does not say what is wrong: {errors[0]!r}")
        with socket.socket() as s:
            s.settimeout(2)
            if s.connect_ex(("127.0.0.1", port)) == 0:
                problems.append(f"something listens on {port}")
    finally:
        rc = terminate(p, 20)
        p.stdin.close()
    if rc not in (0, 1):
        problems.append(f"the shim: exit {rc}")
    for pr in problems:
        print("FAIL: " + pr)
    if not problems:
        print(f"encrypted key: one error line, no listener, init() returned in {took:.1f} s")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
