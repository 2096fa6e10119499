# SPDX-License-Identifier: GPL-2.0-or-later
"""Renders a Helm chart's templates with its values, for the few Go
text/template and Sprig features Soperator's notifier chart uses (the
chart in tests/fixtures/soperator-notifier): {{ }} actions with {{- -}}
trimming and comments, define/include, if/else/end, $variables,
pipelines, parenthesised calls, and the functions printf, default, trunc,
trimSuffix, replace, contains, quote, indent, nindent, required, dict.
Anything else is an error, never silently rendered. Helm's own unit tests
of the chart (its tests/*.yaml) are the oracle this renderer is checked
against (check_unittests), before its output is used.

Library: render(chart_dir, template, values_override, release) -> text;
         check_unittests(chart_dir, test_file) -> number of asserts met.
"""

import copy
import glob
import os
import re

import yaml


class TemplateError(Exception):
    pass


# ---------------------------------------------------------------- lexing

def _lex(text):
    """[("text", s) | ("action", body)], with {{- -}} trimming applied."""
    out, i = [], 0
    while True:
        j = text.find("{{", i)
        if j < 0:
            out.append(("text", text[i:]))
            return out
        chunk = text[i:j]
        k = j + 2
        trim_left = text.startswith("- ", k) or text.startswith("-\n", k)
        if trim_left:
            chunk = chunk.rstrip(" \t\r\n")
            k += 1
        out.append(("text", chunk))
        # The action ends at the first }} outside a string literal.
        m, in_str = k, False
        while m < len(text):
            c = text[m]
            if in_str:
                if c == "\\":
                    m += 2
                    continue
                if c == '"':
                    in_str = False
            elif c == '"':
                in_str = True
            elif text.startswith("}}", m):
                break
            m += 1
        else:
            raise TemplateError(f"unclosed action at offset {j}")
        body = text[k:m]
        trim_right = body.endswith(" -") or body.endswith("\n-")
        if trim_right:
            body = body[:-1]
        body = body.strip()
        if not (body.startswith("/*") and body.endswith("*/")):
            out.append(("action", body))
        i = m + 2
        if trim_right:
            while i < len(text) and text[i] in " \t\r\n":
                i += 1


_TOKEN = re.compile(r'\s*(?:("(?:[^"\\]|\\.)*")|(\()|(\))|(\|)|(:=|=)|([^\s()|]+))')


def _tokens(s):
    out, pos = [], 0
    while pos < len(s):
        m = _TOKEN.match(s, pos)
        if not m or m.end() == pos:
            if s[pos:].strip():
                raise TemplateError(f"cannot tokenise {s[pos:]!r}")
            break
        pos = m.end()
        string, lp, rp, pipe, assign, word = m.groups()
        if string is not None:
            out.append(("str", bytes(string[1:-1], "utf-8").decode("unicode_escape")))
        elif lp:
            out.append(("(", None))
        elif rp:
            out.append((")", None))
        elif pipe:
            out.append(("|", None))
        elif assign:
            out.append(("assign", assign))
        else:
            out.append(("word", word))
    return out


# ---------------------------------------------------------------- parsing

def _parse_pipeline(toks, i=0, closing=None):
    """-> ([commands], next index); a command is a list of operands."""
    cmds, cur = [], []
    while i < len(toks):
        kind, val = toks[i]
        if kind == ")" and closing:
            i += 1
            break
        if kind == "|":
            cmds.append(cur)
            cur = []
            i += 1
            continue
        if kind == "(":
            sub, i = _parse_pipeline(toks, i + 1, closing=")")
            cur.append(("pipe", sub))
            continue
        cur.append((kind, val))
        i += 1
    cmds.append(cur)
    if any(not c for c in cmds):
        raise TemplateError("empty command in pipeline")
    return cmds, i


def _parse(items):
    """Nodes: ("text", s), ("pipe", cmds), ("assign", var, op, cmds),
    ("if", cmds, then, else), ("define", name, body)."""
    pos = 0

    def block(stop):
        nonlocal pos
        nodes = []
        while pos < len(items):
            kind, body = items[pos]
            pos += 1
            if kind == "text":
                if body:
                    nodes.append(("text", body))
                continue
            toks = _tokens(body)
            head = toks[0][1] if toks and toks[0][0] == "word" else None
            if head in ("end", "else"):
                if head not in stop or len(toks) != 1:
                    raise TemplateError(f"unexpected {{{{ {body} }}}}")
                return nodes, head
            if head == "define":
                name = toks[1][1]
                inner, how = block({"end"})
                nodes.append(("define", name, inner))
            elif head == "if":
                cond, _ = _parse_pipeline(toks[1:])
                then, how = block({"end", "else"})
                other = []
                if how == "else":
                    other, _ = block({"end"})
                nodes.append(("if", cond, then, other))
            elif head in ("range", "with", "template", "block"):
                raise TemplateError(f"{head} is not supported: {body}")
            elif len(toks) > 1 and toks[0][0] == "word" and toks[0][1].startswith("$") \
                    and toks[1][0] == "assign":
                cmds, _ = _parse_pipeline(toks[2:])
                nodes.append(("assign", toks[0][1], toks[1][1], cmds))
            else:
                cmds, _ = _parse_pipeline(toks)
                nodes.append(("pipe", cmds))
        if stop:
            raise TemplateError(f"missing {{{{ end }}}} (wanted one of {sorted(stop)})")
        return nodes, None

    nodes, _ = block(set())
    return nodes


# ---------------------------------------------------------------- evaluation

def _truthy(v):
    return not (v is None or v is False or v == 0 or v == "" or v == [] or v == {})


def _text(v):
    if v is None:
        return ""
    if v is True:
        return "true"
    if v is False:
        return "false"
    return str(v)


def _go_quote(s):
    return '"' + _text(s).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _printf(fmt, *args):
    out, i, a = [], 0, 0
    while i < len(fmt):
        if fmt[i] == "%" and i + 1 < len(fmt):
            verb = fmt[i + 1]
            if verb == "%":
                out.append("%")
            elif verb in "sdv":
                out.append(_text(args[a]))
                a += 1
            else:
                raise TemplateError(f"printf verb %{verb} not supported")
            i += 2
        else:
            out.append(fmt[i])
            i += 1
    return "".join(out)


def _indent(n, s):
    return "\n".join(" " * n + line for line in _text(s).split("\n"))


class _Renderer:
    def __init__(self, defines):
        self.defines = defines
        self.funcs = {
            "include": self._include,
            "printf": _printf,
            "default": lambda d, v=None: v if _truthy(v) else d,
            "trunc": lambda n, s: _text(s)[:n],
            "trimSuffix": lambda suf, s: _text(s)[:-len(suf)] if suf and _text(s).endswith(suf) else _text(s),
            "replace": lambda old, new, s: _text(s).replace(old, new),
            "contains": lambda sub, s: sub in _text(s),
            "quote": lambda *a: " ".join(_go_quote(x) for x in a if x is not None),
            "indent": _indent,
            "nindent": lambda n, s: "\n" + _indent(n, s),
            "required": self._required,
            "dict": lambda *kv: {kv[i]: kv[i + 1] for i in range(0, len(kv), 2)},
        }

    @staticmethod
    def _required(msg, v=None):
        if not _truthy(v):
            raise TemplateError(f"required: {msg}")
        return v

    def _include(self, name, data):
        if name not in self.defines:
            raise TemplateError(f"include of undefined template {name!r}")
        return self.run(self.defines[name], data, {})

    def _operand(self, op, dot, variables):
        kind, val = op
        if kind == "str":
            return val
        if kind == "pipe":
            return self._pipeline(val, dot, variables)
        if re.fullmatch(r"-?\d+", val):
            return int(val)
        if val in ("true", "false"):
            return val == "true"
        if val == ".":
            return dot
        if val.startswith("$"):
            name, _, path = val.partition(".")
            if name not in variables:
                raise TemplateError(f"undefined variable {name}")
            return self._field(variables[name], path)
        if val.startswith("."):
            return self._field(dot, val[1:])
        raise TemplateError(f"unknown operand {val!r}")

    @staticmethod
    def _field(obj, path):
        for part in filter(None, path.split(".")):
            if obj is None:
                return None
            if not isinstance(obj, dict):
                raise TemplateError(f"field {part} of a non-map {obj!r}")
            obj = obj.get(part)
        return obj

    def _pipeline(self, cmds, dot, variables):
        value, have = None, False
        for cmd in cmds:
            head = cmd[0]
            if head[0] == "word" and head[1] in self.funcs:
                args = [self._operand(o, dot, variables) for o in cmd[1:]]
                if have:
                    args.append(value)
                value = self.funcs[head[1]](*args)
            elif head[0] == "word" and re.fullmatch(r"[A-Za-z_]\w*", head[1]) \
                    and head[1] not in ("true", "false"):
                raise TemplateError(f"function {head[1]!r} is not supported")
            else:
                if len(cmd) != 1 or have:
                    raise TemplateError(f"cannot apply {cmd}")
                value = self._operand(head, dot, variables)
            have = True
        return value

    def run(self, nodes, dot, variables):
        out = []
        for node in nodes:
            kind = node[0]
            if kind == "text":
                out.append(node[1])
            elif kind == "pipe":
                out.append(_text(self._pipeline(node[1], dot, variables)))
            elif kind == "assign":
                variables[node[1]] = self._pipeline(node[3], dot, variables)
            elif kind == "if":
                branch = node[2] if _truthy(self._pipeline(node[1], dot, variables)) else node[3]
                out.append(self.run(branch, dot, variables))
            elif kind == "define":
                pass
        return "".join(out)


def _collect_defines(nodes, into):
    for n in nodes:
        if n[0] == "define":
            into[n[1]] = n[2]


def _merge(base, override):
    out = copy.deepcopy(base)
    for k, v in (override or {}).items():
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = _merge(out[k], v)
        else:
            out[k] = v
    return out


def render(chart_dir, template, values=None, release=None):
    """Renders templates/<template> of the chart at `chart_dir` with its
    values.yaml overridden by `values` and Release {Name, Namespace,
    Service}."""
    with open(os.path.join(chart_dir, "Chart.yaml")) as f:
        chart = yaml.safe_load(f)
    with open(os.path.join(chart_dir, "values.yaml")) as f:
        defaults = yaml.safe_load(f) or {}
    defines = {}
    for path in sorted(glob.glob(os.path.join(chart_dir, "templates", "*"))):
        with open(path) as f:
            _collect_defines(_parse(_lex(f.read())), defines)
    with open(os.path.join(chart_dir, "templates", template)) as f:
        nodes = _parse(_lex(f.read()))
    rel = {"Name": "release", "Namespace": "default", "Service": "Helm"}
    rel.update(release or {})
    top = {
        "Values": _merge(defaults, values),
        "Release": rel,
        "Chart": {"Name": chart["name"], "Version": chart["version"],
                  "AppVersion": chart.get("appVersion")},
    }
    return _Renderer(defines).run(nodes, top, {})


# ---------------------------------------------------------------- helm-unittest

def _path(obj, path):
    """helm-unittest paths: a.b[0].c["key"]."""
    for m in re.finditer(r'\.?([A-Za-z_][\w-]*)|\[(\d+)\]|\["([^"]+)"\]', path):
        key, index, quoted = m.groups()
        if index is not None:
            obj = obj[int(index)]
        else:
            obj = obj[key if key is not None else quoted]
    return obj


def check_unittests(chart_dir, test_file):
    """Runs the `equal` asserts of a helm-unittest file through render();
    returns how many there were. Raises on the first difference."""
    with open(test_file) as f:
        suite = yaml.safe_load(f)
    release = {"Name": suite["release"]["name"], "Namespace": suite["release"]["namespace"]}
    n = 0
    for case in suite["tests"]:
        values = _merge(suite.get("set", {}), case.get("set", {}))
        for template in suite["templates"]:
            doc = yaml.safe_load(render(chart_dir, os.path.basename(template), values, release))
            for a in case["asserts"]:
                if set(a) != {"equal"}:
                    raise TemplateError(f"unsupported assert {a}")
                got = _path(doc, a["equal"]["path"])
                if got != a["equal"]["value"]:
                    raise TemplateError(f"{case['it']}: {a['equal']['path']} is {got!r}, "
                                        f"helm's test says {a['equal']['value']!r}")
                n += 1
    return n
