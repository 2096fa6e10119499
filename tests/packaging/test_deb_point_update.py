#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""packaging/deb/build-deb.sh after a Debian point update of slurmctld,
without touching this machine's Slurm packages or its apt configuration:

- a local file: archive holds slurm-wlm 22.05.8-4+deb12u99, a source
  package made from the real one (the installed slurmctld's, as
  scripts/slurm-source.sh keeps it) with one new changelog entry;
- an apt configuration of the test's own names only that archive
  ($SM_APT_ETC): a one-line sources.list for the build, a deb822 .sources
  file for the refusal; the Slurm cache is the test's own ($SM_CACHE);
- build-deb.sh --slurmctld-version 22.05.8-4+deb12u99 (the "installed"
  version after the update) builds from exactly that source (its tree's
  changelog says deb12u99) and depends on slurmctld (= 22.05.8-4+deb12u99);
- build-deb.sh --slurmctld-version 22.05.8-4+deb12u98 (a source the
  archive does not have) fails and names both versions;
- /etc/apt, apt's lists and the installed slurmctld are as before.

usage: test_deb_point_update.py OUTDIR
"""

import glob
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import ROOT, run, skip  # noqa: E402

NEW = "22.05.8-4+deb12u99"
GONE = "22.05.8-4+deb12u98"


def snapshot(*dirs):
    """Every file under dirs with its content's hash (apt's lists: name,
    size and mtime only)."""
    out = {}
    for d in dirs:
        for base, _, files in os.walk(d):
            for f in files:
                p = os.path.join(base, f)
                st = os.lstat(p)
                if d.startswith("/etc/") and os.path.isfile(p):
                    with open(p, "rb") as fh:
                        out[p] = hashlib.sha256(fh.read()).hexdigest()
                else:
                    out[p] = (st.st_size, st.st_mtime_ns)
    return out


def make_archive(outdir, dsc):
    """A file: archive with one source package: the real one plus a
    changelog entry for NEW."""
    work = os.path.join(outdir, "src")
    os.makedirs(work)
    run("dpkg-source", "-x", dsc, os.path.join(work, "slurm-wlm-22.05.8"))
    tree = os.path.join(work, "slurm-wlm-22.05.8")
    changelog = os.path.join(tree, "debian", "changelog")
    with open(changelog) as f:
        old = f.read()
    entry = (f"slurm-wlm ({NEW}) bookworm-security; urgency=medium\n\n"
             "  * Simulated point update (soperator-metrics' packaging test).\n\n"
             " -- soperator-metrics tests <tests@invalid>  Wed, 02 Dec 2026 00:00:00 +0000\n\n")
    with open(changelog, "w") as f:
        f.write(entry + old)
    # dpkg-source -b wants the orig tarball beside the tree (-x may have
    # left it there).
    for orig in glob.glob(os.path.join(os.path.dirname(dsc), "slurm-wlm_22.05.8.orig.tar.*")):
        if not os.path.exists(os.path.join(work, os.path.basename(orig))):
            os.symlink(orig, os.path.join(work, os.path.basename(orig)))
    run("dpkg-source", "-b", "slurm-wlm-22.05.8", cwd=work)
    repo = os.path.join(outdir, "repo")
    pool = os.path.join(repo, "pool", "main", "s", "slurm-wlm")
    os.makedirs(pool)
    for f in glob.glob(os.path.join(work, f"slurm-wlm_{NEW.split(':')[-1]}*")) + \
            glob.glob(os.path.join(work, "slurm-wlm_22.05.8.orig.tar.*")):
        shutil.copy(f, pool)
    sdir = os.path.join(repo, "dists", "bookworm", "main", "source")
    os.makedirs(sdir)
    sources = run("dpkg-scansources", "pool", cwd=repo)
    with open(os.path.join(sdir, "Sources"), "w") as f:
        f.write(sources)
    with open(os.path.join(sdir, "Sources"), "rb") as f:
        data = f.read()
    with open(os.path.join(repo, "dists", "bookworm", "Release"), "w") as f:
        f.write("Origin: soperator-metrics-test\nSuite: bookworm\nCodename: bookworm\n"
                "Date: Wed, 02 Dec 2026 00:00:00 UTC\n"
                "Components: main\nArchitectures: amd64 source\n"
                f"SHA256:\n {hashlib.sha256(data).hexdigest()} {len(data)} main/source/Sources\n")
    shutil.rmtree(work)
    return repo


def main():
    outdir = os.path.abspath(sys.argv[1])
    if os.geteuid() != 0:
        skip("apt-get update needs root")
    ctld = run("dpkg-query", "-W", "-f=${Version} ${source:Version}", "slurmctld", check=False).split()
    if len(ctld) != 2 or not ctld[0].startswith("22.05.8-"):
        skip(f"Debian's slurmctld 22.05.8 is not installed (found {ctld or 'none'})")
    shutil.rmtree(outdir, ignore_errors=True)
    os.makedirs(outdir)
    # The real source package of the installed slurmctld, as
    # scripts/slurm-source.sh keeps it next to its tree.
    tree = run(os.path.join(ROOT, "scripts", "slurm-source.sh"), "22.05.8").strip().splitlines()[-1]
    dsc = os.path.join(os.path.dirname(tree), f"slurm-wlm_{ctld[1]}.dsc")
    assert os.path.exists(dsc), f"no {dsc} next to {tree}"
    repo = make_archive(outdir, dsc)
    print(f"ok: file: archive with slurm-wlm {NEW}, made from {os.path.basename(dsc)}")

    one_line = os.path.join(outdir, "apt-one-line")
    os.makedirs(os.path.join(one_line, "sources.list.d"))
    with open(os.path.join(one_line, "sources.list"), "w") as f:
        f.write(f"# the archive of the point update\ndeb [trusted=yes] file:{repo} bookworm main\n")
    deb822 = os.path.join(outdir, "apt-deb822")
    os.makedirs(os.path.join(deb822, "sources.list.d"))
    with open(os.path.join(deb822, "sources.list.d", "point-update.sources"), "w") as f:
        f.write(f"Types: deb\nURIs: file:{repo}\nSuites: bookworm\nComponents: main\nTrusted: yes\n")

    # Outside the checkout: meson refuses a Slurm tree inside the source
    # tree it builds.
    cache = tempfile.mkdtemp(prefix="sm-deb-point-update-")
    try:
        check_builds(outdir, cache, one_line, deb822, ctld)
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    shutil.rmtree(outdir, ignore_errors=True)


def check_builds(outdir, cache, one_line, deb822, ctld):
    watched = ("/etc/apt", "/var/lib/apt/lists")
    before = snapshot(*watched)
    build = [os.path.join(ROOT, "packaging", "deb", "build-deb.sh"), "--outdir",
             os.path.join(outdir, "deb")]
    env = dict(os.environ, SM_CACHE=cache, SM_APT_ETC=one_line)

    # The point update: built from its own source, depending on it.
    deb = run(*build, "--slurmctld-version", NEW, "22.05.8", env=env).strip().splitlines()[-1]
    depends = [d.strip() for d in run("dpkg-deb", "-f", deb, "Depends").split(",")]
    assert depends[0] == f"slurmctld (= {NEW})", depends
    with open(os.path.join(cache, "src", "slurm-wlm-22.05.8", "debian", "changelog")) as f:
        first = f.readline()
    assert first.startswith(f"slurm-wlm ({NEW})"), first
    print(f"ok: {os.path.basename(deb)}: Depends {depends[0]}, built from slurm-wlm {NEW}")

    # A version the archive does not have: refused, naming both.
    env = dict(os.environ, SM_CACHE=cache, SM_APT_ETC=deb822)
    r = subprocess.run(build + ["--slurmctld-version", GONE, "22.05.8"], env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    err = r.stderr.decode()
    assert r.returncode != 0, "built against a source the archive does not have"
    assert f"slurm-wlm={GONE}" in err and NEW in err, err
    print("ok: refused: " + next(line for line in err.splitlines() if GONE in line))

    after = snapshot(*watched)
    assert after == before, f"apt changed: {sorted(set(after.items()) ^ set(before.items()))}"
    now = run("dpkg-query", "-W", "-f=${Version} ${source:Version}", "slurmctld").split()
    assert now == ctld, f"slurmctld changed: {ctld} -> {now}"
    print(f"ok: /etc/apt and apt's lists as before; slurmctld still {ctld[0]}")


if __name__ == "__main__":
    main()
