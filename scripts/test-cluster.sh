#!/usr/bin/env bash
# Loopback Slurm test clusters: one real node (vm), two ghost nodes that never
# register, two partitions, all on 127.0.0.1 and on ports of their own, so
# clusters of different releases can run side by side.
#
#   test-cluster.sh start VERSION DIR [--plugin-dir PATH] [--job-submit NAME]
#                   [--gpus [TYPE:]N[,TYPE:N]...] [--port-base P]
#                   [--conf-extra LINE]... [--metrics-conf FILE] [--accounting]
#                   [--addr ADDR] [--systemd] [--topology-conf FILE]
#   test-cluster.sh start-accounting VERSION DIR --port-base P
#   test-cluster.sh stop DIR
#   test-cluster.sh restart-ctld DIR
#   test-cluster.sh stop-dbd DIR | start-dbd DIR
#   test-cluster.sh status DIR
#   test-cluster.sh logs DIR
#   test-cluster.sh munge
#
# VERSION: 22.05.8 (Debian's packages), 24.11.5, 25.11.7 or 26.05.3 (built
# and cached by scripts/slurm-build.sh). With SM_TEST_SLURM_PREFIX=DIR set, the Slurm
# already installed under DIR is used instead (any release from 23.02 on,
# e.g. one an operator built by hand; its slurmctld -V must report VERSION);
# nothing is built then. start returns once node vm is idle and prints
# DIR/env.sh; `source DIR/env.sh` points sinfo, squeue, scontrol, sbatch,
# sdiag, ... at the cluster. stop cancels all jobs, then stops the daemons
# (exit 0 if nothing ran); munged is shared and stays up. restart-ctld
# restarts slurmctld with its state and waits until it answers and vm has
# re-registered. status exits 0 only when all of the cluster's daemons are
# alive. munge only makes sure munged runs (for benchmarks that start
# slurmctld alone).
#
# --addr: the address slurmctld and vm are reached at (default 127.0.0.1);
# the HA test (tests/integration/test_ha.py) runs the cluster in a network
# namespace of its own where the backup controller must reach both.
#
# --systemd starts slurmctld as `slurmctld --systemd` (as SchedMD's and
# Debian's units do; 23.11+) instead of `-D`: NOTIFY_SOCKET must be in the
# environment (the caller serves it; tests/integration/
# test_systemd_reconfig.py). A reconfigure then forks a new slurmctld, so
# run/slurmctld.pid holds the first PID only: the caller keeps it up to
# date (MAINPID). restart-ctld starts slurmctld with -D again.
#
# --gpus N gives vm N fake GPUs (Gres=gpu:N); --gpus h100:2,a100:1 gives it
# typed ones (Gres=gpu:h100:2,gpu:a100:1), one fake device file each.
#
# --accounting runs a MariaDB server (Debian's mariadbd, its datadir in
# DIR/db, listening on 127.0.0.1 only) and a real slurmdbd for the cluster,
# and configures slurmctld with AccountingStorageType=accounting_storage/
# slurmdbd, AccountingStorageEnforce=associations,limits,qos,
# PriorityType=priority/multifactor with PriorityCalcPeriod=1 (minute, the
# shortest Slurm accepts), local licenses (Licenses=matlab:4,comsol:2) and
# AccountingStorageTRES with gres/gpu and the licenses. Before slurmctld
# starts, sacctmgr creates:
#   QoS      normal (Slurm's), high (Priority=100 GrpTRES=cpu=2 GrpJobs=4
#            MaxJobsPerUser=2), low (Priority=1)
#   accounts root (Slurm's) -> physics (Fairshare=40) -> theory (Fairshare=10)
#                           -> chemistry (Fairshare=60)
#   users    root in root (Slurm's); nobody in physics and theory
#            (QoS normal,high, default physics); daemon in chemistry (QoS
#            normal,low)
#   licenses fluent@flexlm, a remote license: Count=10, 50 % to the cluster
# and, once vm is idle, one active reservation: sm_resv on ghost2 (a day,
# Users=root, Licenses=matlab:1). stop-dbd/start-dbd stop and start that
# slurmdbd alone (slurmctld then queues its messages).
#
# DIR layout: etc/ (slurm.conf, cgroup.conf, gres.conf, slurmdbd.conf, my.cnf,
# soperator_metrics.conf), state/, spool/vm/, log/, dev/ (fake GPUs), db/
# (MariaDB's datadir), run/ (slurmctld.pid, slurmd.pid, slurmdbd.pid,
# mariadbd.pid: the PIDs this script started; mysqld.sock), env.sh.
#
# Ports: slurmctld P (--port-base), slurmd P+1, slurmdbd P+2, MariaDB P+3,
# the ghost nodes P+84.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
prog=test-cluster.sh
node=vm

usage() {
	sed -n '6,16s/^# \{0,1\}//p' "${BASH_SOURCE[0]}" >&2
	exit 2
}

die() {
	echo "$prog: $*" >&2
	exit 1
}

say() { echo "$prog: $*" >&2; }

# ---------------------------------------------------------------- processes

# A PID counts only while it is a live (not zombie) process named $2 that
# belongs to the cluster whose slurm.conf is $3: a stale PID file must never
# make us signal a recycled PID. slurmctld and slurmd name slurm.conf on
# their command line (-f); slurmdbd takes no such option and finds
# slurmdbd.conf next to $SLURM_CONF in its environment; mariadbd names the
# cluster's my.cnf.
is_ours() {
	local pid=$1 name=$2 conf=$3 stat cmd
	[[ $pid =~ ^[0-9]+$ ]] || return 1
	stat=$(cat "/proc/$pid/stat" 2>/dev/null) || return 1
	# Field 3 (after "(comm)") is the state; Z/X are dead but unreaped.
	stat=${stat##*) }
	[[ ${stat%% *} != [ZX] ]] || return 1
	[[ "$(cat "/proc/$pid/comm" 2>/dev/null)" == "$name" ]] || return 1
	case $name in
	slurmdbd)
		tr '\0' '\n' 2>/dev/null <"/proc/$pid/environ" | grep -Fx "SLURM_CONF=$conf" >/dev/null
		;;
	*)
		cmd=$(tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline") || return 1
		if [[ $name == mariadbd ]]; then conf="--defaults-file=${conf%/*}/my.cnf"; fi
		[[ " $cmd " == *" $conf "* ]]
		;;
	esac
}

read_pid() { cat "$1" 2>/dev/null || true; }

# TERM, wait up to $4 seconds, then KILL. Returns once the PID is gone.
stop_pid() {
	local pid=$1 name=$2 conf=$3 secs=$4 end
	is_ours "$pid" "$name" "$conf" || return 0
	kill -TERM "$pid" 2>/dev/null || true
	end=$((SECONDS + secs))
	while is_ours "$pid" "$name" "$conf" && ((SECONDS < end)); do sleep 0.2; done
	if is_ours "$pid" "$name" "$conf"; then
		say "$name ($pid) ignored SIGTERM for ${secs}s: SIGKILL"
		kill -KILL "$pid" 2>/dev/null || true
		end=$((SECONDS + 5))
		while is_ours "$pid" "$name" "$conf" && ((SECONDS < end)); do sleep 0.2; done
	fi
}

# slurmstepd renames itself ("slurmstepd: [12.batch]"), so its command line
# rarely names the cluster; it inherits slurmd's environment though, which
# carries SLURM_CONF=DIR/etc/slurm.conf. Both are checked.
stepd_pids() {
	local dir=$1 conf=$1/etc/slurm.conf p
	for p in /proc/[0-9]*; do
		[[ "$(cat "$p/comm" 2>/dev/null)" == slurmstepd ]] || continue
		if tr '\0' '\n' 2>/dev/null <"$p/cmdline" | grep -F "$dir/spool" >/dev/null ||
			tr '\0' '\n' 2>/dev/null <"$p/environ" | grep -Fx "SLURM_CONF=$conf" >/dev/null; then
			echo "${p#/proc/}"
		fi
	done
}

# All descendants of the given PIDs (job processes under a slurmstepd).
descendants() {
	local p c
	for p in "$@"; do
		for c in $(pgrep -P "$p" 2>/dev/null || true); do
			echo "$c"
			descendants "$c"
		done
	done
}

# slurmstepd outlives slurmd, and its job processes outlive slurmstepd.
kill_stepds() {
	local dir=$1 pids=() end
	mapfile -t pids < <(stepd_pids "$dir")
	((${#pids[@]})) || return 0
	mapfile -t -O "${#pids[@]}" pids < <(descendants "${pids[@]}")
	say "killing leftover slurmstepd/job processes: ${pids[*]}"
	kill -TERM "${pids[@]}" 2>/dev/null || true
	end=$((SECONDS + 5))
	while [[ -n "$(stepd_pids "$dir")" ]] && ((SECONDS < end)); do sleep 0.2; done
	mapfile -t -O "${#pids[@]}" pids < <(stepd_pids "$dir")
	kill -KILL "${pids[@]}" 2>/dev/null || true
}

# ------------------------------------------------------------------ releases

# Sets prefix, sbin, bin, default_plugin_dir, legacy (1 for 22.05: needs the
# *_none plugin lines and task/none, has no CgroupPlugin=disabled).
release() {
	local version=$1 arch
	case $version in
	22.05.8)
		prefix=/usr
		legacy=1
		# Debian's multiarch plugin dir; uname -m matches the triplet on
		# amd64 and arm64.
		arch=$(uname -m)
		default_plugin_dir=/usr/lib/$arch-linux-gnu/slurm-wlm
		mysql_plugin=$default_plugin_dir/accounting_storage_mysql.so
		;;
	*)
		if [[ -n ${SM_TEST_SLURM_PREFIX:-} ]]; then
			prefix=$(realpath -e -- "$SM_TEST_SLURM_PREFIX") ||
				die "SM_TEST_SLURM_PREFIX: no such directory: $SM_TEST_SLURM_PREFIX"
			[[ "$("$prefix/sbin/slurmctld" -V 2>&1)" == "slurm $version" ]] ||
				die "$prefix/sbin/slurmctld -V does not report $version"
		else
			prefix=$(SM_CACHE=${SM_CACHE:-/var/cache/soperator-metrics} "$here/slurm-build.sh" "$version" | tail -n 1) ||
				die "scripts/slurm-build.sh $version failed"
		fi
		legacy=0
		default_plugin_dir=$prefix/lib/slurm
		mysql_plugin=$default_plugin_dir/accounting_storage_mysql.so
		;;
	esac
	sbin=$prefix/sbin
	bin=$prefix/bin
}

# Reads DIR/env.sh back (written by start) in this shell.
load_cluster() {
	dir=$1
	[[ -f $dir/env.sh ]] || return 1
	# shellcheck source=/dev/null
	source "$dir/env.sh"
	conf=$SLURM_CONF
	prefix=$SM_SLURM_PREFIX
	sbin=$prefix/sbin
	bin=$prefix/bin
	accounting=${SM_ACCOUNTING:-0}
}

abs_dir() {
	[[ $1 == /* ]] || die "DIR must be an absolute path: $1"
	# Normalise (no trailing slash, no //) so process matching by path works.
	realpath -m -- "$1"
}

# ---------------------------------------------------------------------- munge

ensure_munged() {
	local sock=/run/munge/munge.socket.2 end
	if pgrep -x munged >/dev/null && [[ -S $sock ]]; then return 0; fi
	if [[ ! -s /etc/munge/munge.key ]]; then
		say "creating /etc/munge/munge.key"
		install -d -o munge -g munge -m 0700 /etc/munge
		if command -v mungekey >/dev/null; then
			mungekey --create --keyfile=/etc/munge/munge.key
		else
			create-munge-key -f
		fi
		chown munge:munge /etc/munge/munge.key
		chmod 0400 /etc/munge/munge.key
	fi
	install -d -o munge -g munge -m 0755 /run/munge
	# A concurrent start may win the race; munged then refuses and exits,
	# which is fine as long as the socket appears.
	runuser -u munge -- /usr/sbin/munged >/dev/null 2>&1 || true
	end=$((SECONDS + 10))
	until [[ -S $sock ]] && pgrep -x munged >/dev/null; do
		((SECONDS < end)) || die "munged did not come up (see /var/log/munge/munged.log)"
		sleep 0.2
	done
}

# ---------------------------------------------------------------------- start

# Asks the kernel (ss) rather than connecting: a bare connect makes
# slurmctld log "Zero Bytes were transmitted or received".
port_open() {
	if command -v ss >/dev/null; then
		[[ -n "$(ss -Hltn "sport = :$1" 2>/dev/null)" ]]
	else
		(exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
	fi
}

write_conf() {
	local h ghost_port=$((port + 84)) i
	h=$(hostname -s)
	{
		echo "# Written by scripts/test-cluster.sh start $version $dir"
		echo "ClusterName=t${version//./}"
		echo "SlurmctldHost=$h($addr)"
		echo "SlurmctldPort=$port"
		echo "SlurmdPort=$((port + 1))"
		echo "SlurmUser=root"
		echo "SlurmdUser=root"
		echo "AuthType=auth/munge"
		echo "CredType=cred/munge"
		echo "StateSaveLocation=$dir/state"
		echo "SlurmdSpoolDir=$dir/spool/%n"
		# Slurm's own PID files; the defaults in /run would clash between
		# clusters. The PIDs this script acts on are run/slurmctld.pid and
		# run/slurmd.pid.
		echo "SlurmctldPidFile=$dir/run/slurm/slurmctld.pid"
		echo "SlurmdPidFile=$dir/run/slurm/slurmd-%n.pid"
		echo "SlurmctldLogFile=$dir/log/slurmctld.log"
		echo "SlurmdLogFile=$dir/log/slurmd.log"
		echo "SlurmctldDebug=info"
		echo "SlurmdDebug=info"
		echo "ProctrackType=proctrack/linuxproc"
		# 24.11 has no task/none, and an empty TaskPlugin= is a parse error.
		if ((legacy)); then echo "TaskPlugin=task/none"; fi
		echo "SelectType=select/cons_tres"
		echo "SelectTypeParameters=CR_Core_Memory"
		echo "SchedulerType=sched/backfill"
		echo "MpiDefault=none"
		echo "ReturnToService=2"
		echo "SlurmdTimeout=60"
		echo "MinJobAge=600"
		# The default /bin/mail does not exist here.
		echo "MailProg=/bin/true"
		if ((accounting)); then
			accounting_slurm_conf
		elif ((legacy)); then
			# 24.11's build has no accounting_storage/none; its built-in
			# default is the same "none".
			echo "AccountingStorageType=accounting_storage/none"
		fi
		# 24.11's build has neither plugin; its built-in defaults are the
		# same "none".
		if ((legacy)); then
			echo "JobAcctGatherType=jobacct_gather/none"
			echo "JobCompType=jobcomp/none"
		fi
		if [[ -n $plugin_dir ]]; then echo "PluginDir=$default_plugin_dir:$plugin_dir"; fi
		if [[ -n $job_submit ]]; then echo "JobSubmitPlugins=$job_submit"; fi
		if ((gpus)); then echo "GresTypes=gpu"; fi
		echo "NodeName=$node NodeHostname=$h NodeAddr=$addr CPUs=2 RealMemory=2000${gpus_gres} State=UNKNOWN"
		# Ghosts: a port nobody listens on, so they never answer.
		echo "NodeName=ghost[1-2] NodeAddr=127.0.0.1 Port=$ghost_port CPUs=2 RealMemory=2000 State=UNKNOWN"
		echo "PartitionName=debug Nodes=$node,ghost1 Default=YES MaxTime=INFINITE State=UP"
		echo "PartitionName=batch Nodes=ALL MaxTime=60 State=UP"
		# Verbatim, last: for a repeated key the later line wins.
		if ((${#conf_extra[@]})); then printf '%s\n' "${conf_extra[@]}"; fi
	} >"$dir/etc/slurm.conf"

	# Without it 24.11's slurmd autodetects cgroup/v1 (not built) and dies;
	# 22.05 knows no "disabled" and needs no cgroup plugin with task/none.
	if ((!legacy)); then echo "CgroupPlugin=disabled" >"$dir/etc/cgroup.conf"; fi

	if ((gpus)); then
		# Fake GPUs: clones of /dev/null. Without File= the node goes INVAL.
		mkdir -p "$dir/dev"
		for ((i = 0; i < gpus; i++)); do
			mknod "$dir/dev/nvidia$i" c 1 3
		done
		# One gres.conf line per type, each with its own device files.
		local spec t n first=0 files
		: >"$dir/etc/gres.conf"
		for spec in "${gpu_specs[@]}"; do
			t=${spec%:*} n=${spec##*:}
			if ((n == 1)); then
				files=$dir/dev/nvidia$first
			else
				files="$dir/dev/nvidia[$first-$((first + n - 1))]"
			fi
			echo "NodeName=$node Name=gpu${t:+ Type=$t} File=$files" >>"$dir/etc/gres.conf"
			first=$((first + n))
		done
	fi

	if ((accounting)); then write_accounting_conf; fi

	if [[ -n $metrics_conf ]]; then
		cp -- "$metrics_conf" "$dir/etc/soperator_metrics.conf"
	fi
	# --topology-conf: topology.conf beside slurm.conf, where slurmctld reads
	# it (with a TopologyPlugin line in --conf-extra).
	if [[ -n $topology_conf ]]; then
		cp -- "$topology_conf" "$dir/etc/topology.conf"
	fi
	write_env
}

write_env() {
	{
		echo "# Source this to use the Slurm $version clients against $dir."
		printf 'export SLURM_CONF=%q\n' "$dir/etc/slurm.conf"
		# shellcheck disable=SC2016 # $PATH expands when env.sh is sourced
		printf 'export PATH=%q:"$PATH"\n' "$bin"
		printf 'export SM_CLUSTER_DIR=%q\n' "$dir"
		printf 'export SM_SLURM_VERSION=%q\n' "$version"
		printf 'export SM_SLURMCTLD_PORT=%q\n' "$port"
		printf 'export SM_SLURM_PREFIX=%q\n' "$prefix"
		printf 'export SM_ACCOUNTING=%q\n' "$accounting"
		if ((accounting)); then
			printf 'export SM_SLURMDBD_PORT=%q\n' "$((port + 2))"
			printf 'export SM_MARIADB_SOCKET=%q\n' "$dir/run/mysqld.sock"
		fi
	} >"$dir/env.sh"
}

# slurm.conf's accounting lines: slurmdbd at port + 2, multifactor priority,
# the local licenses.
accounting_slurm_conf() {
	echo "AccountingStorageType=accounting_storage/slurmdbd"
	echo "AccountingStorageHost=127.0.0.1"
	echo "AccountingStoragePort=$((port + 2))"
	echo "AccountingStorageEnforce=associations,limits,qos"
	echo "AccountingStorageTRES=gres/gpu,license/matlab,license/comsol,license/fluent@flexlm"
	echo "PriorityType=priority/multifactor"
	echo "PriorityCalcPeriod=1"
	echo "PriorityWeightFairshare=10000"
	echo "PriorityWeightQOS=1000"
	echo "PriorityWeightAge=100"
	echo "Licenses=matlab:4,comsol:2"
}

# slurmdbd.conf (slurmdbd reads it next to $SLURM_CONF; it must be 0600)
# and the MariaDB server's my.cnf, which is all it reads (--defaults-file):
# the system's /etc/mysql is never consulted, so a packaged server's socket,
# port and datadir stay untouched.
write_accounting_conf() {
	local h
	h=$(hostname -s)
	{
		echo "# Written by scripts/test-cluster.sh start $version $dir"
		echo "AuthType=auth/munge"
		echo "DbdHost=$h"
		echo "DbdAddr=127.0.0.1"
		echo "DbdPort=$((port + 2))"
		echo "SlurmUser=root"
		echo "StorageType=accounting_storage/mysql"
		echo "StorageHost=127.0.0.1"
		echo "StoragePort=$((port + 3))"
		echo "StorageUser=$db_user"
		echo "StoragePass=$db_pass"
		echo "LogFile=$dir/log/slurmdbd.log"
		echo "PidFile=$dir/run/slurm/slurmdbd.pid"
		echo "DebugLevel=info"
	} >"$dir/etc/slurmdbd.conf"
	chmod 0600 "$dir/etc/slurmdbd.conf"
	{
		echo "# Written by scripts/test-cluster.sh start $version $dir"
		echo "[mysqld]"
		echo "datadir=$dir/db"
		echo "socket=$dir/run/mysqld.sock"
		# MariaDB's own; run/mariadbd.pid is the PID this script started.
		echo "pid-file=$dir/run/mysql/mariadbd.pid"
		echo "port=$((port + 3))"
		echo "bind-address=127.0.0.1"
		# The tests run as root; mariadbd refuses root unless told so.
		echo "user=root"
		echo "log-error=$dir/log/mariadb.err"
		echo "skip-name-resolve"
		# Small: a test database holds a few hundred rows. slurmdbd logs that
		# the buffer pool is below its recommendation; that is harmless.
		echo "innodb_buffer_pool_size=32M"
		echo "innodb_log_file_size=32M"
		echo "innodb_lock_wait_timeout=900"
	} >"$dir/etc/my.cnf"
}

# Daemons run in their own session with no tie to the caller's terminal or
# pipes: a caller capturing our stdout must not wait for them, and a ^C in
# the caller's terminal must not kill them behind stop's back. setsid execs
# in place (we are not a group leader), so $! is the daemon itself.
# launch NAME ARGS... runs $sbin/NAME ARGS... -f slurm.conf; launch_exe
# NAME EXE ARGS... runs EXE ARGS... as is (slurmdbd, mariadbd).
launch() {
	local name=$1 preload=()
	shift
	# SM_SLURMCTLD_PRELOAD: a library for slurmctld alone (the sanitizer
	# runtime of a plugin built with ASan; tests/integration/test_shutdown.py).
	if [[ $name == slurmctld && -n ${SM_SLURMCTLD_PRELOAD:-} ]]; then
		preload=(env "LD_PRELOAD=$SM_SLURMCTLD_PRELOAD")
	fi
	# SM_SLURMD_PRELOAD: a library for slurmd alone (the pm_counters file
	# redirect of tests/integration/test_node_power.py).
	if [[ $name == slurmd && -n ${SM_SLURMD_PRELOAD:-} ]]; then
		preload=(env "LD_PRELOAD=$SM_SLURMD_PRELOAD")
	fi
	launch_exe "$name" "${preload[@]}" "$sbin/$name" "$@" -f "$conf"
}

launch_exe() {
	local name=$1
	shift
	SLURM_CONF=$conf setsid "$@" </dev/null >>"$dir/log/$name.out" 2>&1 &
	local pid=$! end=$((SECONDS + 5))
	echo "$pid" >"$dir/run/$name.pid"
	# $! is the child before setsid has exec'd the daemon: until then its
	# name is not the daemon's and is_ours() would call it dead. Within the
	# exec itself the kernel sets the new name before the new command line,
	# so wait for is_ours() as a whole, not for the name alone.
	while ((SECONDS < end)) && [[ -e /proc/$pid ]] && ! is_ours "$pid" "$name" "$conf"; do
		sleep 0.05
	done
}

dump_logs() {
	local f
	for f in "$dir"/log/slurmctld.log "$dir"/log/slurmctld.out "$dir"/log/slurmd.log "$dir"/log/slurmd.out \
		"$dir"/log/slurmdbd.log "$dir"/log/slurmdbd.out "$dir"/log/mariadb.err "$dir"/log/mariadbd.out; do
		[[ -s $f ]] || continue
		echo "--- last lines of $f ---" >&2
		tail -n 25 "$f" >&2
	done
}

# Waits until slurmctld answers "scontrol ping" (and is still alive).
wait_ctld() {
	local pid=$1 end=$((SECONDS + $2))
	while ((SECONDS < end)); do
		is_ours "$pid" slurmctld "$conf" || {
			say "slurmctld ($pid) exited"
			return 1
		}
		# The port check is instant; scontrol would retry for ~9 s.
		if port_open "$port" &&
			SLURM_CONF=$conf timeout 10 "$bin/scontrol" ping 2>/dev/null | grep -F 'is UP' >/dev/null; then
			return 0
		fi
		sleep 0.3
	done
	say "slurmctld did not answer within $2 s"
	return 1
}

# ------------------------------------------------------------------ accounting

# The MariaDB server listens on 127.0.0.1 only and lives as long as the
# throwaway cluster, so a fixed password is fine.
db_user=slurm
db_pass=sm-test

# As the unix user root through the server's socket (unix_socket auth).
mariadb_client() {
	timeout 20 mariadb --no-defaults --protocol=socket --socket="$dir/run/mysqld.sock" -u root "$@"
}

start_db() {
	local pid end
	mkdir -p "$dir/db" "$dir/run/mysql"
	# A fresh datadir: system tables only, no test database.
	mariadb-install-db --defaults-file="$dir/etc/my.cnf" --skip-test-db \
		>>"$dir/log/mariadb-install.out" 2>&1 ||
		die "mariadb-install-db failed (see $dir/log/mariadb-install.out)"
	launch_exe mariadbd /usr/sbin/mariadbd --defaults-file="$dir/etc/my.cnf"
	pid=$(read_pid "$dir/run/mariadbd.pid")
	end=$((SECONDS + 30))
	until mariadb_client -e 'SELECT 1' >/dev/null 2>&1; do
		is_ours "$pid" mariadbd "$conf" || die "mariadbd ($pid) exited"
		((SECONDS < end)) || die "mariadbd did not answer within 30 s"
		sleep 0.2
	done
	# slurmdbd has no socket option: it connects over TCP, as its own user.
	mariadb_client -e "CREATE USER '$db_user'@'127.0.0.1' IDENTIFIED BY '$db_pass';
		GRANT ALL ON slurm_acct_db.* TO '$db_user'@'127.0.0.1';" >>"$dir/log/mariadbd.out" 2>&1 ||
		die "cannot create slurmdbd's database user"
}

# Returns once slurmdbd listens; its tables exist by then (it creates them
# before it opens its port).
start_dbd() {
	local pid end
	launch_exe slurmdbd "$sbin/slurmdbd" -D
	pid=$(read_pid "$dir/run/slurmdbd.pid")
	end=$((SECONDS + 60))
	until port_open "$((port + 2))"; do
		if ! is_ours "$pid" slurmdbd "$conf"; then
			say "slurmdbd ($pid) exited"
			return 1
		fi
		if ((SECONDS >= end)); then
			say "slurmdbd did not listen within 60 s"
			return 1
		fi
		sleep 0.2
	done
}

# The association tree, QoS and remote license the header describes; before
# slurmctld starts, so it loads them from slurmdbd at once. One sacctmgr
# reads them all from stdin (a process per command costs ~0.5 s each); it
# goes on after a failed command but exits non-zero.
acct_setup() {
	local cluster=t${version//./} last=''
	# LastConsumed (what the license server reports in use) is 23.02+.
	if ((!legacy)); then last=' LastConsumed=3'; fi
	local cmds="add cluster $cluster
add qos high Priority=100 GrpTRES=cpu=2 GrpJobs=4 MaxJobsPerUser=2
add qos low Priority=1
add account physics Fairshare=40 Description=physics Organization=sm
add account theory Parent=physics Fairshare=10 Description=theory Organization=sm
add account chemistry Fairshare=60 Description=chemistry Organization=sm
add user nobody Account=physics,theory DefaultAccount=physics QOS=normal,high
add user daemon Account=chemistry QOS=normal,low
add resource fluent Server=flexlm Type=License Count=10 Cluster=$cluster PercentAllowed=50$last"
	printf '%s\n' "$cmds" >>"$dir/log/sacctmgr.out"
	SLURM_CONF=$conf timeout 120 "$bin/sacctmgr" -i <<<"$cmds" >>"$dir/log/sacctmgr.out" 2>&1 ||
		die "sacctmgr failed (see $dir/log/sacctmgr.out)"
}

# After vm is idle: the reservation is slurmctld state, not slurmdbd's.
resv_setup() {
	echo "+ scontrol create reservation ReservationName=sm_resv ..." >>"$dir/log/sacctmgr.out"
	SLURM_CONF=$conf timeout 30 "$bin/scontrol" create reservation ReservationName=sm_resv \
		StartTime=now Duration=1-0 Nodes=ghost2 Users=root Licenses=matlab:1 \
		>>"$dir/log/sacctmgr.out" 2>&1 ||
		die "scontrol create reservation failed (see $dir/log/sacctmgr.out)"
}

start_cleanup() {
	((start_ok)) && return
	dump_logs
	stop_daemons 5
}

# What start --accounting and start-accounting run, for the release set by
# release(): slurmdbd, sacctmgr, its MySQL plugin and Debian's MariaDB.
require_accounting_tools() {
	local b
	for b in "$sbin/slurmdbd" "$bin/sacctmgr" "$mysql_plugin" /usr/sbin/mariadbd \
		/usr/bin/mariadb-install-db /usr/bin/mariadb; do
		[[ -e $b ]] || die "missing $b for accounting (run scripts/install-deps.sh)"
	done
}

# MariaDB and slurmdbd alone, for a slurmctld the caller configures and
# starts itself (bench/controller_bench.py --accounting): its slurm.conf is
# DIR/etc/slurm.conf, which should `Include DIR/etc/accounting.conf` (the
# accounting lines of start --accounting; a later line overrides one). No
# cluster, account or user is created; `stop DIR` stops both.
cmd_start_accounting() {
	if ! (($# == 4)) || [[ $3 != --port-base || ! $4 =~ ^[0-9]+$ ]]; then usage; fi
	version=$1 port=$4 accounting=1
	dir=$(abs_dir "$2")
	conf=$dir/etc/slurm.conf
	release "$version"
	local b
	require_accounting_tools
	for b in slurmdbd mariadbd; do
		if is_ours "$(read_pid "$dir/run/$b.pid")" "$b" "$conf"; then
			die "$dir holds a running $b; run: $prog stop $dir"
		fi
	done
	for b in "$((port + 2))" "$((port + 3))"; do
		port_open "$b" && die "port $b on 127.0.0.1 is in use; pick another --port-base"
	done
	rm -rf "${dir:?}/db"
	mkdir -p "$dir/etc" "$dir/log" "$dir/run/slurm"
	write_accounting_conf
	accounting_slurm_conf >"$dir/etc/accounting.conf"
	write_env
	ensure_munged
	local t0=$SECONDS
	start_ok=0
	trap start_cleanup EXIT
	trap 'exit 130' INT TERM
	start_db
	start_dbd || exit 1
	start_ok=1
	trap - EXIT INT TERM
	say "MariaDB and slurmdbd up in $((SECONDS - t0)) s: slurmdbd $(read_pid "$dir/run/slurmdbd.pid"), port $((port + 2))"
	echo "$dir/env.sh"
}

cmd_start() {
	(($# >= 2)) || usage
	version=$1
	dir=$(abs_dir "$2")
	shift 2
	plugin_dir='' job_submit='' gpus_arg=0 port='' metrics_conf='' conf_extra=() accounting=0
	topology_conf=
	addr=127.0.0.1 ctld_mode=-D
	while (($#)); do
		if [[ $1 == --accounting ]]; then
			accounting=1
			shift
			continue
		fi
		if [[ $1 == --systemd ]]; then
			[[ -n ${NOTIFY_SOCKET:-} ]] || die "--systemd needs NOTIFY_SOCKET in the environment"
			ctld_mode=--systemd
			shift
			continue
		fi
		(($# >= 2)) || die "$1 needs a value"
		case $1 in
		--plugin-dir) plugin_dir=$(realpath -e -- "$2") || die "no such plugin dir: $2" ;;
		--job-submit) job_submit=$2 ;;
		--gpus) gpus_arg=$2 ;;
		--port-base) port=$2 ;;
		--conf-extra) conf_extra+=("$2") ;;
		--metrics-conf) metrics_conf=$2 ;;
		--topology-conf) topology_conf=$2 ;;
		--addr) addr=$2 ;;
		*) die "unknown option $1" ;;
		esac
		shift 2
	done
	# --gpus N or TYPE:N[,TYPE:N]...: gpu_specs holds "TYPE:N" (TYPE may be
	# empty), gpus the total.
	local spec gres=()
	gpu_specs=() gpus=0 gpus_gres=''
	if [[ $gpus_arg =~ ^[0-9]+$ ]]; then
		if ((10#$gpus_arg)); then gpu_specs=(":$((10#$gpus_arg))"); fi
	else
		IFS=, read -ra gpu_specs <<<"$gpus_arg"
		for spec in "${gpu_specs[@]}"; do
			[[ $spec =~ ^[A-Za-z][A-Za-z0-9_-]*:[1-9][0-9]*$ ]] ||
				die "--gpus wants N or TYPE:N[,TYPE:N]...: $gpus_arg"
		done
	fi
	for spec in "${gpu_specs[@]}"; do
		gpus=$((gpus + ${spec##*:}))
		gres+=("gpu:${spec#:}")
	done
	if ((gpus)); then gpus_gres=" Gres=$(IFS=,; echo "${gres[*]}")"; fi
	[[ -z $metrics_conf || -f $metrics_conf ]] || die "no such file: $metrics_conf"
	[[ -z $topology_conf || -f $topology_conf ]] || die "no such file: $topology_conf"

	case $version in
	22.05.8) : "${port:=7817}" ;;
	24.11.5) : "${port:=7917}" ;;
	25.11.7) : "${port:=8017}" ;;
	26.05.3) : "${port:=8117}" ;;
	*)
		[[ -n ${SM_TEST_SLURM_PREFIX:-} ]] ||
			die "unsupported VERSION $version (22.05.8, 24.11.5, 25.11.7 or 26.05.3, or set SM_TEST_SLURM_PREFIX)"
		: "${port:=8217}"
		;;
	esac
	if ! [[ $port =~ ^[0-9]+$ ]] || ((port < 1 || port + 84 > 65535)); then
		die "bad --port-base $port"
	fi
	release "$version"
	local b
	for b in "$sbin/slurmctld" "$sbin/slurmd" "$bin/sinfo" "$bin/scontrol"; do
		[[ -x $b ]] || die "missing $b (run scripts/slurm-build.sh $version)"
	done
	if ((accounting)); then require_accounting_tools; fi

	conf=$dir/etc/slurm.conf
	if [[ -e $dir ]]; then
		[[ -d $dir ]] || die "$dir exists and is not a directory"
		for b in slurmctld slurmd slurmdbd mariadbd; do
			if is_ours "$(read_pid "$dir/run/$b.pid")" "$b" "$conf"; then
				die "$dir holds a running cluster; run: $prog stop $dir"
			fi
		done
		# Reuse only an empty dir or an old cluster's: we delete its subdirs.
		if [[ -n "$(ls -A "$dir")" && ! -f $dir/env.sh && ! -f $conf ]]; then
			die "$dir is not empty and holds no test cluster; refusing to reuse it"
		fi
		kill_stepds "$dir"
		rm -rf "${dir:?}/etc" "${dir:?}/state" "${dir:?}/spool" "${dir:?}/log" \
			"${dir:?}/run" "${dir:?}/dev" "${dir:?}/db" "${dir:?}/env.sh"
	fi
	# A port already taken means another cluster (or anything else) would
	# make slurmctld fail after a confusing wait; say so up front.
	local ports=("$port" "$((port + 1))")
	if ((accounting)); then ports+=("$((port + 2))" "$((port + 3))"); fi
	for b in "${ports[@]}"; do
		port_open "$b" && die "port $b on 127.0.0.1 is in use; pick another --port-base"
	done

	# spool/vm must exist beforehand: slurmd puts its domain socket there.
	mkdir -p "$dir/etc" "$dir/state" "$dir/spool/$node" "$dir/log" "$dir/run/slurm"
	# A job of another user (sbatch --uid=nobody) runs its script from
	# spool/vm/jobN: in a mktemp -d DIR (0700, or 0701) it fails with
	# "execve(): ... Permission denied". Its parent is the caller's to open.
	chmod 0755 "$dir"
	write_conf
	ensure_munged

	local t0=$SECONDS ctld_pid slurmd_pid st=''
	# Stop whatever we started if anything below fails or we are interrupted.
	start_ok=0
	trap start_cleanup EXIT
	trap 'exit 130' INT TERM

	if ((accounting)); then
		start_db
		start_dbd || exit 1
		acct_setup
		say "MariaDB and slurmdbd up, accounts created in $((SECONDS - t0)) s"
	fi

	# -i (tolerate unreadable state files) as in the known-good manual
	# driver; the state dir is fresh, so there is nothing to recover anyway.
	launch slurmctld "$ctld_mode" -i
	ctld_pid=$(read_pid "$dir/run/slurmctld.pid")
	# Start slurmd once the controller listens, so it registers at once
	# instead of retrying.
	wait_ctld "$ctld_pid" 60 || exit 1
	launch slurmd -D -N "$node"
	slurmd_pid=$(read_pid "$dir/run/slurmd.pid")

	local end=$((t0 + 60))
	while :; do
		is_ours "$ctld_pid" slurmctld "$conf" || die "slurmctld ($ctld_pid) exited"
		is_ours "$slurmd_pid" slurmd "$conf" || die "slurmd ($slurmd_pid) exited"
		st=$(SLURM_CONF=$conf timeout 10 "$bin/sinfo" -h -N -n "$node" -o %T 2>/dev/null | sort -u) || true
		[[ $st == idle ]] && break
		((SECONDS < end)) || die "node $node not idle within 60 s (state: ${st:-none})"
		sleep 0.3
	done
	if ((accounting)); then resv_setup; fi
	start_ok=1
	trap - EXIT INT TERM
	say "Slurm $version cluster up in $((SECONDS - t0)) s: slurmctld $ctld_pid, slurmd $slurmd_pid, port $port"
	echo "$dir/env.sh"
}

# ------------------------------------------------------------------- stop etc.

stop_daemons() {
	local secs=$1 d c
	d=$(read_pid "$dir/run/slurmd.pid")
	c=$(read_pid "$dir/run/slurmctld.pid")
	# TERM both at once, then wait for each: shutdowns overlap.
	if is_ours "$d" slurmd "$conf"; then kill -TERM "$d" 2>/dev/null || true; fi
	if is_ours "$c" slurmctld "$conf"; then kill -TERM "$c" 2>/dev/null || true; fi
	stop_pid "$d" slurmd "$conf" "$secs"
	stop_pid "$c" slurmctld "$conf" "$secs"
	kill_stepds "$dir"
	rm -f "$dir/run/slurmd.pid" "$dir/run/slurmctld.pid"
	# After slurmctld, which sends slurmdbd what it still holds on the way
	# out; the database last.
	stop_pid "$(read_pid "$dir/run/slurmdbd.pid")" slurmdbd "$conf" "$secs"
	stop_pid "$(read_pid "$dir/run/mariadbd.pid")" mariadbd "$conf" 30
	rm -f "$dir/run/slurmdbd.pid" "$dir/run/mariadbd.pid"
}

# True while the cluster's slurmdbd or MariaDB server runs.
accounting_running() {
	is_ours "$(read_pid "$dir/run/slurmdbd.pid")" slurmdbd "$conf" ||
		is_ours "$(read_pid "$dir/run/mariadbd.pid")" mariadbd "$conf"
}

cmd_stop() {
	(($# == 1)) || usage
	dir=$(abs_dir "$1")
	if ! load_cluster "$dir"; then
		say "no cluster in $dir: nothing to stop"
		return 0
	fi
	local c d end t0=$SECONDS
	c=$(read_pid "$dir/run/slurmctld.pid")
	d=$(read_pid "$dir/run/slurmd.pid")
	if is_ours "$c" slurmctld "$conf"; then
		# Cancel first: slurmstepd outlives slurmd, and a job killed by its
		# own slurmstepd ends cleanly instead of being orphaned.
		# Every user's jobs, not only root's: a job of another user would
		# leave its slurmstepd and processes behind.
		timeout 20 "$bin/squeue" -h -o %A 2>/dev/null | sort -u |
			xargs -r timeout 20 "$bin/scancel" >/dev/null 2>&1 || true
		if is_ours "$d" slurmd "$conf"; then
			end=$((SECONDS + 10))
			while ((SECONDS < end)); do
				[[ -z "$(timeout 20 "$bin/squeue" -h -t RUNNING,COMPLETING -o %i 2>/dev/null)" ]] && break
				sleep 0.3
			done
		fi
	fi
	if ! is_ours "$c" slurmctld "$conf" && ! is_ours "$d" slurmd "$conf" && ! accounting_running; then
		kill_stepds "$dir"
		say "nothing running in $dir"
		return 0
	fi
	stop_daemons 15
	say "stopped $dir in $((SECONDS - t0)) s"
}

cmd_restart_ctld() {
	(($# == 1)) || usage
	dir=$(abs_dir "$1")
	load_cluster "$dir" || die "no cluster in $dir"
	port=$SM_SLURMCTLD_PORT
	local c t0=$SECONDS
	c=$(read_pid "$dir/run/slurmctld.pid")
	stop_pid "$c" slurmctld "$conf" 15
	# Same flags as start minus -i. slurmctld recovers StateSaveLocation
	# either way (-c would discard it); -i only turns unreadable state into
	# silently lost jobs/nodes, and a restart test wants that to be fatal.
	launch slurmctld -D
	c=$(read_pid "$dir/run/slurmctld.pid")
	if ! wait_ctld "$c" 60; then
		dump_logs
		die "slurmctld did not come back"
	fi
	# Until slurmd re-registers, an idle node shows "unknown" (24.11) or
	# "idle*" for a few seconds; wait for it so callers see a settled
	# cluster. Skipped when slurmd is down on purpose.
	local d st='' end=$((SECONDS + 30))
	d=$(read_pid "$dir/run/slurmd.pid")
	while is_ours "$d" slurmd "$conf" && ((SECONDS < end)); do
		st=$(timeout 10 "$bin/sinfo" -h -N -n "$node" -o %t 2>/dev/null | sort -u) || true
		[[ -n $st && $st != *unk* && $st != *'*'* ]] && break
		sleep 0.3
	done
	if [[ $st == *unk* || $st == *'*'* ]]; then
		say "warning: node $node still '$st' 30 s after the restart"
	fi
	say "slurmctld restarted in $((SECONDS - t0)) s (pid $c)"
}

# slurmdbd alone: a test of a controller whose slurmdbd is down or back.
load_accounting_cluster() {
	(($# == 1)) || usage
	dir=$(abs_dir "$1")
	load_cluster "$dir" || die "no cluster in $dir"
	((accounting)) || die "$dir was not started with --accounting"
	port=$SM_SLURMCTLD_PORT
}

cmd_stop_dbd() {
	load_accounting_cluster "$@"
	stop_pid "$(read_pid "$dir/run/slurmdbd.pid")" slurmdbd "$conf" 15
	rm -f "$dir/run/slurmdbd.pid"
	say "slurmdbd stopped"
}

cmd_start_dbd() {
	load_accounting_cluster "$@"
	if is_ours "$(read_pid "$dir/run/slurmdbd.pid")" slurmdbd "$conf"; then
		die "slurmdbd already runs"
	fi
	start_dbd || {
		dump_logs
		die "slurmdbd did not start"
	}
	say "slurmdbd started (pid $(read_pid "$dir/run/slurmdbd.pid"))"
}

cmd_status() {
	(($# == 1)) || usage
	dir=$(abs_dir "$1")
	load_cluster "$dir" || die "no cluster in $dir"
	local rc=0 n p names=(slurmctld slurmd)
	if ((accounting)); then names+=(slurmdbd mariadbd); fi
	for n in "${names[@]}"; do
		p=$(read_pid "$dir/run/$n.pid")
		if is_ours "$p" "$n" "$conf"; then
			echo "$n ${p} alive"
		else
			echo "$n ${p:--} not running"
			rc=1
		fi
	done
	return "$rc"
}

cmd_logs() {
	(($# == 1)) || usage
	dir=$(abs_dir "$1")
	local f
	# *.log: Slurm's log files; *.out: the daemons' stdout/stderr, which
	# holds errors from before the log file is opened.
	for f in slurmctld.log slurmd.log slurmctld.out slurmd.out; do
		echo "$dir/log/$f"
	done
	if [[ -f $dir/etc/slurmdbd.conf ]]; then
		for f in slurmdbd.log slurmdbd.out mariadb.err sacctmgr.out; do
			echo "$dir/log/$f"
		done
	fi
}

(($#)) || usage
sub=$1
shift
case $sub in
start) cmd_start "$@" ;;
start-accounting) cmd_start_accounting "$@" ;;
stop) cmd_stop "$@" ;;
restart-ctld) cmd_restart_ctld "$@" ;;
stop-dbd) cmd_stop_dbd "$@" ;;
start-dbd) cmd_start_dbd "$@" ;;
status) cmd_status "$@" ;;
logs) cmd_logs "$@" ;;
munge) ensure_munged ;;
-h | --help | help) usage ;;
*) usage ;;
esac
