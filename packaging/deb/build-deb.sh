#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Builds the soperator-metrics .deb for Debian's own Slurm packages with
# dpkg-deb and prints its path (last line of stdout).
#
#   packaging/deb/build-deb.sh [--slurm-src TREE] [--slurmctld-version V]
#                              [--outdir DIR] [SLURM_VERSION]
#
#   SLURM_VERSION  default: the upstream version of the installed slurmctld
#                  (22.05.8 on Debian 12)
#   TREE           configured source tree of exactly SLURM_VERSION (default:
#                  scripts/slurm-source.sh SLURM_VERSION: Debian's source
#                  package, patched and configured like Debian's build)
#   V              the slurmctld package version to depend on exactly
#                  (default: the installed one, e.g. 22.05.8-4+deb12u3)
#   --outdir       where the .deb and the build tree go (default ./deb-build)
#
# The plugins go to /usr/lib/<multiarch>/slurm-wlm, the PluginDir Debian's
# slurmctld uses by default, so no PluginDir line is needed in slurm.conf.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
tree='' ctld_version='' outdir=$PWD/deb-build version=''
usage() {
	sed -n '5,17s/^# \{0,1\}//p' "${BASH_SOURCE[0]}" >&2
	exit 2
}
die() {
	echo "build-deb.sh: $*" >&2
	exit 1
}
while (($#)); do
	case $1 in
	--slurm-src) tree=${2:?}; shift 2 ;;
	--slurmctld-version) ctld_version=${2:?}; shift 2 ;;
	--outdir) outdir=${2:?}; shift 2 ;;
	-h | --help | -*) usage ;;
	*) [[ -z $version ]] || usage; version=$1; shift ;;
	esac
done
# What building needs, from Debian's archive; as root the missing ones are
# installed (without starting any service).
build_deps=(build-essential dpkg-dev meson ninja-build pkg-config libssl-dev libyaml-cpp-dev libcrypt-dev zlib1g-dev)
# shellcheck source=scripts/lib/apt.sh
source "$root/scripts/lib/apt.sh"
fail() { die "$@"; }
if [[ $(id -u) == 0 ]]; then
	install_missing "${build_deps[@]}"
else
	for p in "${build_deps[@]}"; do
		pkg_installed "$p" || die "missing $p: run as root or apt-get install ${build_deps[*]}"
	done
fi

if [[ -z $ctld_version ]]; then
	ctld_version=$(dpkg-query -W -f='${Version}' slurmctld 2>/dev/null) ||
		die "slurmctld is not installed: install it or pass --slurmctld-version"
fi
upstream=${ctld_version#*:}
upstream=${upstream%%-*}
: "${version:=$upstream}"
[[ $upstream == "$version" ]] ||
	die "slurmctld $ctld_version is not Slurm $version; pass --slurmctld-version"
if [[ -z $tree ]]; then
	tree=$("$root/scripts/slurm-source.sh" "$version" | tail -n 1)
fi
tree=$(cd "$tree" && pwd)
tree_version=$(sed -n 's/^#define SLURM_VERSION_STRING "\(.*\)"/\1/p' "$tree/config.h")
[[ $tree_version == "$version" ]] || die "$tree is Slurm '$tree_version', not $version"

multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
arch=$(dpkg-architecture -qDEB_HOST_ARCH)
plugindir=/usr/lib/$multiarch/slurm-wlm
pkg_version=$(sed -n "s/^  version: '\([^']*\)',$/\1/p" "$root/meson.build" | head -1)
[[ -n $pkg_version ]] || die "no version in meson.build"
deb_version=$pkg_version-1+slurm$version
name=soperator-metrics

mkdir -p "$outdir"
outdir=$(cd "$outdir" && pwd)
build=$outdir/build-$version
stage=$outdir/stage-$version
rm -rf "$stage"
log=$outdir/build-$version.log
: >"$log"
run() {
	echo "+ $*" >>"$log"
	"$@" >>"$log" 2>&1 || {
		echo "build-deb.sh: failed: $*; last lines of $log:" >&2
		tail -n 40 "$log" >&2
		exit 1
	}
}

# Debian's hardening and optimisation flags, as dpkg-buildpackage sets them.
CXXFLAGS="$(dpkg-buildflags --get CXXFLAGS) $(dpkg-buildflags --get CPPFLAGS)"
LDFLAGS=$(dpkg-buildflags --get LDFLAGS)
export CXXFLAGS LDFLAGS
setup=(--prefix=/usr --libdir="lib/$multiarch" --sysconfdir=/etc --buildtype=plain
	--wrap-mode=nodownload -Dtests=disabled -Dbench=disabled
	-Dslurm_src="$tree" -Dslurm_plugindir="$plugindir")
if [[ -f $build/build.ninja ]]; then
	run meson setup --reconfigure "$build" "$root" "${setup[@]}"
else
	run meson setup "$build" "$root" "${setup[@]}"
fi
# The two carriers only: the offline shim is a developer tool.
run ninja -C "$build" plugin/slurm/job_submit_soperator.so plugin/slurm/metrics_soperator.so
DESTDIR=$stage run meson install -C "$build" --no-rebuild --tags slurm-plugin
# As dh_strip does for shared objects.
for so in "$stage$plugindir"/*.so; do
	run strip --remove-section=.comment --remove-section=.note --strip-unneeded "$so"
	chmod 0644 "$so"
done

install -D -m 0644 "$root/packaging/soperator_metrics.conf" "$stage/etc/slurm/soperator_metrics.conf"
doc=$stage/usr/share/doc/$name
install -d "$doc/examples"
install -m 0644 "$root/README.md" "$root"/docs/*.md "$doc/"
install -m 0644 "$root"/docs/examples/* "$doc/examples/"
install -m 0644 "$here/copyright" "$doc/copyright"
# Policy 12.3: documentation over 4 kB is compressed; copyright never.
find "$doc" -maxdepth 1 -name '*.md' -size +4k -exec gzip -9n {} +
sed "s/@VERSION@/$deb_version/" "$here/changelog" | gzip -9n >"$doc/changelog.Debian.gz"

# Library dependencies as dh_shlibdeps computes them.
mkdir -p "$outdir/shlibs/debian"
printf 'Source: %s\n\nPackage: %s\nArchitecture: any\n' "$name" "$name" >"$outdir/shlibs/debian/control"
shlibs=$(cd "$outdir/shlibs" && dpkg-shlibdeps -O "$stage$plugindir"/*.so 2>>"$log" |
	sed -n 's/^shlibs:Depends=//p')
[[ -n $shlibs ]] || die "dpkg-shlibdeps found no dependencies (see $log)"

mkdir -p "$stage/DEBIAN"
echo /etc/slurm/soperator_metrics.conf >"$stage/DEBIAN/conffiles"
(cd "$stage" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | sort -z |
	xargs -0 md5sum) >"$stage/DEBIAN/md5sums"
sed -e "s/@VERSION@/$deb_version/" -e "s/@ARCH@/$arch/" \
	-e "s/@SLURMCTLD@/$ctld_version/" -e "s/@SLURM@/$version/" \
	-e "s/@SHLIBS@/$shlibs/" \
	-e "s/@SIZE@/$(du -sk --exclude=DEBIAN "$stage" | cut -f1)/" \
	"$here/control.in" >"$stage/DEBIAN/control"

deb=$outdir/${name}_${deb_version}_$arch.deb
run dpkg-deb --root-owner-group -Zxz --build "$stage" "$deb"
echo "$deb"
