#!/usr/bin/env bash
# Provide Slurm daemons + clients for a loopback test cluster and print the
# install prefix (last line of stdout).
#
#   scripts/slurm-build.sh 24.11.5   # build from the upstream tarball into
#                                    # $SM_CACHE/slurm-24.11.5 (cached)
#   scripts/slurm-build.sh 22.05.8   # Debian's packages; prints /usr
#
# Only the directories a test cluster needs are built (a full `make` takes
# far too long on 2 cores), slurmdbd and its MySQL plugin included (test
# clusters with --accounting). The prefix is a cache outside the checkout: a
# stamp written last records the recipe, so a rerun with an intact cache
# returns immediately. A rebuild installs into a staging directory and then
# swaps it in, so clusters running from the old prefix keep their files.
# Build output goes to $SM_CACHE/logs; on failure the log tail goes to
# stderr.
set -euo pipefail

SM_CACHE=${SM_CACHE:-/var/cache/soperator-metrics}
version=${1:-24.11.5}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# Bump when the directory list or the build steps change: invalidates caches.
recipe_version=2

# Build order matters: the convenience libraries (common, interfaces,
# conmgr) feed libslurmfull in src/api; bcast and stepmgr are linked into
# slurmd/srun and slurmctld/slurmstepd; src/database (MySQL glue) feeds
# accounting_storage/mysql.
core_dirs=(
	src/common src/interfaces src/conmgr src/api src/bcast src/stepmgr
	src/slurmctld src/slurmd src/database src/slurmdbd
	src/srun src/sbatch src/squeue src/scontrol src/sinfo src/sdiag src/scancel
	src/sacctmgr src/sshare src/sacct
)
# Each family's common/ convenience library precedes its plugins. These are
# what slurmctld/slurmd/slurmstepd load for the loopback configuration (a
# missing one is fatal) plus what the clients' --json output needs. Not
# obvious: PriorityType defaults to priority/multifactor; an MPI plugin must
# exist even with MpiDefault=none; slurmstepd loads gpu/generic even without
# GRES; the default PrEpPlugins is prep/script.
plugin_dirs=(
	auth/munge
	cred/common cred/munge
	hash/common_xkcp hash/k12
	tls/none
	select/cons_tres
	sched/backfill
	priority/basic priority/multifactor
	accounting_storage/common accounting_storage/mysql accounting_storage/slurmdbd
	topology/common topology/default
	prep/script
	proctrack/linuxproc
	mpi/pmi2
	gres/common gres/gpu
	gpu/common gpu/generic
	serializer/json
	data_parser/v0.0.40 data_parser/v0.0.41 data_parser/v0.0.42
)

fail() {
	echo "slurm-build.sh: $*" >&2
	if [[ -n ${log:-} && -s $log ]]; then
		echo "--- last lines of $log ---" >&2
		tail -n 40 "$log" >&2
	fi
	exit 1
}

# shellcheck source=scripts/lib/apt.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/apt.sh"

case "$version" in
22.05.8)
	# Debian bookworm ships 22.05.8: nothing to build.
	if ! pkg_installed slurmctld || ! pkg_installed slurmd || ! pkg_installed slurm-client ||
		! pkg_installed munge || ! pkg_installed libslurm-dev; then
		mkdir -p "$SM_CACHE/logs"
		log=$SM_CACHE/logs/slurm-build-$version.log
		: >"$log"
		install_missing slurmctld slurmd slurm-client munge libslurm-dev
	fi
	echo /usr
	exit 0
	;;
24.11.5) ;;
*)
	echo "usage: $0 [24.11.5|22.05.8]" >&2
	exit 2
	;;
esac

prefix=$SM_CACHE/slurm-$version
complete=$prefix/.complete
src_stamp=$("$here/slurm-source.sh" --stamp "$version")
wanted=$(
	echo "recipe $recipe_version"
	echo "$src_stamp"
	echo "dirs ${core_dirs[*]} ${plugin_dirs[*]/#/src/plugins/}"
)

# Fast path: cache complete and built by this recipe.
if [[ -f $complete && "$(cat "$complete")" == "$wanted" ]]; then
	echo "$prefix"
	exit 0
fi

mkdir -p "$SM_CACHE/logs"
# One builder at a time; a waiter then finds the cache complete.
exec 9>"$SM_CACHE/.slurm-build-$version.lock"
flock 9
if [[ -f $complete && "$(cat "$complete")" == "$wanted" ]]; then
	echo "$prefix"
	exit 0
fi

log=$SM_CACHE/logs/slurm-build-$version.log
: >"$log"
# munge: munged for the test cluster (build deps come with slurm-source.sh).
install_missing munge

tree=$("$here/slurm-source.sh" "$version" | tail -n 1) || fail "slurm-source.sh $version failed"
[[ -f $tree/config.h ]] || fail "no configured tree at $tree"

step() {
	local what=$1 dir=$2
	shift 2
	echo "slurm-build: $what $dir" >&2
	echo "+ make -C $dir $*" >>"$log"
	make -C "$tree/$dir" "$@" >>"$log" 2>&1 || fail "make $* failed in $dir"
}

start=$SECONDS
for d in "${core_dirs[@]}"; do step build "$d" -j2; done
for d in "${plugin_dirs[@]}"; do step build "src/plugins/$d" -j2; done
echo "build took $((SECONDS - start))s" >>"$log"

# A fresh prefix, so files from an older recipe cannot linger. It is staged
# (DESTDIR) and swapped in by two renames: a cluster another test runs from
# the old prefix keeps the files it has open, and its next plugin load or
# client call finds a complete tree instead of a half-installed one.
start=$SECONDS
stage=$SM_CACHE/.stage-$version
rm -rf "$stage" "$prefix.old"
for d in "${core_dirs[@]}" "${plugin_dirs[@]/#/src/plugins/}"; do
	step install "$d" install DESTDIR="$stage"
done
# Public headers (slurm.h, spank.h, ...) live in the top-level Makefile; they
# let plugins be compiled against this prefix.
step install . install-pkgincludeHEADERS DESTDIR="$stage"
echo "install took $((SECONDS - start))s" >>"$log"

# Sanity, in the staging copy: everything a test cluster starts is there (a
# configure that lost MySQL would drop accounting_storage_mysql.so silently).
for b in sbin/slurmctld sbin/slurmd sbin/slurmstepd sbin/slurmdbd bin/srun bin/sbatch \
	bin/squeue bin/scontrol bin/sinfo bin/sdiag bin/scancel bin/sacctmgr bin/sshare \
	bin/sacct lib/slurm/accounting_storage_mysql.so lib/slurm/accounting_storage_slurmdbd.so \
	lib/slurm/priority_multifactor.so; do
	[[ -e $stage$prefix/$b ]] || fail "missing $prefix/$b after install"
done
if [[ -e $prefix ]]; then mv "$prefix" "$prefix.old"; fi
mv "$stage$prefix" "$prefix"
rm -rf "$stage" "$prefix.old"
[[ "$("$prefix/sbin/slurmctld" -V 2>&1)" == "slurm $version" ]] ||
	fail "$prefix/sbin/slurmctld -V does not report $version"

printf '%s\n' "$wanted" >"$complete"
echo "$prefix"
