#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Builds SchedMD's own RPMs of one Slurm release with SchedMD's own
# slurm.spec (the one inside the release archive), and prints the directory
# that holds them (last line of stdout):
#
#   DIR/RPMS/<arch>/slurm-*.rpm     what `rpmbuild -tb` makes of the archive
#   DIR/BUILD/slurm-VERSION         the tree slurm.spec configured and built:
#                                   config.h and slurmctld's headers, what our
#                                   own spec builds against (slurm_src)
#
#   scripts/slurm-rpms.sh 26.05.3
#   scripts/slurm-rpms.sh --key 26.05.3     print the cache key only
#
# The archive is ../shared/slurm-src/slurm-VERSION.tar.xz next to the
# checkout (or to the main checkout of a git worktree; $SM_SLURM_ARCHIVES
# overrides the directory), checked against the
# SHA256SUMS beside it first. slurm.spec's Source: is a .tar.bz2 of the same
# tree, so the archive is repacked, not changed.
#
# On Debian (this project's machines) rpm's database is empty, so rpmbuild
# cannot check slurm.spec's BuildRequires and runs with --nodeps; the Debian
# -dev packages that play their role are installed instead (the list below,
# also in scripts/install-deps.sh). A full Slurm compile: ~30 minutes on 2
# cores (docs/testing.md), so the result is cached under
# $SM_CACHE/slurm-rpms/, keyed on the archive's checksum and every packaging
# input (rpmbuild options and defines, the -dev packages, this recipe).
set -euo pipefail

SM_CACHE=${SM_CACHE:-/var/cache/soperator-metrics}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
# shared/ sits next to the checkout; in a git worktree, next to the main
# checkout.
archives=${SM_SLURM_ARCHIVES:-$root/../shared/slurm-src}
if [[ -z ${SM_SLURM_ARCHIVES:-} && ! -d $archives ]] &&
	common=$(git -C "$root" rev-parse --path-format=absolute --git-common-dir 2>/dev/null); then
	archives=$(dirname "$common")/../shared/slurm-src
fi

key_only=0
if [[ ${1:-} == --key ]]; then
	key_only=1
	shift
fi
version=${1:-}
case $version in
25.11.7 | 26.05.3) ;;
*)
	echo "usage: $0 [--key] 26.05.3|25.11.7" >&2
	exit 2
	;;
esac

# Bump when the steps below change in a way the other inputs do not show.
recipe_version=2

# What stands in for slurm.spec's BuildRequires on Debian, one package per
# role: autoconf/automake/gcc/make/pkgconf (build-essential, autoconf,
# automake, pkg-config), munge-devel (libmunge-dev), readline-devel
# (libreadline-dev), mariadb-devel (libmariadb-dev: slurmdbd's MySQL
# plugin), perl-devel and perl(ExtUtils::MakeMaker) (libperl-dev, perl),
# pam-devel (libpam0g-dev: pam_slurm, on by default), python3, systemd (only
# for its unit directory, which the spec fakes elsewhere). Not a
# BuildRequires of slurm.spec unless built --with slurmrestd, yet what
# MetricsType needs: http-parser-devel (libhttp-parser-dev). Without it
# configure only warns, the http_parser plugin is not built and slurmctld
# serves no HTTP on its port (checked after the build). json-c-devel
# (libjson-c-dev): serializer/json, which --json and slurmctld's HTTP
# answers use. rpm and bzip2: rpmbuild and the .tar.bz2.
build_deps=(build-essential autoconf automake pkg-config libmunge-dev libreadline-dev
	libmariadb-dev libperl-dev perl libpam0g-dev python3 libhttp-parser-dev libjson-c-dev
	rpm bzip2)
# slurm.spec's own switches, as `rpmbuild --with/--without` take them: its
# defaults (munge, pam, x11), with one switched off: --without debug, so
# configure leaves out its -O1 -ggdb3 (as SchedMD's debian/rules does) and
# the optflags below hold. With -O0 and no debug information Slurm
# compiles in well under half the time on 2 cores; what the test installs
# and loads is the packaging (names, files, paths, dependencies), not the
# compiler's optimisation of Slurm's code (docs/testing.md, "What each stage costs in CI").
spec_options=(--without debug)
# rpmbuild defines: only where rpmbuild puts things, and one the spec
# offers for Debian's perl: slurm.spec expects the perlapi man pages where
# perl's Config puts site man pages (installsiteman3dir without its
# prefix: /share/man/man3 on EL, /man/man3 on Debian), while Slurm's
# Makefile installs them into the man directory; _slurm_mandir makes the
# two agree, as they do on EL.
perl_man3=$(perl -MConfig -e '$T = $Config{installsiteman3dir}; $P = $Config{siteprefix};
	$T =~ s/\Q$P\E\/local//; $T =~ s/\Q$P\E//; print $T')
defines=(--define "_slurm_mandir /usr${perl_man3%/man3}" --define "optflags -O0")

archive=$archives/slurm-$version.tar.xz
sums=$archives/SHA256SUMS

log_dir=$SM_CACHE/logs
log=$log_dir/slurm-rpms-$version.log
fail() {
	echo "slurm-rpms.sh: $*" >&2
	if [[ -s ${log:-} ]]; then
		echo "--- last lines of $log ---" >&2
		tail -n 40 "$log" >&2
	fi
	exit 1
}

[[ -r $archive ]] || fail "no $archive (set SM_SLURM_ARCHIVES to the directory of the Slurm archives)"
[[ -r $sums ]] || fail "no $sums next to $archive"
# Checked on every call, the fast path too: a cache is only as good as the
# archive it was built from.
want_sum=$(awk -v f="slurm-$version.tar.xz" '$2 == f || $2 == "*" f { print $1 }' "$sums")
[[ -n $want_sum ]] || fail "slurm-$version.tar.xz is not listed in $sums"
got_sum=$(sha256sum "$archive" | cut -d' ' -f1)
[[ $got_sum == "$want_sum" ]] || fail "$archive: SHA256 $got_sum, SHA256SUMS says $want_sum"

inputs=$(
	echo "recipe $recipe_version"
	echo "archive slurm-$version.tar.xz sha256 $got_sum"
	echo "options ${spec_options[*]}"
	echo "defines ${defines[*]}"
	echo "deps ${build_deps[*]}"
	echo "rpm $(rpm --version 2>/dev/null)"
)
key=$(printf '%s\n' "$inputs" | sha256sum | cut -c1-16)
if ((key_only)); then
	echo "$key"
	exit 0
fi

out=$SM_CACHE/slurm-rpms/slurm-$version-$key
complete=$out/.complete
if [[ -f $complete && "$(cat "$complete")" == "$inputs" ]]; then
	echo "$out"
	exit 0
fi

mkdir -p "$log_dir" "$SM_CACHE/slurm-rpms"
exec 9>"$SM_CACHE/.slurm-rpms-$version.lock"
flock 9
if [[ -f $complete && "$(cat "$complete")" == "$inputs" ]]; then
	echo "$out"
	exit 0
fi
: >"$log"

# shellcheck source=scripts/lib/apt.sh
source "$here/lib/apt.sh"
install_missing "${build_deps[@]}"

# Built in place, in the directory callers get: the tree under BUILD keeps
# the paths it was configured with. .complete, written last, is what makes
# it count; other builds of this release (older keys) are removed first.
for d in "$SM_CACHE/slurm-rpms/slurm-$version"-*; do
	[[ $d == "$out" || ! -d $d ]] || rm -rf "$d"
done
stage=$out
rm -rf "$stage"
mkdir -p "$stage"/{BUILD,BUILDROOT,RPMS,SOURCES,SPECS,SRPMS}

# slurm.spec wants slurm-VERSION.tar.bz2 whose top directory is
# slurm-VERSION; the .tar.xz is exactly that tree.
echo "+ repack $archive as SOURCES/slurm-$version.tar.bz2" >>"$log"
xz -dc "$archive" | bzip2 -c >"$stage/SOURCES/slurm-$version.tar.bz2" ||
	fail "cannot repack $archive"
tar -xJf "$archive" -C "$stage/SPECS" --strip-components=1 "slurm-$version/slurm.spec" ||
	fail "no slurm-$version/slurm.spec in $archive"

start=$SECONDS
# --noclean: rpm 4.18 and later remove the build directory after -bb, and
# its configured tree is what our spec builds against.
echo "+ rpmbuild -bb --noclean --nodeps ${spec_options[*]} ${defines[*]} slurm.spec" >>"$log"
rpmbuild -bb --noclean --nodeps --define "_topdir $stage" "${spec_options[@]}" "${defines[@]}" \
	"$stage/SPECS/slurm.spec" >>"$log" 2>&1 || fail "rpmbuild of slurm.spec failed"
echo "rpmbuild took $((SECONDS - start))s" >>"$log"

arch=$(rpm --eval '%{_arch}')
tree=$stage/BUILD/slurm-$version
[[ -f $tree/config.h ]] || fail "no configured tree at $tree after rpmbuild"
main_rpm=$stage/RPMS/$arch/slurm-$version-1.$arch.rpm
[[ -f $main_rpm ]] || fail "no $main_rpm"
[[ -f $stage/RPMS/$arch/slurm-slurmctld-$version-1.$arch.rpm ]] || fail "no slurm-slurmctld RPM"
# MetricsType serves on slurmctld's port only through the http_parser
# plugin; its absence is a silent configure warning, so check the result.
libdir=$(rpm --eval '%{_libdir}')
rpm -qlp "$main_rpm" 2>/dev/null | grep -Fx "$libdir/slurm/http_parser_libhttp_parser.so" >/dev/null ||
	fail "slurm RPM has no $libdir/slurm/http_parser_libhttp_parser.so: configure did not find libhttp-parser"

rm -rf "$stage/BUILDROOT" "$stage/SOURCES"
printf '%s\n' "$inputs" >"$complete"
echo "$out"
