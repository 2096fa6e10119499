#!/usr/bin/env bash
# Provide Slurm daemons + clients for a loopback test cluster and print the
# install prefix (last line of stdout).
#
#   scripts/slurm-build.sh 24.11.5   # build from the upstream tarball into
#                                    # $SM_CACHE/slurm-24.11.5 (cached)
#   scripts/slurm-build.sh 25.11.7   # the same from the release archives of
#   scripts/slurm-build.sh 26.05.3   # scripts/slurm-source.sh
#   scripts/slurm-build.sh 22.05.8   # Debian's packages; prints /usr
#   scripts/slurm-build.sh 23.11.11  # any other release scripts/slurm-source.sh
#                                    # configures (24.05.8, 25.05.8, ...): the
#                                    # directories of the lists below that
#                                    # its tree has
#   scripts/slurm-build.sh --lib 24.05.8
#                                    # libslurmfull and the headers only, all
#                                    # the shim needs (a complete build in the
#                                    # prefix is taken as it is)
#   SM_SLURM_CFLAGS=configure scripts/slurm-build.sh 24.11.5
#                                    # with configure's -O1 (benchmarks)
#                                    # instead of the tests' -O0
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
parts=all
if [[ ${1:-} == --lib ]]; then
	parts=lib
	shift
fi
version=${1:-24.11.5}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# Bump when the directory list or the build steps change: invalidates caches.
recipe_version=3
release_files=()

# Build order matters: the convenience libraries (common, interfaces,
# conmgr) feed libslurmfull in src/api; bcast (up to 25.11) and stepmgr are
# linked into slurmd/srun and slurmctld/slurmstepd; src/database (MySQL
# glue) feeds accounting_storage/mysql.
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
# GRES; the default PrEpPlugins is prep/script. topology/block is not loaded
# by default: the node-groups test configures it (its base blocks are
# Soperator's NVLink groups, tests/integration/test_node_groups.py).
plugin_dirs=(
	auth/munge
	cred/common cred/munge
	hash/common_xkcp hash/k12
	tls/none
	select/cons_tres
	sched/backfill
	priority/basic priority/multifactor
	accounting_storage/common accounting_storage/mysql accounting_storage/slurmdbd
	topology/common topology/default topology/block
	prep/script
	proctrack/linuxproc
	mpi/pmi2
	gres/common gres/gpu
	gpu/common gpu/generic
	serializer/json
	data_parser/v0.0.40 data_parser/v0.0.41 data_parser/v0.0.42
)

# 25.11 and 26.05 (docs/compat.md, "The 26.05.3 check"): topology/flat is
# the default (topology/default is gone); scontrol refuses to start without
# certgen/script; slurmctld serves HTTP on its own port only with
# http_parser/libhttp_parser (26.05: and url_parser/internal); --json wants
# their data_parser versions; metrics/openmetrics is Slurm's own
# MetricsType, the oracle of the native-fidelity test; auth/jwt serves
# MetricsAuthUsers with a token (on 26.05 it also holds the HTTP side,
# http_auth_jwt.c); 26.05's slurmd needs a compress plugin and has no
# src/bcast.
release_dirs() {
	local common=(
		auth/munge auth/jwt
		cred/common cred/munge
		hash/common_xkcp hash/k12 hash/sha3
		tls/none certgen/script certmgr/script
		select/cons_tres
		sched/backfill
		priority/basic priority/multifactor
		accounting_storage/common accounting_storage/mysql accounting_storage/slurmdbd
		topology/common topology/flat topology/block
		prep/script
		proctrack/linuxproc
		mpi/pmi2
		gres/common gres/gpu
		gpu/common gpu/generic
		serializer/json
		http_parser/libhttp_parser
		metrics/openmetrics
	)
	case $1 in
	25.11.*)
		plugin_dirs=("${common[@]}" data_parser/v0.0.42 data_parser/v0.0.43 data_parser/v0.0.44)
		;;
	26.05.*)
		core_dirs=("${core_dirs[@]/src\/bcast/}")
		# http_parser/common's convenience library precedes
		# libhttp_parser, as every family's common/ does.
		plugin_dirs=(auth/common http_parser/common "${common[@]}" url_parser/internal
			compress/none data_parser/v0.0.43 data_parser/v0.0.44
			data_parser/v0.0.45)
		;;
	esac
	# Without these slurmctld's port answers no HTTP or refuses tokens,
	# and the tests would only find out at run time.
	release_files=(lib/slurm/http_parser_libhttp_parser.so lib/slurm/auth_jwt.so
		lib/slurm/metrics_openmetrics.so)
	local d kept=()
	for d in "${core_dirs[@]}"; do [[ -n $d ]] && kept+=("$d"); done
	core_dirs=("${kept[@]}")
}

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
25.11.7 | 26.05.3) release_dirs "$version" ;;
2[345].[0-9]*.[0-9]*)
	# Releases outside the tested set (23.11.11, 24.05.8 and 25.05.8 for
	# the shim, docs/testing.md): the lists above plus the directories
	# other series name (topology/flat from 25.05, data_parser by
	# release), each kept only if the tree has it (filter_dirs below).
	filter_dirs=1
	plugin_dirs=("${plugin_dirs[@]}" topology/flat hash/sha3 tls/none
		data_parser/v0.0.39 data_parser/v0.0.43)
	;;
*)
	echo "usage: $0 [--lib] [24.11.5|25.11.7|26.05.3|22.05.8|other 23.x-25.x release]" >&2
	exit 2
	;;
esac
# --lib: libslurmfull (src/api and the convenience libraries it links)
# and the public headers; what the shim links, in a fraction of the time.
if [[ $parts == lib ]]; then
	core_dirs=(src/common src/interfaces src/conmgr src/api)
	plugin_dirs=()
	release_files=()
	filter_dirs=1
fi

prefix=$SM_CACHE/slurm-$version
complete=$prefix/.complete
src_stamp=$("$here/slurm-source.sh" --stamp "$version")
recipe() {
	echo "recipe $recipe_version"
	echo "$src_stamp"
	echo "dirs ${core_dirs[*]} ${plugin_dirs[*]/#/src/plugins/}"
	echo "cflags ${SM_SLURM_CFLAGS:-O0}"
}
wanted=$(recipe)
# A --lib request is also served by a complete build of the same recipe.
also_fine=$wanted
if [[ $parts == lib ]]; then
	also_fine=$(SM_PRINT_RECIPE=1 "$0" "$version" 2>/dev/null) || also_fine=$wanted
fi
if [[ ${SM_PRINT_RECIPE:-} == 1 ]]; then
	echo "$wanted"
	exit 0
fi

# Fast path: cache complete and built by this recipe.
if [[ -f $complete ]] && [[ "$(cat "$complete")" == "$wanted" || "$(cat "$complete")" == "$also_fine" ]]; then
	echo "$prefix"
	exit 0
fi

mkdir -p "$SM_CACHE/logs"
# One builder at a time; a waiter then finds the cache complete.
exec 9>"$SM_CACHE/.slurm-build-$version.lock"
flock 9
if [[ -f $complete ]] && [[ "$(cat "$complete")" == "$wanted" || "$(cat "$complete")" == "$also_fine" ]]; then
	echo "$prefix"
	exit 0
fi

log=$SM_CACHE/logs/slurm-build-$version.log
: >"$log"
# munge: munged for the test cluster (build deps come with slurm-source.sh).
install_missing munge

tree=$("$here/slurm-source.sh" "$version" | tail -n 1) || fail "slurm-source.sh $version failed"
[[ -f $tree/config.h ]] || fail "no configured tree at $tree"
if ((${filter_dirs:-0})); then
	kept=()
	for d in "${core_dirs[@]}"; do [[ -d $tree/$d ]] && kept+=("$d"); done
	core_dirs=("${kept[@]}")
	kept=()
	for d in "${plugin_dirs[@]}"; do [[ -d $tree/src/plugins/$d ]] && kept+=("$d"); done
	plugin_dirs=("${kept[@]}")
fi

# Compiled without optimisation: Slurm's configure adds -O1 -ggdb3 with its
# debug code on, and -O0 -g compiles these directories in well under half
# the time on 2 cores (docs/testing.md, "What each stage costs in CI"). The
# debug code itself stays on (configure's --enable-debug, the default): its
# assertions check, among others, the locks slurmctld's functions expect
# the plugin to hold. A test cluster is small; its daemons' speed is not
# what is tested. The benchmarks measure slurmctld's own CPU, so they want
# configure's flags: SM_SLURM_CFLAGS=configure (docs/performance.md). The
# flags are part of the cache's stamp; a change of flags cleans the
# directories first (make does not notice a change of CFLAGS).
cflags=$(sed -n 's/^CFLAGS = //p' "$tree/Makefile")
[[ -n $cflags ]] || fail "no CFLAGS in $tree/Makefile"
case ${SM_SLURM_CFLAGS:-O0} in
O0)
	cflags=$(printf '%s\n' $cflags | grep -Ev '^-(O.*|g.*)$' | tr '\n' ' ')
	cflags+="-O0 -g"
	;;
configure) ;;
*) fail "SM_SLURM_CFLAGS is O0 (the default) or configure" ;;
esac
# Each step's line in the log carries the seconds since the build started
# (how long libslurmfull alone takes: the line of the first directory after
# src/api).
build_start=$SECONDS
step() {
	local what=$1 dir=$2
	shift 2
	echo "slurm-build: $what $dir" >&2
	echo "+ [$((SECONDS - build_start)) s] make -C $dir $* CFLAGS='$cflags'" >>"$log"
	make -C "$tree/$dir" "$@" CFLAGS="$cflags" >>"$log" 2>&1 || fail "make $* failed in $dir"
}

# Objects built with other flags (an older recipe, or the other
# SM_SLURM_CFLAGS) are removed first.
flags_mark=$tree/.soperator-metrics-cflags
if [[ ! -f $flags_mark || "$(cat "$flags_mark")" != "$cflags" ]]; then
	for d in "${core_dirs[@]}" "${plugin_dirs[@]/#/src/plugins/}"; do step clean "$d" clean; done
fi
printf '%s\n' "$cflags" >"$flags_mark"

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
expected=(sbin/slurmctld sbin/slurmd sbin/slurmstepd sbin/slurmdbd bin/srun bin/sbatch
	bin/squeue bin/scontrol bin/sinfo bin/sdiag bin/scancel bin/sacctmgr bin/sshare
	bin/sacct lib/slurm/accounting_storage_mysql.so lib/slurm/accounting_storage_slurmdbd.so
	lib/slurm/priority_multifactor.so "${release_files[@]}")
[[ $parts == lib ]] && expected=(lib/slurm/libslurmfull.so include/slurm/slurm.h)
for b in "${expected[@]}"; do
	[[ -e $stage$prefix/$b ]] || fail "missing $prefix/$b after install"
done
if [[ -e $prefix ]]; then mv "$prefix" "$prefix.old"; fi
mv "$stage$prefix" "$prefix"
rm -rf "$stage" "$prefix.old"
if [[ $parts == all ]]; then
	[[ "$("$prefix/sbin/slurmctld" -V 2>&1)" == "slurm $version" ]] ||
		fail "$prefix/sbin/slurmctld -V does not report $version"
fi

printf '%s\n' "$wanted" >"$complete"
echo "$prefix"
