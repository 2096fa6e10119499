# SPDX-License-Identifier: GPL-2.0-or-later
"""Waiting for daemons and scrapers in tests."""

import time


def wait_for(what, predicate, timeout=60, interval=0.5):
    """predicate()'s first truthy result, retried (exceptions included)
    every `interval` seconds; AssertionError after `timeout`."""
    deadline = time.time() + timeout
    last = None
    while time.time() < deadline:
        try:
            last = predicate()
            if last:
                return last
        except Exception as e:  # noqa: BLE001 - retried until the deadline
            last = e
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}; last: {last!r}")
