#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Our .deb beside SchedMD's own slurm-smd packages, installed the way an
admin on Debian or Ubuntu does it, in a throwaway Debian root:

- SchedMD's packages are built from the release archive with SchedMD's
  debian/ (scripts/slurm-smd-debs.sh, cached);
- ours is built by packaging/deb/build-deb.sh --packaging slurm-smd
  against that packaging build's own configured tree;
- a fresh root (debootstrap, tests/packaging/debroot.py) gets
  slurm-smd-slurmctld and soperator-metrics with `apt-get install` from a
  local repository holding both, dependencies from Debian's archive: the
  plugin must land in SchedMD's plugin directory, and apt must find every
  dependency of ours (exact slurm-smd-slurmctld version included);
- in that root, with slurm-smd-slurmctld alone installed, the install
  steps of docs/examples/soperator-controller.Dockerfile run as the image
  build runs them (tests/packaging/test_soperator_image.py: a .deb built
  for another Slurm refused, ours installed and linked into Soperator's
  PluginDir, then purged);
- that root's slurmctld is started (chroot) with MetricsType=metrics/soperator
  and one node, and its own port must serve /metrics/soperator with the
  node, from the installed plugin.

usage: test_smd_deb.py SLURM_VERSION OUTDIR
"""

import http.client
import os
import shutil
import signal
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import ROOT, port_base, run, skip, wait_for  # noqa: E402
from debroot import DebRoot  # noqa: E402


def deb_field(deb, field):
    return run("dpkg-deb", "-f", deb, field).strip()


def main():
    version, outdir = sys.argv[1], sys.argv[2]
    if os.geteuid() != 0:
        skip("debootstrap, chroot and mount need root")
    for tool in ("debootstrap", "dpkg-scanpackages", "chroot"):
        if not shutil.which(tool):
            skip(f"{tool} not installed (scripts/install-deps.sh)")
    shutil.rmtree(outdir, ignore_errors=True)
    os.makedirs(outdir)

    debs_dir = run(os.path.join(ROOT, "scripts", "slurm-smd-debs.sh"), version,
                   timeout=7200).strip().splitlines()[-1]
    gnu = run("dpkg-architecture", "-qDEB_BUILD_GNU_TYPE").strip()
    multiarch = run("dpkg-architecture", "-qDEB_HOST_MULTIARCH").strip()
    tree = os.path.join(os.path.dirname(debs_dir), "tree", f"obj-{gnu}")
    smd = {deb_field(os.path.join(debs_dir, d), "Package"): os.path.join(debs_dir, d)
           for d in os.listdir(debs_dir) if d.endswith(".deb")}
    ctld_deb = smd["slurm-smd-slurmctld"]
    ctld_version = deb_field(ctld_deb, "Version")
    print(f"SchedMD's packages: {len(smd)} .debs, slurm-smd-slurmctld {ctld_version}")

    ours = run(os.path.join(ROOT, "packaging", "deb", "build-deb.sh"),
               "--packaging", "slurm-smd", "--slurmctld-version", ctld_version,
               "--slurm-src", tree, "--outdir", outdir, version).strip().splitlines()[-1]
    depends = [d.strip() for d in deb_field(ours, "Depends").split(",")]
    assert depends[0] == f"slurm-smd-slurmctld (= {ctld_version})", depends
    plugindir = f"/usr/lib/{multiarch}/slurm"
    listing = run("dpkg-deb", "-c", ours)
    for so in ("metrics_soperator.so", "job_submit_soperator.so"):
        assert f".{plugindir}/{so}" in listing, f"{so} not in {plugindir}:\n{listing}"
    print(f"ok: {os.path.basename(ours)}: Depends {depends[0]}, plugins in {plugindir}")

    with DebRoot() as root:
        # SchedMD's controller first, as a Soperator image has it, and the
        # image layer's install steps on it.
        root.install_debs(list(smd.values()) + [ours], ["slurm-smd-slurmctld"])
        image = subprocess.run([sys.executable, os.path.join(ROOT, "tests", "packaging",
                                                             "test_soperator_image.py"),
                                root.path, ours], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, timeout=900)
        print(image.stdout.decode(errors="replace").rstrip())
        assert image.returncode == 0, "the image's install steps failed in the root"
        # What an admin installs: our package by name, beside the controller.
        root.chroot("apt-get", "install", "-y", "-q", "--no-install-recommends",
                    "soperator-metrics")
        installed = root.chroot("dpkg-query", "-W", "-f", "${Package} ${Version}\\n",
                                "slurm-smd", "slurm-smd-slurmctld", "soperator-metrics")
        print("installed in the root:\n  " + installed.strip().replace("\n", "\n  "))
        owned = root.chroot("dpkg", "-L", "soperator-metrics").split()
        theirs = root.chroot("dpkg", "-L", "slurm-smd").split()
        assert f"{plugindir}/metrics_soperator.so" in owned, owned
        assert f"{plugindir}/select_cons_tres.so" in theirs, \
            "SchedMD's plugins are not where ours went"
        print(f"ok: ours and SchedMD's plugins both in {plugindir}")
        serve(root, version)


def serve(root, version):
    """The root's slurmctld with MetricsType=metrics/soperator, and its port."""
    port = port_base()
    host = socket.gethostname().split(".")[0]
    # munged: the machine's, through its socket (slurmctld only asks it).
    subprocess.run([os.path.join(ROOT, "scripts", "test-cluster.sh"), "munge"], check=True)
    root.bind("/run/munge", "run/munge")
    conf = "\n".join([
        "ClusterName=smd",
        f"SlurmctldHost={host}(127.0.0.1)",
        f"SlurmctldPort={port}",
        f"SlurmdPort={port + 1}",
        "SlurmUser=root",
        "AuthType=auth/munge",
        "CredType=cred/munge",
        "StateSaveLocation=/var/spool/slurmctld",
        "SlurmctldPidFile=/run/slurmctld.pid",
        "SlurmctldLogFile=/var/log/slurm/slurmctld.log",
        "SlurmctldDebug=info",
        "MpiDefault=none",
        "ProctrackType=proctrack/linuxproc",
        "MailProg=/bin/true",
        "MetricsType=metrics/soperator",
        # A node that never registers: the plugin has a node to report.
        f"NodeName=smdnode NodeAddr=127.0.0.1 Port={port + 84} CPUs=2 RealMemory=1000 "
        "State=UNKNOWN",
        "PartitionName=debug Nodes=ALL Default=YES State=UP",
    ]) + "\n"
    os.makedirs(root._p("etc/slurm"), exist_ok=True)
    with open(root._p("etc/slurm/slurm.conf"), "w") as f:
        f.write(conf)
    os.makedirs(root._p("var/spool/slurmctld"), exist_ok=True)
    os.makedirs(root._p("var/log/slurm"), exist_ok=True)
    out = open(os.path.join(root.path, "var/log/slurm/slurmctld.out"), "wb")
    ctld = subprocess.Popen(["chroot", root.path, "/usr/sbin/slurmctld", "-D", "-i"],
                            stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                            env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin"},
                            start_new_session=True)
    try:
        got = {}

        def served():
            if ctld.poll() is not None:
                raise AssertionError(f"slurmctld exited ({ctld.returncode}):\n" + log(root))
            try:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
                conn.request("GET", "/metrics/soperator")
                r = conn.getresponse()
                got["r"] = (r.status, r.read().decode(errors="replace"))
                conn.close()
            except OSError:
                return False
            return got["r"][0] == 200 and 'node_name="smdnode"' in got["r"][1]
        try:
            wait_for("/metrics/soperator on the root's slurmctld", served, timeout=120,
                     interval=0.5)
        except AssertionError:
            raise AssertionError(f"last answer {got.get('r', ('none', ''))[0]}:\n"
                                 f"{got.get('r', ('', ''))[1][:500]}\n{log(root)}")
        body = got["r"][1]
        assert "slurm_node_info{" in body and "slurm_partition_" in body, body[:2000]
        with open(f"/proc/{ctld.pid}/maps") as f:
            maps = f.read()
        assert "/metrics_soperator.so" in maps, "the installed plugin is not mapped"
        line = next(l for l in log(root).splitlines() if "soperator-metrics" in l)
        print(f"ok: slurm-smd {version}'s slurmctld serves /metrics/soperator "
              f"({len(body)} bytes); its log: {line.strip()}")
    finally:
        ctld.send_signal(signal.SIGTERM)
        try:
            rc = ctld.wait(60)
        except subprocess.TimeoutExpired:
            ctld.kill()
            rc = ctld.wait()
        out.close()
    assert rc == 0, f"slurmctld exited with {rc} after SIGTERM:\n{log(root)}"


def log(root):
    texts = []
    for name in ("slurmctld.log", "slurmctld.out"):
        try:
            with open(root._p(f"var/log/slurm/{name}"), errors="replace") as f:
                texts.append(f"--- {name}:\n" + "".join(f.readlines()[-30:]))
        except OSError:
            pass
    return "\n".join(texts)


if __name__ == "__main__":
    t0 = time.monotonic()
    main()
    print(f"done in {time.monotonic() - t0:.0f} s")
