#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The .deb for Debian's own Slurm, end to end on this machine:
packaging/deb/build-deb.sh builds it; its control fields (exact slurmctld
dependency), file list and conffiles are what install.md says; lintian
reports no error or warning; dpkg installs it; a loopback cluster WITHOUT
--plugin-dir (slurm.conf has no PluginDir: Debian's default directory)
loads the installed plugin, configured by the installed example
soperator_metrics.conf plus two listener lines, and serves /metrics; then
the package is purged and the machine is as before.

usage: test_deb.py SLURM_VERSION SLURM_SRC OUTDIR
"""

import fcntl
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import (ROOT, Cluster, http_get, parse_exposition, run, skip,  # noqa: E402
                    wait_for)

PKG = "soperator-metrics"
CONF = "/etc/slurm/soperator_metrics.conf"


def dpkg_status(pkg):
    r = subprocess.run(["dpkg-query", "-W", "-f=${Status}", pkg],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    return r.stdout.decode() if r.returncode == 0 else ""


def main():
    version, tree, outdir = sys.argv[1], sys.argv[2], sys.argv[3]
    if os.geteuid() != 0:
        skip("installing a package needs root")
    # One install at a time on this machine, whichever checkout or build
    # directory runs the test.
    lock = open("/run/lock/soperator-metrics-deb-test.lock", "w")
    fcntl.flock(lock, fcntl.LOCK_EX)
    ctld = run("dpkg-query", "-W", "-f=${Version}", "slurmctld", check=False).strip()
    if not ctld.startswith(version + "-"):
        skip(f"Debian's slurmctld {version} is not installed (found {ctld or 'none'})")
    multiarch = run("dpkg-architecture", "-qDEB_HOST_MULTIARCH").strip()
    arch = run("dpkg-architecture", "-qDEB_HOST_ARCH").strip()
    plugindir = f"/usr/lib/{multiarch}/slurm-wlm"
    sos = [f"{plugindir}/job_submit_soperator.so", f"{plugindir}/metrics_soperator.so"]

    # Never clobber: the machine must not have the package or its files.
    assert not dpkg_status(PKG), f"{PKG} is already known to dpkg ({dpkg_status(PKG)}); remove it first"
    for f in sos + [CONF]:
        assert not os.path.exists(f), f"{f} exists before the test; refusing to overwrite it"

    deb = run(os.path.join(ROOT, "packaging", "deb", "build-deb.sh"), "--slurm-src", tree,
              "--outdir", outdir, version).strip().splitlines()[-1]
    pkg_version = re.search(r"_([^_]+)_[^_]+\.deb$", deb).group(1)
    assert pkg_version.endswith(f"+slurm{version}"), pkg_version
    assert os.path.basename(deb) == f"{PKG}_{pkg_version}_{arch}.deb", deb
    print(f"built {deb}")

    # Control fields.
    fields = {k: run("dpkg-deb", "-f", deb, k).strip()
              for k in ("Package", "Version", "Architecture", "Depends")}
    assert fields["Package"] == PKG and fields["Architecture"] == arch, fields
    depends = [d.strip() for d in fields["Depends"].split(",")]
    assert depends[0] == f"slurmctld (= {ctld})", f"not an exact slurmctld dependency: {depends}"
    for lib in ("libssl3", "libyaml-cpp0.7", "libcrypt1", "zlib1g", "libstdc++6", "libc6"):
        assert any(d.startswith(lib + " ") or d == lib for d in depends), f"{lib} missing: {depends}"
    print(f"ok: Depends: {fields['Depends']}")

    # Contents and conffiles.
    listing = run("dpkg-deb", "-c", deb)
    files = {line.split()[-1].lstrip(".") for line in listing.splitlines()
             if not line.startswith("d")}
    docs = {f"/usr/share/doc/{PKG}/{n}" for n in ("copyright", "changelog.Debian.gz")}
    markdown = [os.path.join(ROOT, "README.md")] + [
        os.path.join(ROOT, "docs", n) for n in sorted(os.listdir(os.path.join(ROOT, "docs")))
        if n.endswith(".md")]
    for path in markdown:
        # Policy 12.3: over 4 kB compressed.
        docs.add(f"/usr/share/doc/{PKG}/{os.path.basename(path)}"
                 + (".gz" if os.path.getsize(path) > 4096 else ""))
    for n in sorted(os.listdir(os.path.join(ROOT, "docs", "examples"))):
        docs.add(f"/usr/share/doc/{PKG}/examples/{n}")
    want = set(sos) | {CONF} | docs
    assert files == want, f"unexpected contents:\n+ {sorted(files - want)}\n- {sorted(want - files)}"
    for line in listing.splitlines():
        if line.split()[-1].endswith(".so"):
            assert line.startswith("-rw-r--r-- root/root"), line
    ctrl = os.path.join(outdir, "control")
    shutil.rmtree(ctrl, ignore_errors=True)
    run("dpkg-deb", "-e", deb, ctrl)
    with open(os.path.join(ctrl, "conffiles")) as f:
        assert f.read().split() == [CONF]
    print(f"ok: {len(files)} files, {CONF} a conffile")

    # lintian: nothing above "info".
    lint = run("lintian", "--tag-display-limit", "0", deb, check=False)
    tags = [line for line in lint.splitlines() if re.match(r"^[EW]: ", line)]
    print("lintian:", lint.strip().replace("\n", "\n  ") or "clean")
    assert not tags, f"lintian errors/warnings: {tags}"

    c = None
    installed = False
    try:
        run("dpkg", "-i", deb)
        installed = True
        assert dpkg_status(PKG) == "install ok installed", dpkg_status(PKG)
        owned = run("dpkg", "-L", PKG).split()
        for f in sos + [CONF]:
            assert f in owned and os.path.exists(f), f
        print(f"ok: installed {PKG} {pkg_version}")

        # The installed example, as shipped, plus listener lines for free
        # ports: the shipped file must parse without a single complaint.
        with open(CONF) as f:
            shipped = f.read()
        c = Cluster(version, plugin_dir=None, metrics_conf=shipped + "\n")
        c_conf = (f"MetricsBindAddress=127.0.0.1:{c.metrics_port}\n"
                  f"MonitoringBindAddress=127.0.0.1:{c.monitoring_port}\n"
                  "CollectionInterval=1s\nLogLevel=info\n")
        with open(c.args[c.args.index("--metrics-conf") + 1], "a") as f:
            f.write(c_conf)
        c.start()
        with open(os.path.join(c.cdir, "etc", "slurm.conf")) as f:
            assert "PluginDir" not in f.read(), "the cluster must use slurmctld's default PluginDir"
        wait_for("the listener", lambda: http_get(c.url("/health"))[0] == 200, timeout=30)
        log = c.log()
        assert "soperator-metrics: metrics listener listening" in log, log[-2000:]
        complaints = [line for line in log.splitlines()
                      if "soperator-metrics:" in line and "error:" in line]
        assert not complaints, f"the shipped config was not accepted: {complaints}"
        # The very file the package installed is mapped into slurmctld.
        with open(f"/proc/{c.ctld_pid()}/maps") as f:
            maps = f.read()
        assert sos[0] in maps, "slurmctld did not load the installed job_submit_soperator.so"

        def three_nodes():
            expo = parse_exposition(c.scrape())
            return sorted(s["node_name"] for s in expo.get("slurm_node_info", []))
        nodes = wait_for("slurm_node_info for 3 nodes",
                         lambda: three_nodes() == ["ghost1", "ghost2", "vm"] and three_nodes(),
                         timeout=30)
        print(f"ok: slurmctld loaded {sos[0]}; /metrics has slurm_node_info for {nodes}")
    finally:
        if c:
            c.cleanup()
        if installed:
            run("dpkg", "--purge", PKG)
    assert not dpkg_status(PKG), f"{PKG} still known to dpkg: {dpkg_status(PKG)}"
    for f in sos + [CONF]:
        assert not os.path.exists(f), f"{f} left behind"
    print(f"ok: purged {PKG}; no file left")


if __name__ == "__main__":
    main()
