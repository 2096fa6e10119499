# SPDX-License-Identifier: GPL-2.0-or-later
"""Shared pieces of the controller-life tests (suite 'lifecycle'):
slurmctld's processes by PID, which process answered a request, a
NOTIFY_SOCKET the test serves, and a scraper that records every answer
with the time it was asked (../shared/reference/slurm-internals.md 1.5)."""

import http.client
import os
import socket
import subprocess
import threading
import time

# The scraped-shutdown test's process helpers: subreaper, waitpid with a
# deadline, gdb stacks, exit status in words, zombie reaping, port probe.
from test_shutdown import (become_subreaper, describe, port_open,  # noqa: F401
                           reap_orphans, thread_stacks, wait_exit)


def reconfigure(env, timeout):
    """`scontrol reconfigure` within `timeout` seconds: None when it
    succeeded, else what went wrong (its exit status and stderr, or that it
    did not return), with the time it took."""
    t0 = time.monotonic()
    try:
        r = subprocess.run(["scontrol", "reconfigure"], env=env, capture_output=True,
                           text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return f"scontrol reconfigure did not return in {timeout} s"
    if r.returncode != 0:
        return (f"scontrol reconfigure exit {r.returncode} after "
                f"{time.monotonic() - t0:.1f} s: {r.stderr.strip()}")
    return None


def proc_state(pid):
    """The state letter of /proc/PID/stat, or None when there is no such
    process."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(") ", 1)[1].split()[0]
    except (OSError, IndexError):
        return None


def alive(pid):
    """A live process (a zombie, dead but unreaped, is not)."""
    return proc_state(pid) not in (None, "Z", "X")


def ctld_pids(conf):
    """Live processes named slurmctld whose command line names this
    cluster's slurm.conf: every generation a reconfigure left, and its
    middle child (slurmscriptd names itself differently)."""
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/comm") as f:
                if f.read().strip() != "slurmctld":
                    continue
            with open(f"/proc/{d}/cmdline", "rb") as f:
                args = f.read().split(b"\0")
        except OSError:
            continue
        if conf.encode() in args and alive(int(d)):
            out.append(int(d))
    return sorted(out)


def _tcp_inode(server_port, client_port):
    """The inode of the server side of a loopback connection (local port
    server_port, remote port client_port), from /proc/net/tcp."""
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table) as f:
                next(f)
                for line in f:
                    fields = line.split()
                    local, remote, inode = fields[1], fields[2], fields[9]
                    if (int(local.rsplit(":", 1)[1], 16) == server_port and
                            int(remote.rsplit(":", 1)[1], 16) == client_port):
                        return inode
        except OSError:
            pass
    return None


def socket_owner(server_port, client_port, pids):
    """Which of `pids` holds the accepted socket of our connection (None
    if none does): the process that answered the request."""
    inode = _tcp_inode(server_port, client_port)
    if inode is None:
        return None
    want = f"socket:[{inode}]"
    for pid in pids:
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                if os.readlink(f"/proc/{pid}/fd/{fd}") == want:
                    return pid
            except OSError:
                continue
    return None


class NotifySocket:
    """The unix datagram socket systemd would serve as NOTIFY_SOCKET, read
    on a thread of its own as systemd reads it: slurmctld --systemd sends
    "READY=1\nMAINPID=<pid>" at its start and, from the old process, after
    each reconfigure; 25.11 and later follow it with "BARRIER=1" and a file
    descriptor, and wait (up to MessageTimeout / 2) until the receiver
    closes it."""

    def __init__(self, path):
        self.path = path
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(path)
        self.sock.settimeout(0.1)
        self.messages = []  # (monotonic time, {key: value})
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self):
        while not self._stop.is_set():
            try:
                data, anc, _, _ = self.sock.recvmsg(4096, socket.CMSG_SPACE(16 * 4))
            except socket.timeout:
                continue
            except OSError:
                return
            # Close every descriptor passed (the barrier's): that is the
            # answer the sender waits for.
            for level, kind, fds in anc:
                if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                    for i in range(0, len(fds) - len(fds) % 4, 4):
                        os.close(int.from_bytes(fds[i:i + 4], "little"))
            kv = dict(l.split("=", 1) for l in data.decode(errors="replace").split("\n")
                      if "=" in l)
            self.messages.append((time.monotonic(), kv))

    def wait_mainpid(self, since, timeout):
        """The first MAINPID that came at or after `since` (monotonic
        time), within `timeout` seconds, as (time, pid); None if none
        came."""
        end = time.monotonic() + timeout
        while True:
            for t, kv in list(self.messages):
                if t >= since and "MAINPID" in kv:
                    return t, int(kv["MAINPID"])
            if time.monotonic() > end:
                return None
            time.sleep(0.05)

    def close(self):
        self._stop.set()
        self._thread.join(5)
        self.sock.close()


class Prober:
    """One HTTP GET every `interval` seconds on a fresh connection, on its
    own thread; each answer is recorded as (time
    asked, time answered, status or error, PID of the slurmctld that answered it, among
    the live slurmctld processes of `conf`)."""

    def __init__(self, port, path, conf, interval=0.1, timeout=3):
        self.port, self.path, self.conf = port, path, conf
        self.interval, self.timeout = interval, timeout
        self.records = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _one(self):
        t = time.monotonic()
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=self.timeout)
        try:
            conn.connect()
            # Which process accepted the connection, before the request
            # is sent: a server closes a connection only after it has read
            # a request, so its end is in that process's fd table until
            # then. (A connection still in the backlog of a listening
            # socket that several generations share is in none yet.)
            client_port = conn.sock.getsockname()[1]
            owner = None
            end = t + self.timeout
            while owner is None and time.monotonic() < end:
                owner = socket_owner(self.port, client_port, ctld_pids(self.conf))
                if owner is None:
                    time.sleep(0.02)
            if owner is None:
                return t, time.monotonic(), "not accepted", None
            conn.request("GET", self.path)
            r = conn.getresponse()
            r.read()
            return t, time.monotonic(), r.status, owner
        except (OSError, http.client.HTTPException) as e:
            return t, time.monotonic(), type(e).__name__, None
        finally:
            conn.close()

    def _run(self):
        while not self._stop.is_set():
            self.records.append(self._one())
            self._stop.wait(self.interval)

    def first_ok_from(self, pid, since):
        """When the first 200 that `pid` answered, asked at or after
        `since`, came; None if there was none."""
        for t, done, status, owner in list(self.records):
            if t >= since and status == 200 and owner == pid:
                return done
        return None

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join(self.timeout + 5)
