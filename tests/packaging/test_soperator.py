#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""docs/soperator.md's manifests against Soperator's own CRDs, no cluster
needed:

- every SlurmCluster and JailedConfig in docs/examples/soperator-*.yaml validates
  against the openAPIV3Schema of the CRD Soperator ships at the commit our
  metrics follow (tests/fixtures/soperator-crds, vendored unchanged), with
  Debian's python3-jsonschema. Like `kubectl apply --validate=strict`, a
  field the schema does not define is an error (the API server would drop
  it silently); CEL rules (x-kubernetes-validations) are not evaluated.
  That the check can fail is checked too: a misspelt field and a wrong
  type are refused.
- the SlurmCluster makes the changes the page describes (exporter off,
  Soperator's MetricsType off, ours in customSlurmConfig, the plugin's
  image), and every YAML block of the page is part of the example file it
  names;
- the JailedConfig writes the ConfigMap's soperator_metrics.conf into the
  jail's /etc/slurm for the same cluster, and that conf passes the plugin's
  own parser (config_check) without an error or a warning.

usage: test_soperator.py CONFIG_CHECK
"""

import copy
import glob
import os
import re
import subprocess
import sys
import tempfile

import jsonschema
import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CRDS = os.path.join(ROOT, "tests", "fixtures", "soperator-crds")
EXAMPLES = os.path.join(ROOT, "docs", "examples")
PAGE = os.path.join(ROOT, "docs", "soperator.md")
failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)
    return cond


def strict(schema):
    """The CRD schema with unknown fields refused wherever the API server
    would prune them: objects with `properties` and neither
    additionalProperties nor x-kubernetes-preserve-unknown-fields."""
    if isinstance(schema, dict):
        out = {k: strict(v) if k != "properties" else {p: strict(s) for p, s in v.items()}
               for k, v in schema.items()}
        if ("properties" in out and "additionalProperties" not in out
                and not out.get("x-kubernetes-preserve-unknown-fields")):
            out["additionalProperties"] = False
        return out
    if isinstance(schema, list):
        return [strict(x) for x in schema]
    return schema


def validators():
    """{(apiVersion, kind): validator} of every vendored CRD version."""
    out = {}
    for path in sorted(glob.glob(os.path.join(CRDS, "*.yaml"))):
        with open(path) as f:
            crd = yaml.safe_load(f)
        group, kind = crd["spec"]["group"], crd["spec"]["names"]["kind"]
        for v in crd["spec"]["versions"]:
            schema = strict(v["schema"]["openAPIV3Schema"])
            jsonschema.Draft7Validator.check_schema(schema)
            out[(f"{group}/{v['name']}", kind)] = jsonschema.Draft7Validator(schema)
    return out


DNS1123 = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")


def errors_of(validator, obj):
    meta = obj.get("metadata", {})
    errs = [f"{e.json_path}: {e.message}" for e in validator.iter_errors(obj)]
    for key in ("name", "namespace"):
        if not DNS1123.fullmatch(str(meta.get(key, ""))):
            errs.append(f"metadata.{key} {meta.get(key)!r} is not a DNS-1123 name")
    return errs


def documents():
    """[(file name, object)] of every manifest in docs/examples/soperator-*.yaml."""
    out = []
    for path in sorted(glob.glob(os.path.join(EXAMPLES, "soperator-*.yaml"))):
        with open(path) as f:
            out += [(os.path.basename(path), d) for d in yaml.safe_load_all(f) if d]
    return out


def validate_all(vals, docs):
    n = 0
    for name, obj in docs:
        key = (obj.get("apiVersion"), obj.get("kind"))
        if key not in vals:
            continue
        errs = errors_of(vals[key], obj)
        n += check(not errs, f"{name}: {obj['kind']} {obj['metadata'].get('name')} does not "
                   "validate against Soperator's CRD:\n  " + "\n  ".join(errs))
    kinds = sorted({o["kind"] for _, o in docs if (o.get("apiVersion"), o.get("kind")) in vals})
    check(kinds == ["JailedConfig", "SlurmCluster"], f"examples validated: {kinds}")
    print(f"ok: {n} manifests ({', '.join(kinds)}) validate against Soperator's CRDs")


def validator_can_fail(vals, docs):
    """A misspelt field and a wrong type are refused: the check is real."""
    cluster = next(o for _, o in docs if o["kind"] == "SlurmCluster")
    v = vals[(cluster["apiVersion"], "SlurmCluster")]
    typo = copy.deepcopy(cluster)
    typo["spec"]["slurmNodes"]["controller"]["openMetric"] = {"enabled": False}
    wrong = copy.deepcopy(cluster)
    wrong["spec"]["slurmNodes"]["exporter"]["enabled"] = "false"
    missing = copy.deepcopy(cluster)
    del missing["spec"]["slurmNodes"]["controller"]["slurmctld"]["image"]
    for what, obj in (("a misspelt field", typo), ("a string for a boolean", wrong),
                      ("a missing required field", missing)):
        check(errors_of(v, obj), f"{what} passes the validator")
    print("ok: the validator refuses a misspelt field, a wrong type, a missing field")


def recipe(docs):
    cluster = next(o for _, o in docs if o["kind"] == "SlurmCluster")
    spec = cluster["spec"]
    nodes = spec["slurmNodes"]
    check(nodes["exporter"].get("enabled") is False,
          "SlurmCluster: slurmNodes.exporter.enabled is not false")
    check(nodes["controller"].get("openMetrics", {}).get("enabled") is False,
          "SlurmCluster: slurmNodes.controller.openMetrics.enabled is not false")
    lines = [l.strip() for l in spec.get("customSlurmConfig", "").splitlines()]
    metrics_type = [l for l in lines if l.lower().startswith("metricstype")]
    check(metrics_type == ["MetricsType=metrics/soperator"],
          f"customSlurmConfig: MetricsType lines {metrics_type}")
    check("soperator-metrics" in nodes["controller"]["slurmctld"]["image"],
          "SlurmCluster: the slurmctld image is not the one with the plugin")
    # The conf reaches slurmctld: a JailedConfig of this cluster writes the
    # ConfigMap's key to the jail's /etc/slurm.
    maps = {o["metadata"]["name"]: o for _, o in docs if o["kind"] == "ConfigMap"}
    jailed = [o for _, o in docs if o["kind"] == "JailedConfig"]
    check(len(jailed) == 1, f"{len(jailed)} JailedConfigs")
    for j in jailed:
        check(j["metadata"].get("labels", {}).get("app.kubernetes.io/instance")
              == cluster["metadata"]["name"],
              "JailedConfig: app.kubernetes.io/instance is not the SlurmCluster's name "
              "(the sconfigcontroller of that cluster ignores it)")
        check(j["metadata"]["namespace"] == cluster["metadata"]["namespace"],
              "JailedConfig: not in the SlurmCluster's namespace")
        cm = maps.get(j["spec"]["configMap"]["name"])
        if not check(cm, f"JailedConfig names ConfigMap {j['spec']['configMap']['name']}, "
                     "which the examples do not define"):
            continue
        paths = {i["key"]: i["path"] for i in j["spec"]["items"]}
        check(paths == {"soperator_metrics.conf": "/etc/slurm/soperator_metrics.conf"},
              f"JailedConfig items {paths}")
        check("soperator_metrics.conf" in cm.get("data", {}), "ConfigMap has no soperator_metrics.conf")
    print("ok: the SlurmCluster turns Soperator's exporter and MetricsType off and loads "
          "metrics/soperator; the JailedConfig writes the conf for that cluster")
    return maps


def conf_parses(maps, config_check):
    for name, cm in maps.items():
        text = cm.get("data", {}).get("soperator_metrics.conf")
        if text is None:
            continue
        with tempfile.NamedTemporaryFile("w", suffix=".conf") as f:
            f.write(text)
            f.flush()
            r = subprocess.run([config_check, f.name], stdout=subprocess.PIPE, text=True)
        check(r.returncode == 0 and not r.stdout.strip(),
              f"ConfigMap {name}: soperator_metrics.conf is not clean for the plugin:\n{r.stdout}")
        print(f"ok: ConfigMap {name}: soperator_metrics.conf passes the plugin's parser")


def contained(part, whole):
    """Every key and value of `part` is in `whole` (lists: item by item)."""
    if isinstance(part, dict):
        return isinstance(whole, dict) and all(k in whole and contained(v, whole[k])
                                               for k, v in part.items())
    if isinstance(part, list):
        return isinstance(whole, list) and all(any(contained(p, w) for w in whole) for p in part)
    return part == whole


def page_snippets(docs):
    """Each ```yaml block of the page that follows a link to an example
    file ("(examples/NAME)") is part of that file's documents."""
    with open(PAGE) as f:
        text = f.read()
    n = 0
    for m in re.finditer(r"```yaml\n(.*?)```", text, re.S):
        before = text[:m.start()]
        named = re.findall(r"\(examples/([\w.-]+\.ya?ml)\)", before)
        if not check(named, f"{PAGE}: a yaml block at offset {m.start()} follows no example link"):
            continue
        source = named[-1]
        snippet = yaml.safe_load(m.group(1))
        path = os.path.join(EXAMPLES, source)
        if not check(os.path.exists(path), f"{PAGE}: links {source}, which does not exist"):
            continue
        with open(path) as f:
            objs = [d for d in yaml.safe_load_all(f) if d]
        n += check(any(contained(snippet, o) for o in objs),
                   f"{PAGE}: a yaml block is not part of {source}:\n{m.group(1)}")
    check(n >= 2, f"{PAGE}: only {n} yaml blocks checked")
    print(f"ok: {n} yaml blocks of docs/soperator.md are parts of the example files")


def main():
    config_check = sys.argv[1]
    vals = validators()
    docs = documents()
    validate_all(vals, docs)
    validator_can_fail(vals, docs)
    maps = recipe(docs)
    conf_parses(maps, config_check)
    page_snippets(docs)
    for f in failures:
        print("FAIL:", f)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
