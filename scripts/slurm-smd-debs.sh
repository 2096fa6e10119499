#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# SchedMD's own Debian packages of one Slurm release (slurm-smd,
# slurm-smd-slurmctld, slurm-smd-dev, ...), built with the debian/
# directory inside the release archive, as a site running SchedMD's
# packages builds them (`dpkg-buildpackage -b` in the unpacked archive).
# Prints the directory holding the .debs (last line of stdout); beside it,
# `tree` is the packaging build's source tree, whose configured build
# directory (`tree/obj-<gnu type>`, config.h) is what the plugin for these
# packages is compiled against.
#
#   scripts/slurm-smd-debs.sh 26.05.3
#   scripts/slurm-smd-debs.sh --key 26.05.3   # print the cache key only
#   scripts/slurm-smd-debs.sh --build-deps 26.05.3   # only install SchedMD's
#                       # Build-Depends (scripts/install-deps.sh runs this)
#
# The archive comes from $SM_SLURM_ARCHIVES (scripts/lib/slurm_archives.sh)
# and is checked against SHA256SUMS. Build dependencies are SchedMD's
# debian/control Build-Depends, installed from Debian's archive with
# `apt-get build-dep` (-dev packages only: nothing of Debian's Slurm is
# replaced). The result is cached under $SM_CACHE/slurm-smd/VERSION-KEY,
# KEY a hash of the archive's checksum and this recipe (dpkg-buildpackage
# options), so a rerun with an intact cache returns at once. A full Slurm
# compile on 2 cores: docs/testing.md says how long.
set -euo pipefail

SM_CACHE=${SM_CACHE:-/var/cache/soperator-metrics}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
key_only=0 deps_only=0
case ${1:-} in
--key) key_only=1; shift ;;
--build-deps) deps_only=1; shift ;;
esac
version=${1:-}
[[ $version =~ ^2[5-9]\.[0-9]{2}\.[0-9]+$ ]] || {
	echo "usage: $0 [--key] VERSION   (a release archive of 25.11 or later, e.g. 26.05.3)" >&2
	exit 2
}

log=
fail() {
	echo "slurm-smd-debs.sh: $*" >&2
	if [[ -n $log && -s $log ]]; then
		echo "--- last lines of $log ---" >&2
		tail -n 40 "$log" >&2
	fi
	exit 1
}
# shellcheck source=scripts/lib/apt.sh
source "$here/lib/apt.sh"
# shellcheck source=scripts/lib/slurm_archives.sh
source "$here/lib/slurm_archives.sh"

# SchedMD's Build-Depends (debian/control of the archive in DIR), from
# Debian's archive. dpkg-checkbuilddeps says whether anything is missing;
# only then is apt asked.
install_build_deps() {
	local dir=$1 policy=/usr/sbin/policy-rc.d made_policy=0 rc=0
	install_missing build-essential dpkg-dev
	(cd "$dir" && dpkg-checkbuilddeps) >>"${log:-/dev/null}" 2>&1 && return 0
	echo "+ apt-get build-dep $dir" >>"${log:-/dev/stderr}"
	if [[ ! -e $policy ]]; then
		printf '#!/bin/sh\nexit 101\n' >"$policy"
		chmod +x "$policy"
		made_policy=1
	fi
	DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 build-dep -y \
		--no-install-recommends "$dir" >>"${log:-/dev/stderr}" 2>&1 || rc=$?
	((made_policy)) && rm -f "$policy"
	((rc == 0)) || fail "apt-get build-dep failed for SchedMD's debian/control"
}

if ((deps_only)); then
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	# debian/control alone is enough for apt; nothing is unpacked besides.
	tar -C "$tmp" -xJf "$(slurm_archive_dir)/slurm-$version.tar.xz" \
		"slurm-$version/debian/control" || fail "no debian/control in slurm-$version.tar.xz"
	install_build_deps "$tmp/slurm-$version"
	exit 0
fi

# Bump when the build steps change.
recipe=2
# nocheck: Slurm's packaging runs no tests anyway (override_dh_auto_test is
# empty); noddebs: no -dbgsym packages, which nothing here installs; noopt:
# dpkg-buildflags' -O0 instead of -O2 (debian/rules configures with
# --disable-debug, so nothing adds another -O), which compiles Slurm in
# well under half the time on 2 cores. What the test installs and loads is
# the packaging: names, files, paths, dependencies, maintainer scripts; the
# compiler's optimisation of Slurm's code is not under test
# (docs/testing.md, "What each stage costs in CI"). For the same reason no
# debug information: dpkg-buildflags' -g is stripped (its user variables
# DEB_<flag>_STRIP).
build_options="nocheck noddebs noopt parallel=$(nproc)"
strip_flags=(DEB_CFLAGS_STRIP=-g DEB_CXXFLAGS_STRIP=-g)
key=$(printf '%s\n' "recipe $recipe" "archive $(slurm_archive_sum "$version")" \
	"DEB_BUILD_OPTIONS $build_options" "${strip_flags[*]}" | sha256sum | cut -c1-16)
if ((key_only)); then
	echo "$key"
	exit 0
fi
out=$SM_CACHE/slurm-smd/$version-$key
complete=$out/.complete

if [[ -f $complete ]]; then
	echo "$out/debs"
	exit 0
fi

mkdir -p "$SM_CACHE/slurm-smd" "$SM_CACHE/logs"
exec 9>"$SM_CACHE/.slurm-smd-$version.lock"
flock 9
if [[ -f $complete ]]; then
	echo "$out/debs"
	exit 0
fi
log=$SM_CACHE/logs/slurm-smd-debs-$version.log
: >"$log"

rm -rf "$out"
mkdir -p "$out/debs"
slurm_archive_unpack "$version" "$out" >>"$log" 2>&1
mv "$out/slurm-$version" "$out/tree"

install_build_deps "$out/tree"

start=$SECONDS
echo "+ DEB_BUILD_OPTIONS='$build_options' ${strip_flags[*]} dpkg-buildpackage -b -uc -us" >>"$log"
(cd "$out/tree" && env DEB_BUILD_OPTIONS="$build_options" "${strip_flags[@]}" \
	dpkg-buildpackage -b -uc -us) >>"$log" 2>&1 ||
	fail "dpkg-buildpackage failed in $out/tree"
echo "dpkg-buildpackage took $((SECONDS - start)) s" >>"$log"
mv "$out"/*.deb "$out/debs/"
rm -f "$out"/*.buildinfo "$out"/*.changes
ls "$out/debs"/slurm-smd-slurmctld_*.deb >/dev/null 2>&1 || fail "no slurm-smd-slurmctld .deb in $out/debs"
gnu_type=$(dpkg-architecture -qDEB_BUILD_GNU_TYPE)
[[ -f $out/tree/obj-$gnu_type/config.h ]] || fail "no configured build directory obj-$gnu_type"

touch "$complete"
echo "$out/debs"
