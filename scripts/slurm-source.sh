#!/usr/bin/env bash
# Make a configured Slurm source tree available and print its path (last line
# of stdout).
#
#   scripts/slurm-source.sh 22.05.8   # Debian bookworm source package, patched:
#                                     # the version of the installed slurmctld
#   scripts/slurm-source.sh --deb-version 22.05.8-4+deb12u4 22.05.8
#                                     # ... or that Debian version
#   scripts/slurm-source.sh 24.11.5   # upstream tarball from Debian trixie
#   scripts/slurm-source.sh 25.11.7   # upstream release archive from
#   scripts/slurm-source.sh 26.05.3   #   $SM_SLURM_ARCHIVES (see below)
#   scripts/slurm-source.sh 23.11.11  # any release whose slurm-VERSION.tar.xz
#                                     #   SHA256SUMS in $SM_SLURM_ARCHIVES lists
#   scripts/slurm-source.sh --archive PATH [--sha256 SUM] VERSION
#                                     # any upstream release archive (.tar.xz,
#                                     # .tar.bz2, .tar.gz: SchedMD's tarball, a
#                                     # `git archive` of a tag, Debian's
#                                     # .orig.tar.gz); without --sha256 its
#                                     # checksum is printed (stderr) to pin next
#   scripts/slurm-source.sh --stamp 24.11.5   # print the configure stamp only
#                                             # (lets callers key caches on it)
#
# The tested set is 22.05.8, 24.11.5, 25.11.7 and 26.05.3 and the archives of
# ../shared/slurm-src (docs/compat.md); any other release is configured with
# the flags of its series: 25.x and later those of 25.11/26.05, 23.x and 24.x
# those of 24.11.
#
# Debian has no package of 25.11 or 26.05: their upstream release archives
# (`git archive` of SchedMD's tags) come from $SM_SLURM_ARCHIVES, by default
# ../shared/slurm-src beside the checkout, with a SHA256SUMS file that each
# archive is checked against before it is unpacked. An archive given by path
# is checked against --sha256; its tree is keyed on its checksum (another
# archive of the same version replaces the tree).
#
# Debian's sources come from the archive this machine's apt is configured
# with (sources.list or deb822 .sources alike), through a private apt
# configuration: /etc/apt is left as it was (scripts/lib/apt_source.sh).
#
# Everything lives under $SM_CACHE (default /var/cache/soperator-metrics),
# outside the checkout, so trees survive `git clean` and are shared between
# worktrees. Progress goes to log files under $SM_CACHE/logs; on failure the
# log tail goes to stderr and the exit status is non-zero.
set -euo pipefail

SM_CACHE=${SM_CACHE:-/var/cache/soperator-metrics}
usage() {
	echo "usage: $0 [--stamp] [--deb-version V] [--archive PATH [--sha256 SUM]] VERSION" >&2
	echo "       VERSION: 22.05.8 (Debian's), 24.11.5 (Debian's tarball), or any release" >&2
	echo "       whose archive is given by path or listed in \$SM_SLURM_ARCHIVES/SHA256SUMS" >&2
	exit 2
}

stamp_only=0 want_deb_version='' archive_path='' archive_sum=''
while [[ ${1:-} == --* ]]; do
	case $1 in
	--stamp) stamp_only=1; shift ;;
	--deb-version) want_deb_version=${2:-}; [[ -n $want_deb_version ]] || usage; shift 2 ;;
	--archive) archive_path=${2:-}; [[ -n $archive_path ]] || usage; shift 2 ;;
	--sha256) archive_sum=${2:-}; [[ $archive_sum =~ ^[0-9a-fA-F]{64}$ ]] || usage; shift 2 ;;
	*) usage ;;
	esac
done
version=${1:-}
[[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || usage
[[ -z $archive_sum || -n $archive_path ]] || usage
archive_sum=${archive_sum,,}
# The series picks the configure flags and where the source comes from.
series=${version%.*}
if [[ -n $archive_path ]]; then
	source_kind=path
elif [[ $version == 22.05.8 || $version == 24.11.5 ]]; then
	source_kind=debian
else
	source_kind=archives
fi

# Debian source version that carries each Slurm version, and the configure
# flags its tree is configured with. The 22.05.8 flags mirror Debian's own
# build (sysconfdir /etc/slurm) so its config.h matches the installed
# libslurm; 24.11.5 installs into its own prefix in the cache.
case "$source_kind:$version" in
debian:22.05.8)
	# The source of the slurmctld installed here ($deb_for says which), so
	# that a Debian point update (deb12u4) is built from its own source.
	# A binNMU's "+bN" is the binary's alone: dpkg knows the source version.
	deb_version=$want_deb_version deb_for="asked for with --deb-version"
	if [[ -z $deb_version ]]; then
		deb_version=$(dpkg-query -W -f='${source:Version}' slurmctld 2>/dev/null) || deb_version=''
		deb_for="that of the installed slurmctld $(dpkg-query -W -f='${Version}' slurmctld 2>/dev/null)"
	fi
	if [[ -z $deb_version ]] && ((!stamp_only)); then
		echo "slurm-source.sh: Debian's slurmctld is not installed: install it, or name the source version with --deb-version" >&2
		exit 1
	fi
	tree_name=slurm-wlm-22.05.8
	configure_flags=(--sysconfdir=/etc/slurm --with-munge --without-rpath
		--disable-debug --enable-multiple-slurmd --disable-pam
		--without-pmix --without-hdf5 --without-lua --without-mysql_config)
	# Only what configure needs; the tree is used for headers/config.h.
	build_deps=(build-essential dpkg-dev pkg-config libmunge-dev)
	;;
debian:24.11.5 | *:2[234].*)
	if [[ $source_kind == debian ]]; then
		deb_version=24.11.5-4+deb13u1 deb_for="trixie's, for its upstream tarball"
	else
		# 22.x to 24.x by path, 23.11 and 24.05 (23.11 has no --with-s2n or --with-lua: configure
		# warns that it does not know them and goes on; lua and s2n are
		# not installed, so nothing changes).
		from_archive=1
	fi
	tree_name=slurm-$version
	prefix=$SM_CACHE/slurm-$version
	configure_flags=(--prefix="$prefix" --sysconfdir="$prefix/etc"
		--disable-static --disable-sview --without-pmix --without-ucx
		--without-nvml --without-rsmi --without-oneapi --without-hdf5
		--without-freeipmi --without-rdkafka --disable-pam --without-lua
		--with-mysql_config=/usr/bin --without-libcurl --without-bpf --without-s2n)
	# libjson-c-dev: serializer/json (squeue/sinfo/scontrol --json) is only
	# built when configure finds json-c. libmariadb-dev: slurmdbd's
	# accounting_storage/mysql (test clusters with --accounting); naming the
	# directory of mariadb_config makes configure fail, instead of silently
	# dropping the plugin, when it is missing.
	build_deps=(build-essential dpkg-dev pkg-config libmunge-dev libjson-c-dev libmariadb-dev)
	;;
*:2[5-9].* | *:[3-9][0-9].*)
	from_archive=1
	tree_name=slurm-$version
	prefix=$SM_CACHE/slurm-$version
	# As 24.11.5, plus what slurmctld's HTTP server on its own port needs
	# (libhttp-parser: without it slurmctld silently serves no HTTP, and
	# MetricsType has nothing to answer on) and JWT (auth/jwt and, on 26.05,
	# http_auth/jwt: MetricsAuthUsers with a token). Each --with names the
	# library's prefix so that configure fails instead of silently building
	# without it (but configure names the first --with-http-parser: it
	# warns that --with-libhttp-parser is unrecognized and finds
	# http-parser in /usr by itself; the flag stays as it is so that the
	# cached trees' stamps stay valid). 25.05 takes the same flags.
	configure_flags=(--prefix="$prefix" --sysconfdir="$prefix/etc"
		--disable-static --disable-sview --without-pmix --without-ucx
		--without-nvml --without-rsmi --without-oneapi --without-hdf5
		--without-freeipmi --without-rdkafka --disable-pam --without-lua
		--with-mysql_config=/usr/bin --without-libcurl --without-bpf --without-s2n
		--with-libhttp-parser=/usr --with-jwt=/usr --with-json=/usr)
	build_deps=(build-essential dpkg-dev pkg-config libmunge-dev libjson-c-dev libmariadb-dev
		libhttp-parser-dev libjwt-dev)
	;;
*)
	echo "slurm-source.sh: no configure flags for Slurm $version's series ($series)" >&2
	exit 2
	;;
esac

src_root=$SM_CACHE/src
log_dir=$SM_CACHE/logs
tree=$src_root/$tree_name
stamp=$tree/.sm-configure

log=$log_dir/slurm-source-$version.log
fail() {
	echo "slurm-source.sh: $*" >&2
	if [[ -s $log ]]; then
		echo "--- last lines of $log ---" >&2
		tail -n 40 "$log" >&2
	fi
	exit 1
}

# The stamp records what produced the configure outputs: the command line and
# the configure-time dependencies (configure results depend on which -dev
# packages were present). Same stamp => the tree is reusable as is.
# For a release archive, its expected checksum too: a new archive under the
# same name makes a new tree.
# shellcheck source=scripts/lib/slurm_archives.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/slurm_archives.sh"
wanted_stamp=$(printf '%s\n' "configure ${configure_flags[*]}" "deps ${build_deps[*]}")
# An archive given by path: its checksum is the one given, or is computed
# and printed so that the next run can pin it.
if [[ $source_kind == path ]]; then
	[[ -r $archive_path && -f $archive_path ]] || fail "cannot read the archive $archive_path"
	archive_path=$(cd "$(dirname "$archive_path")" && pwd)/$(basename "$archive_path")
	actual_sum=$(sha256sum <"$archive_path" | cut -d' ' -f1)
	if [[ -z $archive_sum ]]; then
		echo "slurm-source.sh: $archive_path: sha256 $actual_sum (pass --sha256 $actual_sum to check it)" >&2
		archive_sum=$actual_sum
	elif [[ $actual_sum != "$archive_sum" ]]; then
		fail "$archive_path has sha256 $actual_sum, not the $archive_sum given"
	fi
elif ((${from_archive:-0})); then
	archive_sum=$(slurm_archive_sum "$version")
fi
if ((${from_archive:-0})); then
	wanted_stamp+=$'\n'"archive $archive_sum"
fi
if ((stamp_only)); then
	echo "$wanted_stamp"
	exit 0
fi

# The Debian version a source package tree is of: its changelog's first
# entry. Empty for upstream trees.
tree_deb_version() {
	[[ -f $1/debian/changelog ]] || return 0
	sed -n '1s/^[^ ]* (\([^)]*\)).*/\1/p' "$1/debian/changelog"
}
# Whether the tree is of the Debian version wanted (upstream trees: always).
# Release archives: the tree is of the archive's checksum, recorded in
# .sm-archive when it was unpacked (or, for trees unpacked before that file
# existed, in the configure stamp).
tree_is_wanted() {
	if ((${from_archive:-0})); then
		[[ "$(cat "$tree/.sm-archive" 2>/dev/null)" == "$archive_sum" ]] ||
			{ [[ ! -f $tree/.sm-archive ]] && grep -qxF "archive $archive_sum" "$stamp" 2>/dev/null; }
		return
	fi
	[[ $source_kind != debian || $version != 22.05.8 || "$(tree_deb_version "$tree")" == "$deb_version" ]]
}

# Fast path: no lock, no apt, no logs when the tree is ready.
if [[ -f $tree/config.h && -f $stamp && "$(cat "$stamp")" == "$wanted_stamp" ]] && tree_is_wanted; then
	echo "$tree"
	exit 0
fi

# Serialise concurrent callers (parallel test jobs, the build script).
mkdir -p "$src_root" "$log_dir"
exec 9>"$SM_CACHE/.slurm-source-$version.lock"
flock 9

: >"$log"
export DEBIAN_FRONTEND=noninteractive

# shellcheck source=scripts/lib/apt.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/apt.sh"

# shellcheck source=scripts/lib/apt_source.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/apt_source.sh"

# Makes the private apt configuration (in $tmp, removed with it) that
# knows the deb-src entries; $1 an extra suite (trixie). Fails, naming both
# versions, when the archive has no slurm-wlm=$deb_version.
ensure_deb_src() {
	local available
	apt_source_setup "$tmp/apt" "${1:-}"
	available=$(apt_source_versions slurm-wlm)
	if ! grep -qxF -- "$deb_version" <<<"$available"; then
		fail "Debian's source slurm-wlm=$deb_version ($deb_for) is not in the archive apt is configured with (it has: $(paste -sd, <<<"${available:-none}" | sed 's/,/, /g')); build once that source is published, or pass a configured tree of that version (build-deb.sh --slurm-src)"
	fi
}

tmp=
cleanup() { [[ -n $tmp ]] && rm -rf "$tmp"; return 0; }
trap cleanup EXIT

fetch_tree() {
	[[ -d $tree ]] && tree_is_wanted && return 0
	tmp=$(mktemp -d "$src_root/.tmp-$version.XXXXXX")
	case "$source_kind:$version" in
	debian:22.05.8)
		ensure_deb_src
		# Full Debian source package: upstream + Debian patches applied.
		echo "+ apt-get source slurm-wlm=$deb_version" >>"$log"
		(cd "$tmp" && apt-get "${apt_opts[@]}" source "slurm-wlm=$deb_version") >>"$log" 2>&1 ||
			fail "apt-get source slurm-wlm=$deb_version failed"
		[[ -d $tmp/$tree_name ]] || fail "apt-get source did not produce $tree_name"
		;;
	debian:24.11.5)
		local tarball=$src_root/slurm-wlm_24.11.5.orig.tar.gz
		if [[ ! -s $tarball ]]; then
			ensure_deb_src trixie
			# The .dsc and debian.tar.xz 404 on the archive; only the
			# orig tarball is needed, so the non-zero exit is expected.
			# apt verifies the tarball against the Sources index hash.
			echo "+ apt-get source --download-only slurm-wlm=$deb_version" >>"$log"
			(cd "$src_root" && apt-get "${apt_opts[@]}" source --download-only "slurm-wlm=$deb_version") >>"$log" 2>&1 ||
				echo "(apt-get source failed as expected; checking the tarball)" >>"$log"
			[[ -s $tarball ]] || fail "download of $(basename "$tarball") failed"
		fi
		echo "+ tar xzf $tarball" >>"$log"
		tar -C "$tmp" -xzf "$tarball" >>"$log" 2>&1 || fail "cannot unpack $tarball"
		mv "$tmp/slurm-slurm-24-11-5-1" "$tmp/$tree_name" || fail "unexpected tarball layout"
		;;
	archives:*)
		# Checked against SHA256SUMS before a byte of it is unpacked.
		echo "+ unpack $(slurm_archive_dir)/slurm-$version.tar.xz" >>"$log"
		slurm_archive_unpack "$version" "$tmp" 2>>"$log"
		;;
	path:*)
		# Checked above against the checksum; any top directory name
		# (slurm-V/, a GitHub tag's slurm-slurm-V-1/), any compression tar
		# knows. The tree must say it is the version asked for (META).
		local top
		mkdir "$tmp/unpack"
		echo "+ tar xf $archive_path" >>"$log"
		tar -C "$tmp/unpack" -xf "$archive_path" >>"$log" 2>&1 || fail "cannot unpack $archive_path"
		top=$(find "$tmp/unpack" -mindepth 1 -maxdepth 1)
		[[ $(wc -l <<<"$top") -eq 1 && -f $top/META && -x $top/configure ]] ||
			fail "$archive_path does not unpack to one Slurm source directory"
		mv "$top" "$tmp/$tree_name"
		;;
	esac
	if ((${from_archive:-0})); then
		local meta_version
		meta_version=$(awk '$1 == "Major:" { ma = $2 } $1 == "Minor:" { mi = $2 }
			$1 == "Micro:" { mc = $2 } END { print ma "." mi "." mc }' "$tmp/$tree_name/META")
		[[ $meta_version == "$version" ]] ||
			fail "the archive is Slurm $meta_version (its META), not $version"
		printf '%s\n' "$archive_sum" >"$tmp/$tree_name/.sm-archive"
	fi
	# Keep the downloaded files next to the tree, as a manual run does.
	# Atomic publish: a half-unpacked tree is never visible under $tree. A
	# tree of another Debian version moves aside first (and goes with $tmp).
	find "$tmp" -maxdepth 1 -type f -exec mv -f {} "$src_root/" \;
	if [[ -d $tree ]]; then mv "$tree" "$tmp/old"; fi
	mv "$tmp/$tree_name" "$tree"
	rm -rf "$tmp"
	tmp=
}

configure_tree() {
	# Another caller may have finished while we waited for the lock.
	if [[ -f $tree/config.h && -f $stamp && "$(cat "$stamp")" == "$wanted_stamp" ]]; then
		return 0
	fi
	# A tree configured by hand with the same flags (no stamp yet) is adopted
	# rather than reconfigured: config.status remembers its command line.
	if [[ -f $tree/config.h && -x $tree/config.status && ! -f $stamp ]] &&
		[[ "$(cd "$tree" && ./config.status --config 2>/dev/null)" == "${configure_flags[*]}" ]]; then
		printf '%s\n' "$wanted_stamp" >"$stamp"
		return 0
	fi
	# Removed before configuring so an interrupted run is never trusted.
	rm -f "$stamp"
	local clog=$log_dir/configure-$version.log
	echo "+ ./configure ${configure_flags[*]} (log: $clog)" >>"$log"
	(cd "$tree" && ./configure "${configure_flags[@]}") >"$clog" 2>&1 || {
		log=$clog
		fail "configure failed for $version"
	}
	[[ -f $tree/config.h ]] || fail "configure produced no config.h"
	printf '%s\n' "$wanted_stamp" >"$stamp"
}

install_missing "${build_deps[@]}"
fetch_tree
configure_tree
echo "$tree"
