#!/usr/bin/env bash
# Self-test of scripts/test-cluster.sh: for each VERSION (default 22.05.8),
# start a cluster without a job_submit plugin and once more with --gpus 2,
# and check nodes, a batch job, squeue --json, restart-ctld and stop.
#
#   scripts/test-cluster-selftest.sh [VERSION]...    # e.g. 22.05.8 24.11.5
#
# Exit 0 when every check passed. Temp dirs of passing runs are removed; a
# failing run's dir is kept (its path is printed) with the cluster stopped.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tc=$here/test-cluster.sh
cur_dir=''
case_name=''

# Whatever happens, no daemon of ours survives the test.
cleanup() {
	if [[ -n $cur_dir ]]; then
		"$tc" stop "$cur_dir" >/dev/null 2>&1 || true
		echo "kept $cur_dir for inspection" >&2
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

fail() {
	echo "FAIL [$case_name]: $*" >&2
	if [[ -n $cur_dir ]]; then "$tc" logs "$cur_dir" >&2 || true; fi
	exit 1
}

ok() { echo "  ok: $*"; }

now() { echo "${EPOCHREALTIME/,/.}"; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# Live processes (not zombies) that belong to DIR: daemons whose command line
# names its slurm.conf, and slurmstepd/job processes that carry it in their
# environment (slurmstepd renames itself, so its command line does not).
dir_procs() {
	local dir=$1 conf=$1/etc/slurm.conf p stat comm
	for p in /proc/[0-9]*; do
		stat=$(cat "$p/stat" 2>/dev/null) || continue
		stat=${stat##*) }
		[[ ${stat%% *} == [ZX] ]] && continue
		comm=$(cat "$p/comm" 2>/dev/null) || continue
		if tr '\0' '\n' 2>/dev/null <"$p/cmdline" | grep -F "$dir/" >/dev/null; then
			echo "${p#/proc/} $comm"
		elif [[ $comm == slurmstepd ]] || tr '\0' '\n' 2>/dev/null <"$p/environ" | grep '^SLURM_JOB_ID=' >/dev/null; then
			if tr '\0' '\n' 2>/dev/null <"$p/environ" | grep -Fx "SLURM_CONF=$conf" >/dev/null; then
				echo "${p#/proc/} $comm"
			fi
		fi
	done
}

node_state() { timeout 20 sinfo -h -N -n "$1" -o %T | sort -u | paste -sd, -; }

run_case() {
	local version=$1 gpus=$2 dir t0 st g jid out args=()
	case_name="$version gpus=$gpus"
	echo "== $case_name"
	dir=$(mktemp -d /tmp/test-cluster-selftest.XXXXXX)
	cur_dir=$dir
	if ((gpus)); then args+=(--gpus "$gpus"); fi

	t0=$(now)
	"$tc" start "$version" "$dir" "${args[@]}" >/dev/null || fail "start failed"
	ok "start took $(elapsed "$t0") s"
	"$tc" status "$dir" >/dev/null || fail "status says not running"

	# A second start on the same DIR must refuse and leave the cluster alone.
	if "$tc" start "$version" "$dir" >/dev/null 2>&1; then fail "second start on a running DIR succeeded"; fi
	"$tc" status "$dir" >/dev/null || fail "refused start disturbed the cluster"
	ok "start refuses a DIR with a running cluster"

	# shellcheck source=/dev/null
	source "$dir/env.sh"
	[[ $(command -v sinfo) == "$SM_SLURM_PREFIX/bin/sinfo" ]] || fail "env.sh: sinfo is $(command -v sinfo)"
	timeout 20 sinfo -V | grep -E "^slurm(-wlm)? ${version//./\\.}$" >/dev/null || fail "clients are not $version"

	st=$(node_state vm)
	[[ $st == idle ]] || fail "vm is '$st', not idle"
	ok "vm idle"

	out=$(timeout 20 scontrol show nodes)
	for g in ghost1 ghost2; do
		grep -E "^NodeName=$g " <<<"$out" >/dev/null || fail "$g missing from scontrol show nodes"
		st=$(node_state "$g")
		[[ -n $st && $st != idle* ]] || fail "$g is '$st'"
		ok "$g present, state $st ($(timeout 20 scontrol show node "$g" | grep -o 'State=[^ ]*' | head -n 1))"
	done

	local gres_opt=()
	if ((gpus)); then gres_opt=(--gres=gpu:1); fi
	jid=$(timeout 20 sbatch --parsable "${gres_opt[@]}" -o "$dir/job-%j.out" --wrap 'sleep 30') ||
		fail "sbatch failed"
	jid=${jid%%;*}
	local end=$((SECONDS + 30))
	until [[ $(timeout 20 squeue -h -j "$jid" -o %T) == RUNNING ]]; do
		((SECONDS < end)) || fail "job $jid not RUNNING after 30 s: $(timeout 20 squeue -h -j "$jid" -o '%T %r')"
		sleep 0.5
	done
	ok "job $jid running"

	if ((gpus)); then
		timeout 20 scontrol show node vm | grep -E "^ *Gres=gpu:$gpus( |$)" >/dev/null ||
			fail "vm has no Gres=gpu:$gpus: $(timeout 20 scontrol show node vm | grep -i gres)"
		# No gres/gpu in AllocTRES: AccountingStorageTRES lacks it by default.
		timeout 20 scontrol -d show job "$jid" | grep -F 'GRES=gpu:1(IDX:' >/dev/null ||
			fail "job $jid was allocated no GPU: $(timeout 20 scontrol -d show job "$jid" | grep -i gres)"
		ok "vm shows Gres=gpu:$gpus; job holds $(timeout 20 scontrol -d show job "$jid" | grep -o "GRES=gpu:[^ ]*(IDX:[^ ]*")"
	fi

	timeout 20 squeue --json | python3 -c '
import json, sys
jobs = json.load(sys.stdin)["jobs"]
ids = [j["job_id"] for j in jobs]
sys.exit(0 if int(sys.argv[1]) in ids else "job %s not in squeue --json: %s" % (sys.argv[1], ids))
' "$jid" || fail "squeue --json"
	ok "squeue --json parses and lists job $jid"

	t0=$(now)
	"$tc" restart-ctld "$dir" 2>/dev/null || fail "restart-ctld failed"
	st=$(timeout 20 squeue -h -j "$jid" -o %T)
	[[ $st == RUNNING ]] || fail "after restart-ctld job $jid is '$st'"
	"$tc" status "$dir" >/dev/null || fail "status after restart-ctld"
	ok "restart-ctld took $(elapsed "$t0") s; job $jid still RUNNING; vm $(node_state vm)"

	t0=$(now)
	"$tc" stop "$dir" 2>/dev/null || fail "stop failed"
	ok "stop took $(elapsed "$t0") s"
	if "$tc" status "$dir" >/dev/null; then fail "status says running after stop"; fi
	# Zombies get reaped by init shortly; dir_procs already ignores them.
	out=$(dir_procs "$dir")
	[[ -z $out ]] || fail "left behind after stop: $(echo "$out" | paste -sd, -)"
	ok "no slurmctld/slurmd/slurmstepd/job process of $dir left"
	"$tc" stop "$dir" 2>/dev/null || fail "second stop failed"

	cur_dir=''
	rm -rf "$dir"
}

versions=("$@")
((${#versions[@]})) || versions=(22.05.8)
for v in "${versions[@]}"; do
	# Installs or builds the release if needed; instant when cached.
	"$here/slurm-build.sh" "$v" >/dev/null || { echo "FAIL: slurm-build.sh $v" >&2; exit 1; }
	run_case "$v" 0
	run_case "$v" 2
done
echo "PASS: ${versions[*]}"
