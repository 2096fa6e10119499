#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The install and configuration documents against the code, no Slurm
needed:

- README's quick start is docs/install.md's, command for command, and the
  scripts it runs exist;
- every configuration key the plugin knows (plugin/core/config/exporter_config.cc)
  is in docs/configuration.md with its environment variable and in the
  example packaging/soperator_metrics.conf with the documented default; no
  other key is; every Soperator option we ignore is documented as such;
- every file of docs/examples is described in docs/scraping.md; relative
  links and #anchors of the user documents resolve;
- the RPM spec's Version is the project's.

usage: test_docs.py
"""

import glob
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DOCS = os.path.join(ROOT, "docs")
USER_DOCS = ["install.md", "configuration.md", "scraping.md", "upgrade.md",
             "troubleshooting.md", "soperator.md"]
failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)
    return cond


def read(*parts):
    with open(os.path.join(ROOT, *parts)) as f:
        return f.read()


def section(text, heading):
    """The text under a '## heading' up to the next '## '."""
    m = re.search(r'^## ' + re.escape(heading) + r'[^\n]*\n(.*?)(?=^## |\Z)', text, re.M | re.S)
    return m.group(1) if m else None


def code_blocks(text):
    return [b.strip() for b in re.findall(r'```(?:sh|bash)\n(.*?)```', text, re.S)]


def quick_start():
    readme = section(read("README.md"), "Install")
    install = section(read("docs", "install.md"), "Quick start")
    if not check(readme is not None, "README.md has no '## Install' section") or \
            not check(install is not None, "docs/install.md has no '## Quick start' section"):
        return
    a, b = code_blocks(readme), code_blocks(install)
    check(a and a == b, "README's quick start commands differ from docs/install.md's:\n"
          f"README: {a}\ninstall.md: {b}")
    for block in b:
        for line in block.splitlines():
            for word in line.split():
                if re.fullmatch(r'(scripts|packaging)/[\w./-]+\.sh|scripts/[\w-]+', word):
                    path = os.path.join(ROOT, word)
                    check(os.access(path, os.X_OK), f"quick start runs {word}: not an executable")
    print(f"ok: quick start: {len(b)} command blocks, README == docs/install.md")


def config_keys():
    src = read("plugin", "core", "config", "exporter_config.cc")
    options = re.findall(r'\{"([A-Za-z]+)", (?:"(SLURM_EXPORTER_[A-Z_]+)"|nullptr),', src)
    check(len(options) >= 10, f"found only {len(options)} options in exporter_config.cc")
    out_of_process = re.findall(r'"([A-Za-z]+)"', src.split("kOutOfProcessKeys[] = {", 1)[1].split("};")[0])
    doc = read("docs", "configuration.md")
    keys_table = section(doc, "Keys") or ""
    documented = {}
    for line in keys_table.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 4 and cells[0].startswith("`"):
            documented[cells[0].strip("`")] = cells
    example = read("packaging", "soperator_metrics.conf")
    example_keys = dict(re.findall(r'^#([A-Za-z]+)=(.*)$', example, re.M))
    for key, env in options:
        cells = documented.get(key)
        if not check(cells, f"configuration.md: key {key} is not in the Keys table"):
            continue
        check(env and f"`{env}`" == cells[1], f"configuration.md: {key}: env {cells[1]}, code {env}")
        check(key in example_keys, f"soperator_metrics.conf: no #{key}= line")
        default = re.fullmatch(r'`([^`]*)`', cells[2])
        if default and key in example_keys:
            check(example_keys[key] == default.group(1),
                  f"{key}: example says {example_keys[key]!r}, docs say {default.group(1)!r}")
        elif key in example_keys:
            check(example_keys[key] == "", f"{key}: example default {example_keys[key]!r} "
                  f"where the docs say {cells[2]}")
    code_keys = {k for k, _ in options}
    check(set(documented) == code_keys, "configuration.md documents keys the code lacks: "
          f"{sorted(set(documented) - code_keys)}")
    check(set(example_keys) <= code_keys, "soperator_metrics.conf has unknown keys: "
          f"{sorted(set(example_keys) - code_keys)}")
    for key in out_of_process:
        check(f"`{key}`" in doc, f"configuration.md does not mention ignored option {key}")
    # Defaults in the code, where they are literals.
    header = read("plugin", "core", "config", "exporter_config.h")
    for field, key in (("metrics_bind_address", "MetricsBindAddress"),
                       ("monitoring_bind_address", "MonitoringBindAddress"),
                       ("cluster_namespace", "ClusterNamespace"),
                       ("log_format", "LogFormat")):
        m = re.search(field + r' = "([^"]*)"', header)
        if check(m, f"no default for {field} in exporter_config.h"):
            check(example_keys.get(key) == m.group(1),
                  f"{key}: code default {m.group(1)!r}, example {example_keys.get(key)!r}")
    print(f"ok: {len(options)} keys documented with env var and default; "
          f"{len(out_of_process)} ignored Soperator options documented")


def anchors(md):
    out = set()
    for h in re.findall(r'^#+ (.*)$', md, re.M):
        a = h.strip().lower()
        a = re.sub(r'[^\w\- ]', '', a)
        out.add(a.replace(" ", "-"))
    return out


def links():
    n = 0
    for name in USER_DOCS + ["../README.md"]:
        path = os.path.normpath(os.path.join(DOCS, name))
        with open(path) as f:
            text = f.read()
        for target in re.findall(r'\]\(([^)\s]+)\)', text):
            if re.match(r'[a-z]+://', target):
                continue
            file, _, anchor = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(path), file)) if file else path
            n += 1
            if not check(os.path.exists(dest), f"{name}: broken link {target}"):
                continue
            if anchor and dest.endswith(".md"):
                with open(dest) as f:
                    check(anchor in anchors(f.read()), f"{name}: no anchor #{anchor} in {file or name}")
    scraping = read("docs", "scraping.md")
    soperator = read("docs", "soperator.md")
    examples = sorted(os.listdir(os.path.join(DOCS, "examples")))
    for e in examples:
        if e.startswith("soperator-"):
            # Soperator's recipe: described in docs/soperator.md.
            check(f"(examples/{e})" in soperator, f"docs/soperator.md does not describe examples/{e}")
            continue
        check(f"(examples/{e})" in scraping, f"docs/scraping.md does not describe examples/{e}")
    check("(soperator.md)" in scraping, "docs/scraping.md does not link soperator.md")
    print(f"ok: {n} relative links resolve; {len(examples)} examples described in scraping.md")


def dashboard():
    uids = set()
    for path in sorted(glob.glob(os.path.join(DOCS, "examples", "grafana-*.json"))):
        with open(path) as f:
            d = json.load(f)
        name = os.path.basename(path)
        check(d.get("uid") and d.get("title"), f"{name}: dashboard without uid/title")
        check(d.get("uid") not in uids, f"{name}: uid {d.get('uid')} used twice")
        uids.add(d.get("uid"))
        ids = [p["id"] for p in d["panels"]]
        check(len(ids) == len(set(ids)), f"{name}: duplicate panel ids")
        for p in d["panels"]:
            check(p.get("targets") and all(t.get("expr") for t in p["targets"]),
                  f"{name}: panel {p.get('title')} has a target without a query")
        print(f"ok: {name}: {len(ids)} panels")
    check(len(uids) >= 2, "docs/examples lacks its dashboards")


def versions():
    project = re.search(r"^  version: '([^']+)',$", read("meson.build"), re.M).group(1)
    spec = re.search(r'^Version:\s*(\S+)$', read("packaging", "rpm", "soperator-metrics.spec"), re.M)
    check(spec and spec.group(1) == project, f"spec Version {spec and spec.group(1)} != {project}")
    print(f"ok: spec Version {project}")


def main():
    quick_start()
    config_keys()
    links()
    dashboard()
    versions()
    for f in failures:
        print("FAIL:", f)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
