# SPDX-License-Identifier: GPL-2.0-or-later
"""What a Grafana dashboard asks of our metrics: every slurm_* metric name a
query selects, the label matchers on it, and the labels the query groups
by. Reads PromQL and the MetricsQL Soperator's dashboards use (WITH
templates, label_values(), Grafana's $variables)."""

import json
import re
from dataclasses import dataclass, field

# Grafana variables: $var, ${var}, ${var:fmt}, [[var]].
_VAR = r'\$\{[^}]*\}|\$[A-Za-z_][A-Za-z0-9_]*|\[\[[^\]]*\]\]'
_TOKEN = re.compile(
    r'(?P<str>"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|`[^`]*`)'
    r'|(?P<var>' + _VAR + r')'
    r'|(?P<dur>\[[^\]]*\])'
    r'|(?P<ident>[A-Za-z_:][A-Za-z0-9_:.]*)'
    r'|(?P<num>[0-9]+(?:\.[0-9]+)?(?:e[+-]?[0-9]+)?)'
    r'|(?P<op>=~|!~|!=|==|>=|<=|[-+*/%^=<>{}(),])'
    r'|(?P<ws>\s+)'
    r'|(?P<other>.)', re.S)

GROUPING = {"by", "without", "on", "ignoring", "group_left", "group_right"}
MATCH_OPS = {"=", "!=", "=~", "!~"}


@dataclass
class Ref:
    """One query of one dashboard panel."""
    where: str
    expr: str
    metrics: set = field(default_factory=set)
    # (metric or None for a WITH filter set, label, op, value or None)
    matchers: list = field(default_factory=list)
    grouping: set = field(default_factory=set)   # labels in by()/on()/...
    other_metrics: set = field(default_factory=set)  # non-slurm selectors


def tokens(expr):
    out = []
    for m in _TOKEN.finditer(expr):
        kind = m.lastgroup
        if kind in ("ws", "other"):
            continue
        out.append((kind, m.group()))
    return out


def _unquote(s):
    if s[0] == "`":
        return s[1:-1]
    return re.sub(r'\\(.)', r'\1', s[1:-1])


def analyse(expr, where):
    ref = Ref(where, expr)
    toks = tokens(expr)
    with_sets = {}   # WITH name -> matchers
    i = 0
    n = len(toks)

    def matchers_at(j, metric):
        """Parses {...} starting at toks[j] == '{'; returns index after '}'."""
        j += 1
        found = []
        while j < n and toks[j][1] != "}":
            kind, text = toks[j]
            if kind == "ident" and j + 1 < n:
                nxt = toks[j + 1]
                if nxt[1] in MATCH_OPS:
                    val = toks[j + 2] if j + 2 < n else ("", "")
                    value = _unquote(val[1]) if val[0] == "str" else None
                    found.append((metric, text, nxt[1], value))
                    j += 3
                    continue
                if nxt[0] == "var":
                    # slurm_partition${partition_match_exp}: the operator and
                    # value come from a dashboard variable.
                    found.append((metric, text, None, None))
                    j += 2
                    continue
                if text in with_sets:  # {filters, ...}
                    found.extend((metric, l, o, v) for _, l, o, v in with_sets[text])
            j += 1
        return j + 1, found

    while i < n:
        kind, text = toks[i]
        nxt = toks[i + 1] if i + 1 < n else ("", "")
        if kind == "ident" and nxt[1] == "=" and i + 2 < n and toks[i + 2][1] == "{":
            # MetricsQL WITH (filters = {matchers}, ...): a named matcher set
            # that later selectors include as {filters, ...}. The WITH's
            # other definitions are ordinary expressions, scanned as such.
            i, found = matchers_at(i + 2, None)
            with_sets[text] = found
            continue
        if kind == "ident" and text in GROUPING and nxt[1] == "(":
            j = i + 2
            while j < n and toks[j][1] != ")":
                if toks[j][0] == "ident":
                    ref.grouping.add(toks[j][1])
                j += 1
            i = j + 1
            continue
        if kind == "ident" and text == "label_values" and nxt[1] == "(":
            # label_values(metric{...}, label) or label_values(label)
            depth, j = 0, i + 1
            while j < n:
                t = toks[j][1]
                depth += t == "("
                depth -= t == ")"
                if depth == 1 and t == "," and j + 1 < n and toks[j + 1][0] == "ident":
                    ref.grouping.add(toks[j + 1][1])
                if depth == 0:
                    break
                j += 1
            i += 1
            continue
        if kind == "ident" and nxt[1] not in MATCH_OPS and nxt[1] != "(" \
                and not (i > 0 and toks[i - 1][1] in ("=",)):
            if text.startswith("slurm_"):
                ref.metrics.add(text)
                if nxt[1] == "{":
                    i, found = matchers_at(i + 1, text)
                    ref.matchers.extend(found)
                    continue
            elif nxt[1] == "{":
                ref.other_metrics.add(text)
        elif kind == "op" and text == "{" and not (i > 0 and toks[i - 1][0] == "ident"):
            # A bare {..} selector, e.g. {__name__="slurm_x"}.
            i, found = matchers_at(i, None)
            for _, l, o, v in found:
                if l == "__name__" and o == "=" and v and v.startswith("slurm_"):
                    ref.metrics.add(v)
            ref.matchers.extend(found)
            continue
        i += 1
    return ref


def dashboard_queries(path):
    """(where, expr) for every query in a Grafana dashboard JSON."""
    with open(path) as f:
        dash = json.load(f)
    out = []
    name = path.rsplit("/", 1)[-1]

    def walk(o, title):
        if isinstance(o, dict):
            title = o.get("title", title) if isinstance(o.get("title"), str) else title
            for k, v in o.items():
                if k == "expr" and isinstance(v, str):
                    out.append((f"{name} :: {title}", v))
                elif k in ("definition", "query") and isinstance(v, str) and \
                        ("(" in v or "{" in v) and o.get("type") != "datasource":
                    out.append((f"{name} :: variable {o.get('name', title)}", v))
                else:
                    walk(v, title)
        elif isinstance(o, list):
            for x in o:
                walk(x, title)

    walk(dash, "")
    return out


def legend_labels(path):
    """{{label}} references of legendFormat fields: (where, label)."""
    with open(path) as f:
        text = f.read()
    return set(re.findall(r'"legendFormat":\s*"[^"]*?\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}', text))
