# SPDX-License-Identifier: GPL-2.0-or-later
"""A throwaway Debian root for package tests: made with debootstrap from
the archive this machine already uses (its own apt sources, copied: no
host name is written anywhere), packages installed into it with apt from
a local repository of .debs, commands run inside it with chroot, and
everything unmounted and removed at the end. The machine's own packages
(Debian's Slurm among them) are never touched.

Downloads are cached outside the checkout, in $SM_CACHE/debroot (the
base system's packages, debootstrap --cache-dir) and $SM_CACHE/debroot/apt
(what apt fetches inside a root), so a warm run fetches nothing."""

import glob
import os
import re
import shutil
import subprocess
import tempfile

SM_CACHE = os.environ.get("SM_CACHE", "/var/cache/soperator-metrics")


def _binary_sources(etc="/etc/apt"):
    """The machine's binary (deb) apt entries, one-line and deb822 alike,
    as deb822 text; deb-src entries are left out (nothing in a root builds
    from source)."""
    out = []
    files = []
    if os.path.isfile(os.path.join(etc, "sources.list")):
        files.append(os.path.join(etc, "sources.list"))
    files += sorted(glob.glob(os.path.join(etc, "sources.list.d", "*.list")))
    files += sorted(glob.glob(os.path.join(etc, "sources.list.d", "*.sources")))
    for path in files:
        with open(path) as f:
            text = f.read()
        if path.endswith(".sources"):
            for stanza in re.split(r"\n\s*\n", text):
                lines = [l for l in stanza.splitlines() if not l.lstrip().startswith("#")]
                types = [l.split(":", 1)[1].split() for l in lines
                         if l.lower().startswith("types:")]
                if types and "deb" in types[0]:
                    out.append("\n".join("Types: deb" if l.lower().startswith("types:")
                                         else l for l in lines))
        else:
            for line in text.splitlines():
                m = re.match(r"^\s*deb\s+(\[[^\]]*\]\s+)?(\S+)\s+(\S+)\s+(.+)$", line)
                if not m:
                    continue
                opts = {}
                for kv in (m.group(1) or "").strip("[] \t").split():
                    k, _, v = kv.partition("=")
                    opts[k] = v
                stanza = [f"Types: deb", f"URIs: {m.group(2)}", f"Suites: {m.group(3)}",
                          f"Components: {m.group(4).strip()}"]
                if "signed-by" in opts:
                    stanza.append(f"Signed-By: {opts['signed-by']}")
                if opts.get("trusted") == "yes":
                    stanza.append("Trusted: yes")
                out.append("\n".join(stanza))
    return "\n\n".join(out) + "\n"


def _mirror(sources, codename):
    """The first URI that serves CODENAME itself: debootstrap's mirror."""
    for stanza in sources.split("\n\n"):
        fields = dict(l.split(":", 1) for l in stanza.splitlines() if ":" in l)
        if codename in fields.get("Suites", "").split():
            return fields["URIs"].split()[0]
    raise RuntimeError(f"no apt source of this machine serves {codename}")


class DebRoot:
    """with DebRoot() as root: root.install_debs([...], ["pkg", ...])"""

    def __init__(self, log=print):
        self.log = log
        self.path = None
        self.mounts = []

    def __enter__(self):
        if not shutil.which("debootstrap"):
            raise RuntimeError("debootstrap is not installed (scripts/install-deps.sh)")
        with open("/etc/os-release") as f:
            codename = re.search(r"^VERSION_CODENAME=(\S+)", f.read(), re.M).group(1)
        sources = _binary_sources()
        mirror = _mirror(sources, codename)
        base = os.path.join(SM_CACHE, "debroot")
        os.makedirs(os.path.join(base, "debootstrap"), exist_ok=True)
        os.makedirs(os.path.join(base, "apt", "partial"), exist_ok=True)
        self.path = tempfile.mkdtemp(prefix="sm-debroot.")
        try:
            self._run(["debootstrap", "--variant=minbase",
                       f"--cache-dir={base}/debootstrap", codename, self.path, mirror])
            # The machine's own archive entries (updates, security): the
            # same packages as here, so what was built here installs there.
            with open(self._p("etc/apt/sources.list"), "w") as f:
                f.write("# see sources.list.d\n")
            with open(self._p("etc/apt/sources.list.d/host.sources"), "w") as f:
                f.write(sources)
            # No daemon a package installs may start inside the root.
            with open(self._p("usr/sbin/policy-rc.d"), "w") as f:
                f.write("#!/bin/sh\nexit 101\n")
            os.chmod(self._p("usr/sbin/policy-rc.d"), 0o755)
            self.bind("/proc", "proc", "proc")
            self.bind(os.path.join(base, "apt"), "var/cache/apt/archives")
            self.chroot("apt-get", "update", "-q")
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *exc):
        for target in reversed(self.mounts):
            subprocess.run(["umount", "-l", target], stderr=subprocess.DEVNULL)
        self.mounts = []
        if self.path and not os.environ.get("SM_KEEP_ROOT"):
            shutil.rmtree(self.path, ignore_errors=True)

    def _p(self, rel):
        return os.path.join(self.path, rel.lstrip("/"))

    def _run(self, cmd, **kw):
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, **kw)
        if r.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed ({r.returncode}):\n"
                               + r.stdout.decode(errors="replace")[-3000:])
        return r.stdout.decode(errors="replace")

    def bind(self, source, rel, fstype=None):
        """Mounts `source` at `rel` inside the root (bind, or fstype)."""
        target = self._p(rel)
        os.makedirs(target, exist_ok=True)
        cmd = ["mount", "-t", fstype, fstype, target] if fstype else \
            ["mount", "--bind", source, target]
        self._run(cmd)
        self.mounts.append(target)

    def chroot(self, *cmd, env=None):
        e = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "DEBIAN_FRONTEND": "noninteractive",
             "LC_ALL": "C"}
        e.update(env or {})
        return self._run(["chroot", self.path, *cmd], env=e)

    def install_debs(self, debs, packages):
        """A local repository of `debs` inside the root, then apt-get install
        `packages` from it and the archive (dependencies resolved by apt,
        as an admin's `apt-get install` does)."""
        repo = self._p("var/local/sm-repo")
        os.makedirs(repo, exist_ok=True)
        for d in debs:
            shutil.copy(d, repo)
        packages_index = subprocess.run(["dpkg-scanpackages", "--multiversion", "."],
                                        cwd=repo, check=True, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL).stdout
        with open(os.path.join(repo, "Packages"), "wb") as f:
            f.write(packages_index)
        with open(self._p("etc/apt/sources.list.d/sm-local.list"), "w") as f:
            f.write("deb [trusted=yes] file:/var/local/sm-repo ./\n")
        self.chroot("apt-get", "update", "-q")
        return self.chroot("apt-get", "install", "-y", "-q", "--no-install-recommends",
                           *packages)
