# SPDX-License-Identifier: GPL-2.0-or-later
"""Reading Prometheus text exposition in tests and benchmarks."""

import re
from typing import NamedTuple

_SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)( \S+)?$')
_PAIR = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


class Sample(NamedTuple):
    name: str
    braces: str  # '{a="1",b="2"}' as written, or ""
    labels: str  # what the braces hold
    value: str


def samples(text, timestamps=False):
    """Every sample line of `text`; ValueError on a line that is not one
    (or that carries a timestamp, unless `timestamps`)."""
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = _SAMPLE.match(line)
        if not m or (m.group(5) and not timestamps):
            raise ValueError(f"unparsable line: {line!r}")
        yield Sample(m.group(1), m.group(2) or "", m.group(3) or "", m.group(4))


def label_pairs(labels):
    """[(name, escaped value)] of a sample's label text."""
    return _PAIR.findall(labels)


def unescape(value):
    return value.replace('\\n', '\n').replace('\\"', '"').replace('\\\\', '\\')


def stored_braces(labels):
    """The '{...}' of a series as Prometheus stores it: a label with an
    empty value is no label (Slurm drops such labels, we print them)."""
    pairs = [f'{n}="{v}"' for n, v in label_pairs(labels) if v]
    return "{" + ",".join(pairs) + "}" if pairs else ""
