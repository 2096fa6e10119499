#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Our RPM installed beside SchedMD's own RPMs of one Slurm release, and
loaded by that install's slurmctld:

1. scripts/slurm-rpms.sh builds SchedMD's RPMs with their slurm.spec from
   the release archive (cached: a full Slurm compile);
2. packaging/rpm/build-rpm.sh builds ours against the tree slurm.spec
   configured (its BUILD directory), with g++-11 (EL9's compiler) where
   installed;
3. every Requires of ours, and of the Slurm RPMs installed, is provided by
   SchedMD's RPM set or is a system library of this machine (ldconfig), a
   file that exists here, a package installed here by that name, or rpm
   itself; nothing Slurm's may be a system requirement;
4. a throwaway root: an RPM database of its own, a small package built here
   that provides exactly those system requirements (nothing of Slurm's),
   then slurm, slurm-slurmctld, slurm-slurmd and ours installed with rpm
   --root WITHOUT --nodeps: rpm checks every Slurm dependency and ours;
5. ours lands in %{_libdir}/slurm, the directory slurm.spec puts Slurm's
   own plugins in;
6. that root's slurmctld and slurmd (LD_LIBRARY_PATH and PluginDir into the
   root) run a loopback cluster (scripts/test-cluster.sh) with
   MetricsType=metrics/soperator; /metrics/soperator on slurmctld's own
   port serves slurm_node_info for the cluster's nodes, and slurmctld has
   the installed metrics_soperator.so mapped;
7. the root is removed.

Scriptlets are not run (rpm --noscripts): the root holds no shell. Ours
has none (checked); SchedMD's run ldconfig, bash-completion links and
systemd presets.

usage: test_rpm_install.py SLURM_VERSION OUTDIR
"""

import glob
import os
import re
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import (ROOT, Cluster, http_get, parse_exposition, run, skip,  # noqa: E402
                    wait_for)

NAME = "soperator-metrics"
# What a controller with a node needs from SchedMD's set.
INSTALL = ("slurm", "slurm-slurmctld", "slurm-slurmd")


class Timer:
    def __init__(self):
        self.steps = []

    def step(self, what, fn, *args, **kw):
        start = time.monotonic()
        out = fn(*args, **kw)
        took = time.monotonic() - start
        self.steps.append((what, took))
        print(f"time: {what}: {took:.0f} s", flush=True)
        return out


def q(rpm, *args):
    return run("rpm", "-qp", "--nosignature", *args, rpm).splitlines()


def host_sonames():
    """x86-64 sonames the dynamic linker finds on this machine."""
    out = run("ldconfig", "-p")
    return {m.group(1) for m in re.finditer(r"^\s+(\S+) \(libc6,x86-64[^)]*\)", out, re.M)}


def satisfied(req, provides):
    """req "name [op version]" against a set of provides "name [= evr]"."""
    parts = req.split()
    name = parts[0]
    if len(parts) == 1:
        return any(p.split()[0] == name for p in provides)
    op, want = parts[1], parts[2]
    for p in provides:
        pp = p.split()
        if pp[0] != name or len(pp) < 3:
            continue
        have = pp[2]
        # "= 26.05.3" matches any release of 26.05.3; EVRs compare exactly.
        if op == "=" and (have == want or have.startswith(want + "-")):
            return True
        if op == ">=" and run("rpm", "--eval", f"%{{lua: print(rpm.vercmp('{have}', '{want}'))}}").strip() in ("0", "1"):
            return True
    return False


def system_requirement(req, sonames):
    """True when req is something this machine provides outside rpm: a
    shared library the dynamic linker finds, an existing file, or an
    rpmlib feature (rpm itself)."""
    name = req.split()[0]
    if name.startswith("rpmlib(") or name == "rtld(GNU_HASH)":
        return True
    if name.startswith("/"):
        return os.path.exists(name)
    m = re.match(r"^([^()/]+\.so[^()]*)\(", name)
    if m:
        return m.group(1) in sonames
    # A package by name (slurm requires bash-completion): installed here.
    r = subprocess.run(["dpkg-query", "-W", "-f=${Status}", name], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL)
    return r.stdout == b"install ok installed"


def provider_spec(path, provides):
    with open(path, "w") as f:
        f.write("Name: sm-system-libraries\nVersion: 1\nRelease: 1\n"
                "Summary: What this machine provides outside rpm (test only)\n"
                "License: GPL-2.0-or-later\nBuildArch: noarch\n")
        for p in sorted(provides):
            f.write(f"Provides: {p}\n")
        f.write("\n%description\nThe system libraries, files and rpm features SchedMD's\n"
                "Slurm RPMs and soperator-metrics require, as found on the\n"
                "machine that runs the test.\n\n%files\n")


def main():
    version, outdir = sys.argv[1], os.path.abspath(sys.argv[2])
    if os.geteuid() != 0:
        skip("rpm --root and a loopback Slurm cluster need root")
    for tool in ("rpmbuild", "rpm", "ldconfig"):
        if not shutil.which(tool):
            skip(f"{tool} not installed")
    timer = Timer()
    shutil.rmtree(outdir, ignore_errors=True)
    os.makedirs(outdir)

    # 1. SchedMD's RPMs.
    built = timer.step(f"slurm.spec RPMs of {version} (scripts/slurm-rpms.sh)", run,
                       os.path.join(ROOT, "scripts", "slurm-rpms.sh"), version)
    sdir = built.strip().splitlines()[-1]
    arch = run("rpm", "--eval", "%{_arch}").strip()
    libdir = run("rpm", "--eval", "%{_libdir}").strip()
    rpms = sorted(glob.glob(os.path.join(sdir, "RPMS", arch, "*.rpm")))
    by_name = {q(r, "--qf", "%{NAME}")[0]: r for r in rpms}
    for n in INSTALL + ("slurm-devel",):
        assert n in by_name, f"slurm.spec made no {n}: {sorted(by_name)}"
    tree = os.path.join(sdir, "BUILD", f"slurm-{version}")
    print(f"SchedMD's RPMs: {', '.join(sorted(by_name))}")

    # 2. Ours, from the two release tarballs alone, as a clean build root
    # (mock, Koji) builds it: our tarball and the Slurm release archive
    # slurm.spec was built from (Source1, configured by our %build), in a
    # network namespace of its own; the tree only where the archive is not
    # there.
    env = dict(os.environ)
    if shutil.which("g++-11"):
        env.update(CC="gcc-11", CXX="g++-11")
    archive = os.path.join(ROOT, "..", "shared", "slurm-src", f"slurm-{version}.tar.xz")
    archives = os.environ.get("SM_SLURM_ARCHIVES")
    if archives:
        archive = os.path.join(archives, f"slurm-{version}.tar.xz")
    source = ["--slurm-tarball", archive] if os.path.isfile(archive) else ["--slurm-src", tree]
    build = [os.path.join(ROOT, "packaging", "rpm", "build-rpm.sh"), *source,
             "--outdir", os.path.join(outdir, "ours"), version]
    if source[0] == "--slurm-tarball" and shutil.which("unshare") and subprocess.run(
            ["unshare", "--net", "true"], stderr=subprocess.DEVNULL).returncode == 0:
        build = ["unshare", "--net", "--", *build]
    ours = timer.step(f"our RPM (packaging/rpm/build-rpm.sh {source[0]})", run, *build, env=env)
    ours = ours.strip().splitlines()[-1]
    print(f"built {ours} with {env.get('CXX', 'c++')}")
    assert not q(ours, "--scripts"), f"{NAME} has scriptlets: --noscripts would hide them"

    # 3. Requirements.
    set_provides = set()
    for r in rpms:
        set_provides.update(q(r, "--provides"))
        set_provides.update(q(r, "-l"))
    own = set(q(ours, "--provides"))
    sonames = host_sonames()
    system = set()
    for pkg in [ours] + [by_name[n] for n in INSTALL]:
        pname = q(pkg, "--qf", "%{NAME}")[0]
        for req in q(pkg, "--requires"):
            if satisfied(req, set_provides | own):
                continue
            # Slurm's names: slurm*, libslurm*, and slurm-libpmi's libpmi*.
            assert not re.search(r"slurm|^libpmi", req.lower()), \
                f"{pname} requires {req}: Slurm's, yet not in SchedMD's RPM set"
            assert system_requirement(req, sonames), \
                f"{pname} requires {req}: neither SchedMD's RPM set nor this system provides it"
            system.add(req.split()[0])
    slurm_reqs = [r for r in q(ours, "--requires") if "slurm" in r and not r.startswith("config(")]
    assert slurm_reqs == [f"slurm-slurmctld = {version}"], slurm_reqs
    assert satisfied(slurm_reqs[0], set_provides), f"no {slurm_reqs[0]} in SchedMD's RPMs"
    print(f"ok: {NAME} requires {slurm_reqs[0]}, provided by "
          f"{os.path.basename(by_name['slurm-slurmctld'])}; {len(system)} system requirements "
          "(libraries found by ldconfig, existing files, rpmlib)")

    # 4. The root.
    root = os.path.join(outdir, "root")
    c = None
    try:
        topdir = os.path.join(outdir, "provider")
        os.makedirs(os.path.join(topdir, "SPECS"))
        spec = os.path.join(topdir, "SPECS", "provider.spec")
        provider_spec(spec, [s for s in system if not s.startswith("rpmlib(")])
        run("rpmbuild", "-bb", "--define", f"_topdir {topdir}", spec)
        provider = glob.glob(os.path.join(topdir, "RPMS", "noarch", "*.rpm"))[0]
        os.makedirs(root)
        run("rpm", "--root", root, "--dbpath", "/var/lib/rpm", "--initdb")
        install = [provider] + [by_name[n] for n in INSTALL] + [ours]
        out = timer.step("rpm --root -i (no --nodeps)", run, "rpm", "--root", root,
                         "--dbpath", "/var/lib/rpm", "-i", "--noscripts", "--nosignature", *install)
        print(out.strip() or "ok: rpm -i: no complaint")
        listed = run("rpm", "--root", root, "--dbpath", "/var/lib/rpm", "-qa").split()
        print(f"ok: installed {', '.join(sorted(listed))}")

        # Without the provider, rpm refuses: the dependencies are real.
        refused = subprocess.run(["rpm", "--root", root, "--dbpath", "/var/lib/rpm", "--test",
                                  "-e", "sm-system-libraries"], stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT)
        assert refused.returncode != 0 and b"is needed by" in refused.stdout, refused.stdout
        print("ok: rpm -e of the system-library provider is refused (needed by Slurm and us)")

        # 5. Where the plugins land.
        plugindir = f"{libdir}/slurm"
        mine = run("rpm", "--root", root, "--dbpath", "/var/lib/rpm", "-ql", NAME).split()
        sos = [f for f in mine if f.endswith(".so")]
        assert sorted(sos) == [f"{plugindir}/job_submit_soperator.so",
                               f"{plugindir}/metrics_soperator.so"], sos
        theirs = run("rpm", "--root", root, "--dbpath", "/var/lib/rpm", "-ql", "slurm").split()
        assert f"{plugindir}/metrics_openmetrics.so" in theirs and \
            f"{plugindir}/http_parser_libhttp_parser.so" in theirs, "not slurm.spec's PluginDir"
        for f in sos:
            assert os.path.isfile(root + f), f
        print(f"ok: {NAME}'s carriers in {plugindir}, beside slurm's metrics_openmetrics.so")

        # 6. That install's slurmctld loads ours.
        lib = root + libdir
        os.environ["LD_LIBRARY_PATH"] = f"{lib}:{lib}/slurm"
        os.environ["SM_TEST_SLURM_PREFIX"] = root + "/usr"
        # No MetricsBindAddress: slurmctld's port is the only one we serve on.
        c = Cluster(version, plugin_dir=None, job_submit=None,
                    metrics_conf="CollectionInterval=1s\nLogLevel=info\n",
                    conf_extra=(f"PluginDir={lib}/slurm", "MetricsType=metrics/soperator"))
        timer.step("loopback cluster start", c.start)
        port = int(c.env["SM_SLURMCTLD_PORT"])
        url = f"http://127.0.0.1:{port}/metrics/soperator"

        def nodes():
            status, body = http_get(url)
            if status != 200:
                return None
            expo = parse_exposition(body.decode())
            return sorted(s["node_name"] for s in expo.get("slurm_node_info", [])) or None
        got = wait_for(f"slurm_node_info on {url}", nodes, timeout=60)
        assert got == ["ghost1", "ghost2", "vm"], got
        with open(f"/proc/{c.ctld_pid()}/maps") as f:
            maps = f.read()
        assert f"{lib}/slurm/metrics_soperator.so" in maps, "slurmctld did not map the installed plugin"
        assert f"{lib}/slurm/libslurmfull.so" in maps, "slurmctld runs another libslurmfull"
        print(f"ok: {root}/usr/sbin/slurmctld loaded {lib}/slurm/metrics_soperator.so; "
              f"GET {url}: slurm_node_info for {got}")
    finally:
        if c:
            c.cleanup()
        shutil.rmtree(root, ignore_errors=True)
    assert not os.path.exists(root)
    print("ok: root removed")
    for what, took in timer.steps:
        print(f"  {took:6.0f} s  {what}")


if __name__ == "__main__":
    main()
