#!/usr/bin/env bash
# Make a configured Slurm source tree available and print its path (last line
# of stdout).
#
#   scripts/slurm-source.sh 22.05.8   # Debian bookworm source package, patched
#   scripts/slurm-source.sh 24.11.5   # upstream tarball from Debian trixie
#   scripts/slurm-source.sh --stamp 24.11.5   # print the configure stamp only
#                                             # (lets callers key caches on it)
#
# Everything lives under $SM_CACHE (default /var/cache/soperator-metrics),
# outside the checkout, so trees survive `git clean` and are shared between
# worktrees. Progress goes to log files under $SM_CACHE/logs; on failure the
# log tail goes to stderr and the exit status is non-zero.
set -euo pipefail

SM_CACHE=${SM_CACHE:-/var/cache/soperator-metrics}
stamp_only=0
if [[ ${1:-} == --stamp ]]; then
	stamp_only=1
	shift
fi
version=${1:-}

usage() {
	echo "usage: $0 [--stamp] 22.05.8|24.11.5" >&2
	exit 2
}

# Debian source version that carries each Slurm version, and the configure
# flags its tree is configured with. The 22.05.8 flags mirror Debian's own
# build (sysconfdir /etc/slurm) so its config.h matches the installed
# libslurm; 24.11.5 installs into its own prefix in the cache.
case "$version" in
22.05.8)
	deb_version=22.05.8-4+deb12u3
	tree_name=slurm-wlm-22.05.8
	configure_flags=(--sysconfdir=/etc/slurm --with-munge --without-rpath
		--disable-debug --enable-multiple-slurmd --disable-pam
		--without-pmix --without-hdf5 --without-lua --without-mysql_config)
	# Only what configure needs; the tree is used for headers/config.h.
	build_deps=(build-essential dpkg-dev pkg-config libmunge-dev)
	;;
24.11.5)
	deb_version=24.11.5-4+deb13u1
	tree_name=slurm-24.11.5
	prefix=$SM_CACHE/slurm-24.11.5
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
*) usage ;;
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
wanted_stamp=$(printf '%s\n' "configure ${configure_flags[*]}" "deps ${build_deps[*]}")
if ((stamp_only)); then
	echo "$wanted_stamp"
	exit 0
fi

# Fast path: no lock, no apt, no logs when the tree is ready.
if [[ -f $tree/config.h && -f $stamp && "$(cat "$stamp")" == "$wanted_stamp" ]]; then
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

# Write $2 to $1 only when the content differs; report whether it changed.
write_if_changed() {
	local file=$1 content=$2
	if [[ -f $file && "$(cat "$file")" == "$content" ]]; then
		return 1
	fi
	printf '%s\n' "$content" >"$file.tmp"
	mv "$file.tmp" "$file"
	return 0
}

# apt-cache showsrc takes no =version, so look for the version among all.
# No grep -q: under pipefail its early exit would SIGPIPE apt-cache.
have_source_version() {
	apt-cache showsrc slurm-wlm 2>/dev/null | grep -xF "Version: $deb_version" >/dev/null
}

# deb-src entries are derived from the machine's own deb822 sources so the
# mirror/snapshot configured there is reused (no host names in this script).
# The trixie entry reuses the main-archive stanza (first suite = our codename)
# with Suites replaced: 24.11.5 only exists as a trixie source package.
ensure_deb_src() {
	local main=/etc/apt/sources.list.d/debian.sources
	local out_src=/etc/apt/sources.list.d/sm-debsrc.sources
	local out_trixie=/etc/apt/sources.list.d/sm-trixie-src.sources
	local codename changed=0 debsrc trixie
	[[ -r $main ]] || fail "$main not found: cannot derive deb-src entries"
	# shellcheck disable=SC1091 # os-release is a system file
	codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
	[[ -n $codename ]] || fail "cannot determine Debian codename"

	# Each stanza of type deb (and not already deb-src) becomes a deb-src one.
	debsrc=$(awk '
		function flush() {
			if (n && is_deb && !has_src) {
				if (out++) print ""
				for (i = 1; i <= n; i++) print lines[i]
			}
			n = 0; is_deb = 0; has_src = 0
		}
		/^[[:space:]]*$/ { flush(); next }
		/^Types:/ {
			for (i = 2; i <= NF; i++) {
				if ($i == "deb") is_deb = 1
				if ($i == "deb-src") has_src = 1
			}
			lines[++n] = "Types: deb-src"; next
		}
		{ lines[++n] = $0 }
		END { flush() }' "$main")
	trixie=$(awk -v want="$codename" '
		function flush() {
			if (n && is_deb && first == want && !done) {
				for (i = 1; i <= n; i++) print lines[i]
				done = 1
			}
			n = 0; is_deb = 0; first = ""
		}
		/^[[:space:]]*$/ { flush(); next }
		/^Types:/ {
			for (i = 2; i <= NF; i++) if ($i == "deb" || $i == "deb-src") is_deb = 1
			lines[++n] = "Types: deb-src"; next
		}
		/^Suites:/ { first = $2; lines[++n] = "Suites: trixie"; next }
		{ lines[++n] = $0 }
		END { flush() }' "$main")
	[[ -n $trixie ]] || fail "no stanza with Suites: $codename in $main"

	if [[ -n $debsrc ]] && write_if_changed "$out_src" "$debsrc"; then changed=1; fi
	if [[ $codename != trixie ]] && write_if_changed "$out_trixie" "$trixie"; then changed=1; fi

	# Refresh indexes when the entries are new or the version is unknown.
	if ((changed)) || ! have_source_version; then
		echo "+ apt-get update" >>"$log"
		apt-get update >>"$log" 2>&1 || fail "apt-get update failed"
	fi
	have_source_version || fail "source package slurm-wlm=$deb_version not found in apt indexes"
}

tmp=
cleanup() { [[ -n $tmp ]] && rm -rf "$tmp"; return 0; }
trap cleanup EXIT

fetch_tree() {
	[[ -d $tree ]] && return 0
	tmp=$(mktemp -d "$src_root/.tmp-$version.XXXXXX")
	case "$version" in
	22.05.8)
		ensure_deb_src
		# Full Debian source package: upstream + Debian patches applied.
		echo "+ apt-get source slurm-wlm=$deb_version" >>"$log"
		(cd "$tmp" && apt-get source "slurm-wlm=$deb_version") >>"$log" 2>&1 ||
			fail "apt-get source slurm-wlm=$deb_version failed"
		[[ -d $tmp/$tree_name ]] || fail "apt-get source did not produce $tree_name"
		# Keep the downloaded files next to the tree, as a manual run does.
		find "$tmp" -maxdepth 1 -type f -exec mv -f {} "$src_root/" \;
		;;
	24.11.5)
		local tarball=$src_root/slurm-wlm_24.11.5.orig.tar.gz
		if [[ ! -s $tarball ]]; then
			ensure_deb_src
			# The .dsc and debian.tar.xz 404 on the archive; only the
			# orig tarball is needed, so the non-zero exit is expected.
			# apt verifies the tarball against the Sources index hash.
			echo "+ apt-get source --download-only slurm-wlm=$deb_version" >>"$log"
			(cd "$src_root" && apt-get source --download-only "slurm-wlm=$deb_version") >>"$log" 2>&1 ||
				echo "(apt-get source failed as expected; checking the tarball)" >>"$log"
			[[ -s $tarball ]] || fail "download of $(basename "$tarball") failed"
		fi
		echo "+ tar xzf $tarball" >>"$log"
		tar -C "$tmp" -xzf "$tarball" >>"$log" 2>&1 || fail "cannot unpack $tarball"
		mv "$tmp/slurm-slurm-24-11-5-1" "$tmp/$tree_name" || fail "unexpected tarball layout"
		;;
	esac
	# Atomic publish: a half-unpacked tree is never visible under $tree.
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
