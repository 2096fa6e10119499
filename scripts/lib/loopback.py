# SPDX-License-Identifier: GPL-2.0-or-later
"""Loopback ports for test clusters, listeners and benchmarks."""

import socket

# Ports handed out by this process: a port is free when we ask but not held,
# so without this a listener could be given slurmctld's port.
_handed_out = set()


def port_free(p):
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", p))
            return True
        except OSError:
            return False


def free_port():
    while True:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            p = s.getsockname()[1]
        if p not in _handed_out:
            _handed_out.add(p)
            return p


def port_base(offsets):
    """A port p such that p and p + each offset are free (slurmctld's port;
    slurmd and the ghost nodes take the offsets)."""
    for _ in range(100):
        p = free_port()
        ports = {p} | {p + o for o in offsets}
        if 1024 < p < 60000 and not (ports - {p}) & _handed_out and all(map(port_free, ports)):
            _handed_out.update(ports)
            return p
    raise RuntimeError("no free port range")
