#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The RPM for one Slurm release: packaging/rpm/build-rpm.sh runs rpmbuild
(Debian's rpm package) on packaging/rpm/soperator-metrics.spec from the two
release tarballs alone, ours and Slurm's (Source1, configured by %build),
without network (its own network namespace) and without the configured
tree (when Slurm's tarball is not beside the tree, from the tree, as
slurm_src); then

- both RPMs are signed (with a throwaway key of the test's) and verify;
- rpmlint, with the accepted warnings of soperator-metrics.rpmlintrc,
  reports no error and no warning on the binary RPM, the SRPM and the spec;
- the name, version and release carry the Slurm release;
- `rpm -qlp`: exactly the two carriers in /usr/lib64/slurm, the example
  config (%config(noreplace)), the docs and COPYING; the SRPM carries
  Slurm's tarball;
- `rpm -qp --requires`: slurm-slurmctld = VERSION, and no other Slurm
  package; `--provides`: the package only, no shared-library capabilities
  for the carriers;
- the packaged carriers report plugin_version == SLURM_VERSION_NUMBER of
  the tree and the expected plugin_type;
- on EL (the spec parsed with EL9's hardening macros, as redhat-rpm-config
  defines them): LDFLAGS with -Wl,-z,lazy and without -z now, as
  slurm.spec links Slurm's plugins; the BuildRequires of EL9 (GCC 11) and
  EL8 (GCC Toolset 13).

usage: test_rpm.py SLURM_VERSION SLURM_SRC OUTDIR
"""

import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import ROOT, plugin_version, run, skip, version_number, version_string  # noqa: E402

NAME = "soperator-metrics"
SIGNER = "soperator-metrics test signing key <signing-test@invalid>"
PACKAGER = "soperator-metrics maintainers <maintainers@users.noreply.a-seed-a1b08ef0.example>"
PLUGINDIR = "/usr/lib64/slurm"
RPMDIR = os.path.join(ROOT, "packaging", "rpm")


def project_version():
    with open(os.path.join(ROOT, "meson.build")) as f:
        return re.search(r"^  version: '([^']+)',$", f.read(), re.M).group(1)


def q(rpm, *args):
    # --nosignature: the test's key is not in the machine's RPM database.
    return run("rpm", "-qp", "--nosignature", *args, rpm).strip()


# redhat-rpm-config's hardening on EL9, reduced to the linker flags: with
# %_hardened_build set, %{build_ldflags} carries -Wl,-z,now.
EL9_MACROS = [
    "--define", "rhel 9",
    "--define", "_hardened_build 1",
    "--define", "_hardening_ldflags -Wl,-z,now -specs=/usr/lib/rpm/redhat/redhat-hardened-ld",
    "--define", "_hardened_ldflags %{?_hardened_build:%{_hardening_ldflags}}",
    "--define", "build_ldflags -Wl,-z,relro %{_hardened_ldflags}",
]


def check_el_spec(version):
    spec = os.path.join(RPMDIR, "soperator-metrics.spec")
    parsed = run("rpmspec", "-P", *EL9_MACROS, "--define", f"slurm_version {version}", spec)
    exports = [line for line in parsed.splitlines() if "LDFLAGS=" in line]
    assert len(exports) == 1, exports
    ldflags = re.search(r"LDFLAGS='([^']*)'", exports[0]).group(1).split()
    assert "-Wl,-z,lazy" in ldflags and not any("-z,now" in f for f in ldflags), ldflags
    print(f"ok: LDFLAGS on EL9: {' '.join(ldflags)}")
    for rhel, compiler in (("9", "gcc-c++ >= 11"), ("8", "gcc-toolset-13-gcc-c++")):
        brs = run("rpmspec", "-q", "--buildrequires", "--define", f"rhel {rhel}", spec).splitlines()
        assert compiler in brs, f"EL{rhel} BuildRequires: {brs}"
        assert "meson >= 0.60" in brs and "pkgconfig(yaml-cpp)" in brs, brs
        print(f"ok: EL{rhel} BuildRequires: {', '.join(brs)}")


def slurm_tarball(version, tree):
    """Slurm's release tarball the tree was unpacked from, if it is still
    there: scripts/slurm-source.sh keeps Debian's .orig.tar.gz beside it."""
    for name in (f"slurm-wlm_{version}.orig.tar.gz", f"slurm-{version}.tar.bz2"):
        path = os.path.join(os.path.dirname(os.path.abspath(tree)), name)
        if os.path.isfile(path):
            return path
    return None


def offline(cmd):
    """cmd in a network namespace of its own (no network at all), when this
    machine lets us make one (root, util-linux's unshare)."""
    if shutil.which("unshare") and subprocess.run(
            ["unshare", "--net", "true"], stderr=subprocess.DEVNULL).returncode == 0:
        return ["unshare", "--net"] + cmd, True
    return cmd, False


def main():
    version, tree, outdir = sys.argv[1], sys.argv[2], sys.argv[3]
    for tool in ("rpmbuild", "rpmlint", "rpm2cpio", "cpio", "rpmsign", "gpg"):
        if not shutil.which(tool):
            skip(f"{tool} not installed")
    check_el_spec(version)
    shutil.rmtree(outdir, ignore_errors=True)
    os.makedirs(outdir)
    # A signing key of the test's own, in a keyring and an RPM database of
    # its own: the machine's are not touched.
    gnupg = os.path.join(outdir, "gnupg")
    os.makedirs(gnupg, mode=0o700)
    env = dict(os.environ, GNUPGHOME=gnupg)
    try:
        run("gpg", "--batch", "--passphrase", "", "--quick-gen-key", SIGNER, "rsa2048", "sign",
            "never", env=env)
        tarball = slurm_tarball(version, tree)
        source = ["--slurm-tarball", tarball] if tarball else ["--slurm-src", tree]
        cmd, no_net = offline([os.path.join(RPMDIR, "build-rpm.sh"), *source, "--outdir", outdir,
                               "--packager", PACKAGER, "--sign", SIGNER, version])
        rpm = run(*cmd, env=env).strip().splitlines()[-1]
        print(f"built from {'Slurm tarball ' + tarball if tarball else 'the configured tree ' + tree}"
              f"{', without network' if no_net else ''}")
        with open(os.path.join(outdir, "signer.asc"), "w") as f:
            f.write(run("gpg", "--armor", "--export", SIGNER, env=env))
    finally:
        subprocess.run(["gpgconf", "--kill", "gpg-agent"], env=env, stderr=subprocess.DEVNULL)
    srpms = [os.path.join(outdir, "SRPMS", f) for f in os.listdir(os.path.join(outdir, "SRPMS"))]
    assert len(srpms) == 1, srpms
    if tarball:
        srpm_files = q(srpms[0], "-l").splitlines()
        assert os.path.basename(tarball) in srpm_files, srpm_files
        print(f"ok: the SRPM carries {os.path.basename(tarball)}")
    print(f"built {rpm}\n      {srpms[0]}")
    home = os.path.join(outdir, "home")
    os.makedirs(os.path.join(home, "rpmdb"))
    with open(os.path.join(home, ".rpmmacros"), "w") as f:
        f.write(f"%_dbpath {home}/rpmdb\n")
    run("rpmkeys", "--dbpath", f"{home}/rpmdb", "--import", os.path.join(outdir, "signer.asc"))
    for p in (rpm, srpms[0]):
        out = run("rpmkeys", "--dbpath", f"{home}/rpmdb", "--checksig", p)
        assert out.strip().endswith("digests signatures OK"), out
    print("ok: rpmkeys --checksig: digests signatures OK (RPM and SRPM)")

    # rpmlint, with the test's key known: the accepted warnings are
    # filtered by the rpmlintrc, each with its reason; anything else fails.
    lint = run("rpmlint", "-r", os.path.join(RPMDIR, "soperator-metrics.rpmlintrc"),
               rpm, srpms[0], os.path.join(RPMDIR, "soperator-metrics.spec"), check=False,
               env=dict(os.environ, HOME=home))
    summary = [line for line in lint.splitlines() if "packages and" in line and "checked" in line]
    print("rpmlint:", summary[-1].strip() if summary else lint)
    m = re.search(r"(\d+) errors, (\d+) warnings", lint)
    assert m, lint
    assert (m.group(1), m.group(2)) == ("0", "0"), lint

    pv = project_version()
    nvr = q(rpm, "--qf", "%{NAME} %{VERSION} %{RELEASE} %{ARCH} %{LICENSE}")
    name, ver, rel, arch, lic = nvr.split()
    assert q(rpm, "--qf", "%{PACKAGER}") == PACKAGER
    assert (name, ver) == (NAME, pv), nvr
    assert rel.startswith("1.slurm" + version), f"release {rel} does not carry Slurm {version}"
    assert lic == "GPL-2.0-or-later", lic
    print(f"ok: {name}-{ver}-{rel}.{arch}")

    # Files.
    files = set(q(rpm, "-l").splitlines())
    build_ids = {f for f in files if f.startswith("/usr/lib/.build-id")}
    doc = f"/usr/share/doc/{NAME}"
    want = {f"{PLUGINDIR}/job_submit_soperator.so", f"{PLUGINDIR}/metrics_soperator.so",
            "/etc/slurm/soperator_metrics.conf",
            doc, f"{doc}/README.md", f"{doc}/examples",
            f"/usr/share/licenses/{NAME}", f"/usr/share/licenses/{NAME}/COPYING"}
    want |= {f"{doc}/{n}" for n in os.listdir(os.path.join(ROOT, "docs")) if n.endswith(".md")}
    want |= {f"{doc}/examples/{n}" for n in os.listdir(os.path.join(ROOT, "docs", "examples"))}
    got = files - build_ids
    assert got == want, f"rpm -qlp:\n+ {sorted(got - want)}\n- {sorted(want - got)}"
    flags = {}
    for line in q(rpm, "--qf", "[%{FILEFLAGS:fflags} %{FILEMODES:perms} %{FILENAMES}\n]").splitlines():
        parts = line.split()
        f, mode = parts[-1], parts[-2]
        flags[f] = (parts[0] if len(parts) == 3 else "", mode)
    assert flags["/etc/slurm/soperator_metrics.conf"] == ("cn", "-rw-r--r--"), \
        flags["/etc/slurm/soperator_metrics.conf"]
    for so in ("job_submit_soperator.so", "metrics_soperator.so"):
        assert flags[f"{PLUGINDIR}/{so}"][1] == "-rwxr-xr-x", flags[f"{PLUGINDIR}/{so}"]
    print(f"ok: rpm -qlp: {len(got)} files ({len(build_ids)} build-id links), "
          "soperator_metrics.conf %config(noreplace)")

    # Dependencies.
    requires = q(rpm, "--requires").splitlines()
    slurm = [r for r in requires if "slurm" in r and not r.startswith(f"config({NAME})")]
    assert slurm == [f"slurm-slurmctld = {version}"], f"Slurm requirements: {slurm}"
    for lib in ("libssl.so.3", "libcrypto.so.3", "libyaml-cpp.so.", "libcrypt.so.", "libz.so."):
        assert any(r.startswith(lib) for r in requires), f"{lib} missing: {requires}"
    assert not any("civetweb" in r for r in requires), requires
    provides = set(q(rpm, "--provides").splitlines())
    evr = f"{ver}-{rel}"
    want_provides = {f"{NAME} = {evr}", f"{NAME}({arch.replace('_', '-')}) = {evr}",
                     f"config({NAME}) = {evr}"}
    assert provides == want_provides, f"provides: {sorted(provides)}"
    print(f"ok: Requires: slurm-slurmctld = {version} (+{len(requires) - 1} library/rpmlib)")
    print(f"ok: Provides: {', '.join(sorted(provides))}")

    # The carriers inside the package.
    extract = os.path.join(outdir, "extract")
    shutil.rmtree(extract, ignore_errors=True)
    os.makedirs(extract)
    cpio = subprocess.run(f"rpm2cpio '{rpm}' | cpio -idm --quiet", shell=True, cwd=extract)
    assert cpio.returncode == 0
    want_number = version_number(version)
    for so, ptype in (("job_submit_soperator.so", "job_submit/soperator"),
                      ("metrics_soperator.so", "metrics/soperator")):
        path = extract + f"{PLUGINDIR}/{so}"
        got_number = plugin_version(path)
        assert got_number == want_number, \
            f"{so}: plugin_version {version_string(got_number)}, Slurm {version}"
        with open(path, "rb") as f:
            assert ptype.encode() + b"\0" in f.read(), f"{so}: no plugin_type {ptype}"
        print(f"ok: {so}: plugin_type {ptype}, plugin_version {hex(got_number)} = {version}")


if __name__ == "__main__":
    main()
