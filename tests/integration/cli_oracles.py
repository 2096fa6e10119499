# SPDX-License-Identifier: GPL-2.0-or-later
"""Readers for what Slurm's own clients print about associations, QoS,
licenses, reservations and GRES: the oracles the accounting families are
compared with (sshare -a -l -P, scontrol show assoc_mgr flags=qos, sacctmgr
show qos -P, scontrol show licenses -o, scontrol show reservation,
scontrol -d show node -o)."""

import re


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
