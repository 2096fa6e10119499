#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Builds the soperator-metrics .deb for a Slurm installed from Debian
# packages, with dpkg-deb, and prints its path (last line of stdout).
#
#   packaging/deb/build-deb.sh [--packaging slurm-wlm|slurm-smd]
#                              [--slurm-src TREE] [--slurmctld-version V]
#                              [--outdir DIR] [SLURM_VERSION]
#
#   --packaging    whose packages the controller runs: slurm-wlm (Debian's:
#                  package slurmctld, plugins in /usr/lib/<multiarch>/slurm-wlm)
#                  or slurm-smd (SchedMD's debian/: package slurm-smd-slurmctld,
#                  plugins in /usr/lib/<multiarch>/slurm); default: the one
#                  whose slurmctld is installed, else slurm-wlm
#   SLURM_VERSION  default: the upstream version of V
#   TREE           configured source tree of exactly SLURM_VERSION (default:
#                  scripts/slurm-source.sh SLURM_VERSION; for slurm-wlm
#                  Debian's source package of V, patched and configured like
#                  Debian's build)
#   V              the slurmctld package version to depend on exactly
#                  (default: the installed one, e.g. 22.05.8-4+deb12u3)
#   --outdir       where the .deb and the build tree go (default ./deb-build)
#
# The plugins go to the PluginDir that packaging's slurmctld uses by
# default, so no PluginDir line is needed in slurm.conf. With
# --slurmctld-version and --slurm-src nothing of Slurm needs to be
# installed here.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
tree='' ctld_version='' outdir=$PWD/deb-build version='' packaging=''
usage() {
	sed -n '5,27s/^# \{0,1\}//p' "${BASH_SOURCE[0]}" >&2
	exit 2
}
die() {
	echo "build-deb.sh: $*" >&2
	exit 1
}
while (($#)); do
	case $1 in
	--packaging) packaging=${2:?}; shift 2 ;;
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

# Each packaging's slurmctld package and the PluginDir its slurmctld has
# compiled in (slurm-wlm's debian/rules: --libdir .../slurm-wlm; SchedMD's
# debian/rules: the default <libdir>/slurm).
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
if [[ -z $packaging ]]; then
	if pkg_installed slurm-smd-slurmctld; then packaging=slurm-smd; else packaging=slurm-wlm; fi
fi
case $packaging in
slurm-wlm) ctld_pkg=slurmctld plugindir=/usr/lib/$multiarch/slurm-wlm ;;
slurm-smd) ctld_pkg=slurm-smd-slurmctld plugindir=/usr/lib/$multiarch/slurm ;;
*) die "--packaging: slurm-wlm or slurm-smd, not '$packaging'" ;;
esac

src_version=''
if [[ -z $ctld_version ]]; then
	ctld_version=$(dpkg-query -W -f='${Version}' "$ctld_pkg" 2>/dev/null) ||
		die "$ctld_pkg is not installed: install it or pass --slurmctld-version"
	src_version=$(dpkg-query -W -f='${source:Version}' "$ctld_pkg")
fi
# A binNMU (+bN) is rebuilt from the same source.
: "${src_version:=${ctld_version%+b[0-9]*}}"
upstream=${ctld_version#*:}
upstream=${upstream%%-*}
: "${version:=$upstream}"
[[ $upstream == "$version" ]] ||
	die "$ctld_pkg $ctld_version is not Slurm $version; pass --slurmctld-version"
if [[ -z $tree ]]; then
	# Debian's source of exactly that slurmctld (scripts/slurm-source.sh
	# says which versions the archive has when it has not this one).
	src_args=()
	if [[ $packaging == slurm-wlm ]]; then src_args=(--deb-version "$src_version"); fi
	tree=$("$root/scripts/slurm-source.sh" "${src_args[@]}" "$version" | tail -n 1) ||
		die "no source tree of Slurm $version for $ctld_pkg $ctld_version (above)"
fi
tree=$(cd "$tree" && pwd)
tree_version=$(sed -n 's/^#define SLURM_VERSION_STRING "\(.*\)"/\1/p' "$tree/config.h")
[[ $tree_version == "$version" ]] || die "$tree is Slurm '$tree_version', not $version"

arch=$(dpkg-architecture -qDEB_HOST_ARCH)
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

# Debian's hardening and optimisation flags, as dpkg-buildpackage sets them
# for Slurm's own plugins: both slurm-wlm's and SchedMD's debian/rules say
# hardening=+all,-bindnow (lazy binding, like slurm.spec).
export DEB_BUILD_MAINT_OPTIONS=hardening=+all,-bindnow
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
	-e "s/@SLURMCTLD_PKG@/$ctld_pkg/g" \
	-e "s/@SLURMCTLD@/$ctld_version/" -e "s/@SLURM@/$version/" \
	-e "s/@SHLIBS@/$shlibs/" \
	-e "s/@SIZE@/$(du -sk --exclude=DEBIAN "$stage" | cut -f1)/" \
	"$here/control.in" >"$stage/DEBIAN/control"

deb=$outdir/${name}_${deb_version}_$arch.deb
run dpkg-deb --root-owner-group -Zxz --build "$stage" "$deb"
echo "$deb"
