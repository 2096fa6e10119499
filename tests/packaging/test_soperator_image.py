#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The install steps of docs/examples/soperator-controller.Dockerfile
(docs/examples/soperator-install-plugin.sh), run as the image build runs
them: as root inside a Debian-like root whose Slurm is SchedMD's slurm-smd
packages, with our .deb (built for that Slurm) beside the script.

- A copy of the .deb whose plugins say they were built for another Slurm
  (one byte of the version changed) is refused before anything is
  installed.
- The .deb itself installs; its plugins are linked into /usr/lib/slurm,
  Soperator's PluginDir (made in the root when it has none, as Soperator's
  images have it), every library they need resolves, and they were built
  for exactly the Slurm `slurmctld -V` reports there.

Afterwards the package is purged and the links removed again, unless
--keep.

usage: test_soperator_image.py [ROOT DEB] [--keep]
       (or SM_SMD_ROOT and SM_SMD_DEB in the environment)
Exit 77 (skipped) without a root that has slurm-smd-slurmctld installed.
"""

import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT_DIR, "docs", "examples", "soperator-install-plugin.sh")
MARKER = re.compile(rb"soperator-metrics-build:[0-9A-Za-z.+~-]*:([0-9A-Za-z.+~-]*):end")
SKIP = 77


def skip(why):
    print(f"SKIP: {why}")
    sys.exit(SKIP)


def in_root(root, *args, check=True):
    r = subprocess.run(["chroot", root, *args], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, timeout=600)
    out = r.stdout.decode(errors="replace")
    if check and r.returncode != 0:
        raise AssertionError(f"{' '.join(args)} in {root}: exit {r.returncode}\n{out}")
    return r.returncode, out


def installed(root, package):
    rc, out = in_root(root, "dpkg-query", "-W", "-f=${Status}", package, check=False)
    return rc == 0 and "install ok installed" in out


def other_slurm_copy(deb, workdir):
    """The .deb with each plugin's build marker naming another Slurm."""
    tree = os.path.join(workdir, "tree")
    subprocess.run(["dpkg-deb", "-R", deb, tree], check=True)
    changed = 0
    for so in glob.glob(os.path.join(tree, "**", "*_soperator.so"), recursive=True):
        with open(so, "rb") as f:
            data = bytearray(f.read())
        found = list(MARKER.finditer(data))
        assert len(found) == 1, f"{so}: {len(found)} build markers"
        i = found[0].end(1) - 1  # the last character of the version, same length
        data[i] = ord("0") if data[i] != ord("0") else ord("1")
        with open(so, "wb") as f:
            f.write(data)
        changed += 1
    assert changed, f"{deb} holds no plugin"
    out = os.path.join(workdir, os.path.basename(deb))
    subprocess.run(["dpkg-deb", "-b", tree, out], check=True, stdout=subprocess.DEVNULL)
    return out


def stage(root, files):
    """A fresh directory inside the root holding `files`; its path there."""
    d = tempfile.mkdtemp(prefix="sm-install-", dir=os.path.join(root, "tmp"))
    for f in files:
        shutil.copy(f, d)
    return d, "/" + os.path.relpath(d, root)


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    keep = "--keep" in sys.argv
    root = args[0] if args else os.environ.get("SM_SMD_ROOT", "")
    deb = args[1] if len(args) > 1 else os.environ.get("SM_SMD_DEB", "")
    if not root:
        skip("no root given (ROOT DEB, or SM_SMD_ROOT and SM_SMD_DEB)")
    if os.geteuid() != 0:
        skip("needs root (chroot)")
    if not os.path.isdir(root) or not installed(root, "slurm-smd-slurmctld"):
        skip(f"{root} has no slurm-smd-slurmctld installed")
    assert deb and os.path.isfile(deb), f"no .deb to install: {deb!r}"
    assert not installed(root, "soperator-metrics"), \
        f"soperator-metrics is already installed in {root}: purge it first"
    _, running = in_root(root, "slurmctld", "-V")
    running = running.strip().split()[-1]
    made_plugin_dir = not os.path.isdir(os.path.join(root, "usr/lib/slurm"))
    if made_plugin_dir:
        os.makedirs(os.path.join(root, "usr/lib/slurm"))
    work = tempfile.mkdtemp(prefix="sm-image-test-")
    staged = []
    try:
        # Built for another Slurm: refused, nothing installed.
        wrong = other_slurm_copy(deb, work)
        d, inside = stage(root, [SCRIPT, wrong])
        staged.append(d)
        rc, out = in_root(root, "/bin/bash", f"{inside}/soperator-install-plugin.sh", check=False)
        assert rc != 0, f"a plugin built for another Slurm was installed:\n{out}"
        assert f"but slurmctld here is Slurm {running}" in out, out
        assert not installed(root, "soperator-metrics"), "refused, yet installed"
        print(f"ok: a build for another Slurm is refused: {out.strip().splitlines()[-1]}")

        # The real one.
        d, inside = stage(root, [SCRIPT, deb])
        staged.append(d)
        _, out = in_root(root, "/bin/bash", f"{inside}/soperator-install-plugin.sh")
        assert installed(root, "soperator-metrics"), out
        _, listing = in_root(root, "dpkg", "-L", "soperator-metrics")
        plugins = [p for p in listing.split() if p.endswith("_soperator.so")]
        assert len(plugins) == 2, f"expected two plugins, got {plugins}"
        for p in plugins:
            with open(os.path.join(root, p.lstrip("/")), "rb") as f:
                m = MARKER.search(f.read())
            assert m and m.group(1).decode() == running, \
                f"{p} built for {m and m.group(1)}, slurmctld is {running}"
            link = os.path.join(root, "usr/lib/slurm", os.path.basename(p))
            if os.path.dirname(p) != "/usr/lib/slurm":
                assert os.path.islink(link) and os.readlink(link) == p, \
                    f"{link} does not point to {p}"
            _, ldd = in_root(root, "ldd", p)
            assert "not found" not in ldd, ldd
        print(f"ok: installed for Slurm {running}: {', '.join(plugins)} linked into "
              "/usr/lib/slurm, every library found")
        print(out.strip().splitlines()[-1])
    finally:
        for d in staged:
            shutil.rmtree(d, ignore_errors=True)
        shutil.rmtree(work, ignore_errors=True)
        if not keep:
            if installed(root, "soperator-metrics"):
                in_root(root, "dpkg", "--purge", "soperator-metrics", check=False)
            for link in glob.glob(os.path.join(root, "usr/lib/slurm", "*_soperator.so")):
                if os.path.islink(link):
                    os.unlink(link)
            if made_plugin_dir:
                shutil.rmtree(os.path.join(root, "usr/lib/slurm"), ignore_errors=True)


if __name__ == "__main__":
    main()
