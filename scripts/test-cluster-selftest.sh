#!/usr/bin/env bash
# Self-test of scripts/test-cluster.sh: for each VERSION (default 22.05.8),
# start a cluster without a job_submit plugin and once more with --gpus 2,
# and check nodes, a batch job, squeue --json, restart-ctld and stop; then
# once with --accounting and typed GPUs, and check slurmdbd's associations,
# QoS, licenses, the reservation, a job under a QoS, stop-dbd/start-dbd.
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
		elif [[ $comm == slurmstepd || $comm == slurmdbd ]] ||
			tr '\0' '\n' 2>/dev/null <"$p/environ" | grep '^SLURM_JOB_ID=' >/dev/null; then
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

# --accounting: what slurmdbd, slurmctld and the clients say about the tree
# test-cluster.sh creates, and that slurmctld keeps answering without
# slurmdbd.
run_case_accounting() {
	local version=$1 dir t0 out jid end
	case_name="$version accounting"
	echo "== $case_name"
	dir=$(mktemp -d /tmp/test-cluster-selftest.XXXXXX)
	cur_dir=$dir

	t0=$(now)
	"$tc" start "$version" "$dir" --accounting --gpus h100:1,a100:1 >/dev/null || fail "start failed"
	ok "start took $(elapsed "$t0") s"
	out=$("$tc" status "$dir") || fail "status: $out"
	grep -E '^slurmdbd [0-9]+ alive$' <<<"$out" >/dev/null || fail "status lacks slurmdbd: $out"
	grep -E '^mariadbd [0-9]+ alive$' <<<"$out" >/dev/null || fail "status lacks mariadbd: $out"
	ok "status lists slurmdbd and mariadbd"
	# shellcheck source=/dev/null
	source "$dir/env.sh"

	out=$(timeout 20 sshare -a -P -n -o Account,User,RawShares)
	for g in 'physics||40' 'theory||10' 'chemistry||60' 'theory|nobody|1' 'chemistry|daemon|1'; do
		grep -F -- "$g" <<<"$out" >/dev/null || fail "sshare lacks $g: $out"
	done
	ok "sshare shows the association tree"
	out=$(timeout 20 sacctmgr -n -P show qos format=Name,Priority,GrpTRES,GrpJobs,MaxJobsPerUser)
	grep -Fx 'high|100|cpu=2|4|2' <<<"$out" >/dev/null || fail "sacctmgr show qos: $out"
	ok "sacctmgr shows QoS high"
	out=$(timeout 20 scontrol show licenses)
	grep -E 'LicenseName=fluent@flexlm' <<<"$out" >/dev/null || fail "no remote license: $out"
	grep -E 'Total=5 .*Remote=yes' <<<"$out" >/dev/null || fail "remote license not 50 % of 10: $out"
	grep -E 'Total=4 Used=0 Free=4 Reserved=1 ' <<<"$out" >/dev/null || fail "matlab: $out"
	ok "licenses: local matlab (1 reserved), comsol, remote fluent@flexlm"
	out=$(timeout 20 scontrol show reservation sm_resv)
	grep -F 'Nodes=ghost2 ' <<<"$out" >/dev/null || fail "reservation: $out"
	grep -F 'State=ACTIVE' <<<"$out" >/dev/null || fail "reservation: $out"
	ok "reservation sm_resv active on ghost2"
	timeout 20 scontrol show node vm | grep -F 'Gres=gpu:h100:1,gpu:a100:1' >/dev/null ||
		fail "vm GRES: $(timeout 20 scontrol show node vm | grep -i gres)"
	ok "vm has typed GPUs"

	jid=$(timeout 20 sbatch --parsable --uid=nobody -A theory -q high --gres=gpu:h100:1 \
		-o /dev/null --chdir=/tmp --wrap 'sleep 60') || fail "sbatch as nobody failed"
	jid=${jid%%;*}
	end=$((SECONDS + 30))
	until [[ $(timeout 20 squeue -h -j "$jid" -o '%T %u %a %q') == 'RUNNING nobody theory high' ]]; do
		((SECONDS < end)) || fail "job $jid: $(timeout 20 squeue -h -j "$jid" -o '%T %u %a %q %r')"
		sleep 0.5
	done
	ok "job $jid runs as nobody in theory under QoS high"
	if timeout 20 sbatch --parsable --uid=daemon -A physics -o /dev/null --wrap true >/dev/null 2>&1; then
		fail "a job of daemon in physics (no association) was accepted"
	fi
	ok "a job without an association is refused"

	t0=$(now)
	"$tc" stop-dbd "$dir" 2>/dev/null || fail "stop-dbd"
	timeout 20 squeue -h -j "$jid" -o %T | grep -Fx RUNNING >/dev/null || fail "slurmctld without slurmdbd"
	"$tc" start-dbd "$dir" 2>/dev/null || fail "start-dbd"
	timeout 20 sacctmgr -n -P show qos format=Name | grep -Fx high >/dev/null || fail "sacctmgr after start-dbd"
	ok "stop-dbd/start-dbd took $(elapsed "$t0") s; slurmctld answered meanwhile"

	t0=$(now)
	"$tc" stop "$dir" 2>/dev/null || fail "stop failed"
	ok "stop took $(elapsed "$t0") s"
	out=$(dir_procs "$dir")
	[[ -z $out ]] || fail "left behind after stop: $(echo "$out" | paste -sd, -)"
	ok "no process of $dir left (mariadbd and slurmdbd included)"

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
	run_case_accounting "$v"
done
echo "PASS: ${versions[*]}"
