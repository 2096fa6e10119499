# SPDX-License-Identifier: GPL-2.0-or-later
"""Stopping the processes tests and benchmarks start, by their handle only."""

import signal
import subprocess


def terminate(proc, timeout):
    """SIGTERM, then SIGKILL if `proc` has not exited after `timeout` seconds.
    Its exit status after SIGTERM (or earlier), or None when it was killed."""
    if proc.poll() is not None:
        return proc.returncode
    proc.send_signal(signal.SIGTERM)
    try:
        return proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        return None
