# SPDX-License-Identifier: GPL-2.0-or-later
"""Readers for what Slurm's own clients print about associations, QoS,
licenses, reservations and GRES: the oracles the accounting families are
compared with (sshare -a -l -P, scontrol show assoc_mgr flags=qos, sacctmgr
show qos -P, scontrol show licenses -o, scontrol show reservation,
scontrol -d show node -o)."""

import re
import time


def sshare(text):
    """sshare -a -l -P -> [dict], Account without the tree indentation,
    fields as printed ('' where sshare prints nothing)."""
    lines = [l for l in text.splitlines() if l.strip()]
    header = lines[0].split("|")
    out = []
    for line in lines[1:]:
        row = dict(zip(header, line.split("|")))
        row["Account"] = row["Account"].strip()
        out.append(row)
    return out


def licenses(text):
    """scontrol show licenses -o -> {name: {field: value}}."""
    out = {}
    for line in text.splitlines():
        fields = dict(re.findall(r"(\w+)=(\S*)", line))
        if "LicenseName" in fields:
            out[fields.pop("LicenseName")] = fields
    return out


def reservations(text):
    """scontrol show reservation -> {name: {field: value}} (values up to the
    next space; the fields the families use have none)."""
    out = {}
    for block in re.split(r"\n\s*\n", text):
        fields = dict(re.findall(r"(\w+)=(\S*)", block))
        if "ReservationName" in fields:
            out[fields["ReservationName"]] = fields
    return out


_LIMIT = re.compile(r"([\w/@.-]+)=(N|\d+)\(([\d.]+)\)")


def assoc_mgr_qos(text):
    """scontrol show assoc_mgr flags=qos -> {qos: {'UsageRaw': float,
    'GrpJobs': (limit or None, used), 'GrpTRES': {tres: (limit, used)}, ...}}
    for the QoS-level lines (the per-account/per-user blocks are skipped)."""
    out = {}
    cur = None
    for line in text.splitlines():
        m = re.match(r"QOS=(.*)\((\d+)\)$", line.strip())
        if m:
            cur = out.setdefault(m.group(1), {})
            continue
        if cur is None or not line.startswith("    ") or line.startswith("      "):
            continue
        s = line.strip()
        if s.startswith("UsageRaw="):
            cur["UsageRaw"] = float(s.split("=", 1)[1])
        elif s.startswith(("GrpTRES=", "GrpTRESMins=", "GrpTRESRunMins=")):
            key, _, rest = s.partition("=")
            cur[key] = {t: (None if lim == "N" else int(lim), float(used))
                        for t, lim, used in _LIMIT.findall(rest)}
        elif s.startswith("Priority="):
            cur["Priority"] = int(s.split("=", 1)[1])
        else:
            for key, lim, used in _LIMIT.findall(s):
                cur[key] = (None if lim == "N" else int(lim), float(used))
    return out


def sacctmgr_qos(text):
    """sacctmgr show qos -P -> {name: {column: value}}."""
    lines = [l for l in text.splitlines() if l.strip()]
    header = lines[0].split("|")
    return {row[0]: dict(zip(header, row))
            for row in (l.split("|") for l in lines[1:])}


def node_gres(text):
    """scontrol -d show node -o -> {node: (Gres, GresUsed)} as printed."""
    out = {}
    for line in text.splitlines():
        fields = dict(re.findall(r"(\w+)=(\S*)", line))
        if "NodeName" in fields:
            out[fields["NodeName"]] = (fields.get("Gres", ""), fields.get("GresUsed", ""))
    return out


def clock(text):
    """scontrol/sacct's local time (2026-12-01T06:34:58) -> unix seconds;
    None for Unknown/None/(null)."""
    try:
        return int(time.mktime(time.strptime(text, "%Y-%m-%dT%H:%M:%S")))
    except ValueError:
        return None


def duration(text):
    """sacctmgr's [days-]hh:mm:ss (or mm:ss) -> seconds; None when empty."""
    if not text:
        return None
    days, _, rest = text.rpartition("-")
    parts = [int(p) for p in rest.split(":")]
    while len(parts) < 3:
        parts.insert(0, 0)
    return int(days or 0) * 86400 + parts[0] * 3600 + parts[1] * 60 + parts[2]


def tres(text):
    """cpu=2,gres/gpu=1 -> {tres: int}."""
    out = {}
    for item in filter(None, text.split(",")):
        k, _, v = item.partition("=")
        out[k] = int(v)
    return out


def nodes(text):
    """scontrol show node -o -> {node: {field: value}} (values up to the
    next space: the fields compared here have none)."""
    out = {}
    for line in text.splitlines():
        fields = dict(re.findall(r"(\w+)=(\S*)", line))
        if "NodeName" in fields:
            out[fields["NodeName"]] = fields
    return out


def gres_counts(spec):
    """sinfo's Gres/GresUsed column as SckyzO reads it: {type: count};
    gpu:h100:1(IDX:0) counts 1 for gpu:h100, (null) and N/A nothing."""
    out = {}
    depth, token, tokens = 0, "", []
    for ch in spec:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(depth - 1, 0)
        if ch == "," and depth == 0:
            tokens.append(token)
            token = ""
        else:
            token += ch
    tokens.append(token)
    for t in tokens:
        m = re.fullmatch(r"(\w+):(?:(\(null\)|[^:(]*):)?(\d+)(?:\([^)]*\))?", t.strip())
        if not m:
            continue
        key = m.group(1) if m.group(2) in (None, "", "(null)") else f"{m.group(1)}:{m.group(2)}"
        out[key] = out.get(key, 0) + int(m.group(3))
    return out


def sinfo_gres(text):
    """sinfo -N -h -O NodeList:60,StateLong:60,Partition:60,Gres:200,
    GresUsed:200 -> [(node, state, partition without '*', Gres, GresUsed)]."""
    rows = []
    for line in text.splitlines():
        f = line.split()
        if len(f) == 5:
            rows.append((f[0], f[1], f[2].rstrip("*"), f[3], f[4]))
    return rows


def squeue_pending(text):
    """squeue -h -a -t PENDING -o "%P|%T|%C|%r|%u" -> {(user, partition,
    reason): (jobs, cpus)} the way SckyzO counts: rows whose %T is PENDING,
    once per partition of a comma list."""
    out = {}
    for line in text.splitlines():
        f = line.split("|")
        if len(f) != 5 or f[1] != "PENDING":
            continue
        part, _, cpus, reason, user = f
        for p in part.split(","):
            jobs, cores = out.get((user, p, reason), (0, 0))
            out[(user, p, reason)] = (jobs + 1, cores + int(cpus))
    return out
