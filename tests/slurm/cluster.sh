#!/bin/sh
# tests/slurm/cluster.sh - a throw-away, real Slurm cluster for arena's
# end-to-end tests: one slurmctld and two slurmd ("n1", "n2") on this host,
# everything (config, state, spool, pid files, logs) kept under one DIR.
#
#   cluster.sh start  DIR   install slurm if missing, configure, start, wait
#                           until both nodes are idle (exit 77 = skip)
#   cluster.sh stop   DIR   cancel all jobs, stop the daemons, kill leftovers
#   cluster.sh status DIR   node states; exit 0 only if the controller answers
#   cluster.sh env    DIR   print "export SLURM_CONF=DIR/slurm.conf"
#
# Typical test (see README.md for waiting on jobs):
#   C=tests/slurm/cluster.sh; D=$(mktemp -d /tmp/slurm.XXXXXX)
#   trap '"$C" stop "$D"; rm -rf "$D"' EXIT; trap 'exit 143' INT TERM
#   "$C" start "$D" || exit $?          # 77 -> the test is skipped
#   eval "$("$C" env "$D")"             # sbatch/squeue/... now use this cluster
#
# Each node has 4 CPUs and 2 fake GPUs (gres/gpu, File= DIR/dev/gpu0..3), so
# --gres=gpu:1 sets CUDA_VISIBLE_DEVICES and Slurm hands every fake GPU to
# one job at a time.  A job's exit code is in DIR/jobcomp.log (there is no
# slurmdbd, hence no sacct).  The daemons run in the background (they leave
# the caller's process group), so a test must call stop, e.g. from a trap.
#
# Environment (optional):
#   ARENA_SLURMCTLD_PORT  controller port            (default 17017)
#   ARENA_SLURMD_PORT     port of n1; n2 uses +1     (default 17018)
#   ARENA_SLURM_TIMEOUT   seconds to wait for start/stop phases (default 60)
# The defaults are not Slurm's 6817/6818, so a system Slurm is left alone;
# two clusters at once need different ports.
#
# Written for slurm-wlm 22.05 (Debian 12) in a VM without systemd, with
# cgroups v1 and PID 1 that reaps orphans late; see README.md for the facts
# behind the settings below.  Needs root.  POSIX sh (plus GNU `sleep 0.2`).

PATH=$PATH:/usr/sbin:/sbin:/usr/bin:/bin
ME=cluster.sh
NODES="n1 n2"
GPUS_PER_NODE=2
CTLD_PORT=${ARENA_SLURMCTLD_PORT:-17017}
SLURMD_PORT=${ARENA_SLURMD_PORT:-17018}
TIMEOUT=${ARENA_SLURM_TIMEOUT:-60}

say() { echo "$ME: $*" >&2; }

usage() {
	echo "usage: $ME start DIR | stop DIR | status DIR | env DIR" >&2
	exit 2
}

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }

# Every process as "PID PPID STAT ARGS", from one ps call.  STAT Z means
# dead: here PID 1 collects dead children late, so an exited daemon lingers
# as a zombie (and `kill -0` still succeeds on it) for a while.
procs() { ps -eo pid=,ppid=,stat=,args= 2>/dev/null; }

live() {
	procs | awk -v p="$1" '$1 == p && $3 !~ /^[ZX]/ { f = 1 } END { exit !f }'
}

# PIDs given as arguments plus all their descendants.
with_descendants() {
	procs | awk -v roots="$*" '
		BEGIN { n = split(roots, r, " "); for (i = 1; i <= n; i++) keep[r[i]] = 1 }
		{ parent[$1] = $2 }
		END {
			grow = 1
			while (grow) {
				grow = 0
				for (p in parent)
					if (!(p in keep) && (parent[p] in keep)) { keep[p] = 1; grow = 1 }
			}
			for (p in keep) print p
		}'
}

# Is TCP port $1 listening on this host (any address, v4 or v6)?
port_busy() {
	_hex=$(printf '%04X' "$1")
	cat /proc/net/tcp /proc/net/tcp6 2>/dev/null |
	    awk -v h="$_hex" '$4 == "0A" { split($2, a, ":"); if (a[2] == h) f = 1 } END { exit !f }'
}

# (Never run a Slurm client without the conf file: it then tries a DNS SRV
# lookup for a "configless" controller, which can hang for a minute.)
ctld_up() { [ -f "$CONF" ] && scontrol ping 2>/dev/null | grep -q 'is UP'; }

# ---------------------------------------------------------------- install
have_slurm() {
	command -v slurmctld >/dev/null 2>&1 && command -v slurmd >/dev/null 2>&1 &&
	    command -v sbatch >/dev/null 2>&1 && command -v scontrol >/dev/null 2>&1
}

# scripts/deps.sh is the one place that knows the package list; it also
# keeps the packages' postinst scripts from starting system-wide daemons.
install_slurm() {
	have_slurm && return 0
	say "installing slurm with scripts/deps.sh (log: $D/install.log)"
	_t=$(now)
	sh "$(dirname "$0")/../../scripts/deps.sh" slurm > "$D/install.log" 2>&1
	have_slurm || return 1
	say "installed in $(since "$_t") s"
}

# ---------------------------------------------------------------- config
write_config() {
	rm -rf "${D:?}/state" "$D/spool" "$D/run" "$D/log" "${D:?}/dev" "$D/jobcomp.log"
	mkdir -p "$D/state" "$D/run" "$D/log" "$D/dev" || return 1
	cat > "$CONF" <<EOF
# written by tests/slurm/cluster.sh for $D
ClusterName=arenatest
# no name resolution needed: everything is on 127.0.0.1
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$CTLD_PORT
SlurmUser=root
SlurmdUser=root
# auth/none works in 22.05 and needs no munged and no key
AuthType=auth/none
CredType=cred/none
StateSaveLocation=$D/state
# %n: one spool dir, pid file and log per emulated node
SlurmdSpoolDir=$D/spool/%n
SlurmctldPidFile=$D/run/slurmctld.pid
SlurmdPidFile=$D/run/slurmd-%n.pid
SlurmctldLogFile=$D/log/slurmctld.log
SlurmdLogFile=$D/log/slurmd-%n.log
SlurmctldDebug=info
SlurmdDebug=info
# no cgroups (v1 here, maybe v2 elsewhere; cgroup plugins leave directories
# behind): track job processes by PID, and do no CPU binding, because
# task/affinity breaks multi-task steps on over-declared CPUs
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
# cons_tres tracks each GPU as a resource: no GPU is ever given to two jobs
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
# schedule as soon as resources free up (default batch_sched_delay=3 adds
# about 2 s between array waves)
SchedulerParameters=batch_sched_delay=0,sched_min_interval=0
# believe the node lines below, not the hardware (the VM has 2 cores)
SlurmdParameters=config_overrides
# no slurmdbd, so no sacct: one line per finished job goes to jobcomp.log
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/filetxt
JobCompLoc=$D/jobcomp.log
MpiDefault=none
# silences "Configured MailProg is invalid"
MailProg=/bin/true
ReturnToService=2
# seconds between SIGTERM and SIGKILL on scancel/time limit (default 30)
KillWait=2
# finished jobs stay visible to "scontrol show job" for 5 minutes
MinJobAge=300
GresTypes=gpu
EOF
	_port=$SLURMD_PORT
	for _n in $NODES; do
		echo "NodeName=$_n NodeAddr=127.0.0.1 Port=$_port CPUs=4 Sockets=1 CoresPerSocket=4 ThreadsPerCore=1 RealMemory=4000 Gres=gpu:$GPUS_PER_NODE State=UNKNOWN" >> "$CONF"
		_port=$((_port + 1))
	done
	echo "PartitionName=arena Nodes=$(echo "$NODES" | tr ' ' ',') Default=YES MaxTime=INFINITE OverSubscribe=NO State=UP" >> "$CONF"

	# Fake GPUs.  A count-only gres (no File=) leaves the node INVAL, and
	# there is no NVML plugin to detect anything, so each GPU is a File=.
	# It must be a character device: with a plain empty file the node comes
	# up and jobs get a GPU, but no CUDA_VISIBLE_DEVICES (checked).  A
	# symlink to /dev/null is one, with no mknod.  CUDA_VISIBLE_DEVICES
	# counts per node: 0 and 1 on n1 and on n2, so a worker is identified
	# by (SLURMD_NODENAME, CUDA_VISIBLE_DEVICES).
	{
		echo "AutoDetect=off"
		_g=0
		for _n in $NODES; do
			_files=
			_i=0
			while [ $_i -lt $GPUS_PER_NODE ]; do
				ln -s /dev/null "$D/dev/gpu$_g" || return 1
				_files="$_files${_files:+,}$D/dev/gpu$_g"
				_g=$((_g + 1)); _i=$((_i + 1))
			done
			echo "NodeName=$_n Name=gpu File=$_files"
		done
	} > "$D/gres.conf"
	for _n in $NODES; do mkdir -p "$D/spool/$_n" || return 1; done
}

# ---------------------------------------------------------------- stop
# Live slurmctld/slurmd of this cluster, i.e. started with "-f DIR/slurm.conf".
# Going by the command line rather than by the PIDs recorded in DIR/run
# alone means a recycled PID is never touched, and a daemon that a killed,
# half-finished start did not record is still found.
daemon_pids() {
	procs | awk -v conf="$CONF" '$3 !~ /^[ZX]/ && $4 ~ /(^|\/)slurm(ctld|d)$/ &&
	    index($0 " ", " -f " conf " ") { print $1 }'
}

# slurmstepd (a job step's manager; it outlives slurmd) of this cluster: its
# working directory is DIR/log and it holds DIR/log/slurmd-N.log open.  Its
# /proc environ is useless (overwritten by its process title).
stepd_pids() {
	for _p in $(procs | awk '$3 !~ /^[ZX]/ && $4 ~ /^slurmstepd/ { print $1 }'); do
		_hit=
		case "$(readlink "/proc/$_p/cwd" 2>/dev/null)" in "$D"/*) _hit=1 ;; esac
		if [ -z "$_hit" ]; then
			for _fd in /proc/"$_p"/fd/*; do
				case "$(readlink "$_fd" 2>/dev/null)" in "$D"/*) _hit=1; break ;; esac
			done
		fi
		[ -n "$_hit" ] && echo "$_p"
	done
}

# Orphaned job processes of this cluster (their slurmstepd was killed): now
# children of PID 1 whose environment has SLURM_CONF=DIR/slurm.conf (slurmd
# sets it even under --export=NONE) and a SLURM_JOB_ID.
orphan_pids() {
	for _p in $(procs | awk '$2 == 1 && $3 !~ /^[ZX]/ { print $1 }'); do
		[ "$_p" = $$ ] && continue
		# shellcheck disable=SC2002  # cat: a vanished PID must fail quietly
		_env=$(cat "/proc/$_p/environ" 2>/dev/null | tr '\0' '\n')
		case "$_env" in *"SLURM_CONF=$CONF"*) ;; *) continue ;; esac
		echo "$_env" | grep -q '^SLURM_JOB_ID=' && echo "$_p"
	done
}

# This shell and its ancestors, never to be killed.
self_and_ancestors() {
	procs | awk -v me=$$ '{ parent[$1] = $2 } END { p = me; while (p > 1) { print p; p = parent[p] } }'
}

do_stop() {
	# (no early exit when DIR is gone: its daemons may still be running)
	_t=$(now)
	_ctld=$(procs | awk -v conf="$CONF" '$3 !~ /^[ZX]/ && $4 ~ /(^|\/)slurmctld$/ &&
	    index($0 " ", " -f " conf " ") { print $1 }')
	if [ -n "$_ctld" ] && ctld_up; then
		# Jobs first: slurmstepd and the job's processes outlive the daemons.
		_jobs=$(squeue -h -o %F 2>/dev/null | sort -u)
		if [ -n "$_jobs" ]; then
			# shellcheck disable=SC2086
			scancel $_jobs 2>/dev/null
			_end=$(($(date +%s) + TIMEOUT))
			while [ -n "$(squeue -h 2>/dev/null)" ] && [ "$(date +%s)" -lt $_end ]; do
				sleep 0.2
			done
		fi
		# nodes in COMPLETING are still tearing job steps down
		_end=$(($(date +%s) + 15))
		while sinfo -h -N -o %t 2>/dev/null | grep -q comp && [ "$(date +%s)" -lt $_end ]; do
			sleep 0.2
		done
		# one RPC stops slurmctld and every registered slurmd
		scontrol shutdown >/dev/null 2>&1
		_end=$(($(date +%s) + 10))
		while [ -n "$(daemon_pids)" ] && [ "$(date +%s)" -lt $_end ]; do sleep 0.1; done
	fi
	# Daemons that are still there (controller down, or shutdown ignored):
	# TERM, then KILL after 5 s.  Their children too (slurmscriptd).
	_left=$(daemon_pids)
	if [ -n "$_left" ]; then
		# shellcheck disable=SC2086
		_fam=$(with_descendants $_left | grep -vxF "$(self_and_ancestors)")
		# shellcheck disable=SC2086
		kill -TERM $_fam 2>/dev/null
		_i=0
		while [ -n "$(daemon_pids)" ] && [ $_i -lt 50 ]; do sleep 0.1; _i=$((_i + 1)); done
		for _p in $_fam; do
			live "$_p" && kill -KILL "$_p" 2>/dev/null
		done
	fi
	# Safety net: job step managers of this cluster, orphaned job processes,
	# and everything below them.
	_roots=$(stepd_pids; orphan_pids)
	if [ -n "$_roots" ]; then
		# shellcheck disable=SC2086
		_all=$(with_descendants $_roots | grep -vxF "$(self_and_ancestors)" | tr '\n' ' ')
		say "killing leftover job processes: $_all"
		# shellcheck disable=SC2086
		kill -KILL $_all 2>/dev/null
	fi
	_i=0
	while [ -n "$(daemon_pids)$(stepd_pids)" ] && [ $_i -lt 50 ]; do sleep 0.1; _i=$((_i + 1)); done
	[ -f "$D/run/pids" ] && mv -f "$D/run/pids" "$D/run/pids.stopped"
	_still=$(daemon_pids; stepd_pids; orphan_pids)
	if [ -n "$_still" ]; then
		say "could not stop these processes: $(echo "$_still" | tr '\n' ' ')"
		return 1
	fi
	if [ -n "$_ctld$_left$_roots" ]; then
		say "stopped under $D in $(since "$_t") s"
	else
		say "nothing was running under $D"
	fi
	return 0
}

# ---------------------------------------------------------------- start
# Give up: leave nothing running, and make the reason the last line on
# stderr (tests/run.sh shows a skipped test's last line).
skip() {
	do_stop >/dev/null 2>&1
	say "skip: $*"
	exit 77
}

record() {	# name pidfile
	_rend=$(($(date +%s) + TIMEOUT))
	until [ -s "$2" ] && live "$(cat "$2")"; do
		[ "$(date +%s)" -lt $_rend ] || return 1
		sleep 0.1
	done
	echo "$1 $(cat "$2")" >> "$D/run/pids"
}

# PID of one daemon of this cluster: daemon_pid slurmctld | daemon_pid n1
daemon_pid() {
	procs | awk -v conf="$CONF" -v who="$1" '
		$3 ~ /^[ZX]/ { next }
		who == "slurmctld" && $4 ~ /(^|\/)slurmctld$/ && index($0 " ", " -f " conf " ") { print $1 }
		who != "slurmctld" && $4 ~ /(^|\/)slurmd$/ && index($0 " ", " -f " conf " -N " who " ") { print $1 }'
}

# Every daemon alive, the controller answering, no node in a bad state.
# (A dead slurmd is only noticed by slurmctld after SlurmdTimeout, 5 min.)
running() {
	[ -n "$(daemon_pid slurmctld)" ] || return 1
	for _n in $NODES; do [ -n "$(daemon_pid "$_n")" ] || return 1; done
	ctld_up || return 1
	[ "$(sinfo -h -N -o '%N %t' 2>/dev/null | awk '$2 == "idle" || $2 ~ /^(alloc|mix|comp)$/' | wc -l)" -eq 2 ]
}

do_start() {
	_t0=$(now)
	[ "$(id -u)" -eq 0 ] || skip "must run as root (daemons run as root, packages may need apt-get)"
	mkdir -p "$D" || skip "cannot create $D"
	D=$(cd "$D" && pwd -P)
	CONF=$D/slurm.conf
	SLURM_CONF=$CONF
	export SLURM_CONF
	# start wipes DIR/{state,spool,run,log,dev}: only in a DIR of ours
	if [ ! -e "$D/.arena-slurm-cluster" ]; then
		for _x in slurm.conf gres.conf state spool run log dev; do
			[ -e "$D/$_x" ] && { say "$D/$_x exists and $D was not made by $ME; use a fresh DIR"; exit 2; }
		done
		: > "$D/.arena-slurm-cluster"
	fi
	if [ -n "$(daemon_pids)" ]; then
		if have_slurm && running; then
			say "already running under $D"
			return 0
		fi
		say "a partial cluster is running under $D: restarting it"
		do_stop || skip "could not stop the old daemons under $D"
	fi
	# A controller already on our port would answer our clients in place of
	# ours (and ours would die with "Address already in use").
	for _p in $CTLD_PORT $SLURMD_PORT $((SLURMD_PORT + 1)); do
		port_busy "$_p" && skip "TCP port $_p is in use; set ARENA_SLURMCTLD_PORT / ARENA_SLURMD_PORT"
	done
	install_slurm || skip "slurm-wlm is not installed and scripts/deps.sh could not install it (see $D/install.log)"
	_t1=$(now)
	write_config || skip "cannot write the configuration under $D"
	: > "$D/run/pids"
	trap 'skip "interrupted"' INT TERM HUP

	# Without -D each daemon forks, writes its pid file and returns.  Their
	# stdio goes to a file so that nothing keeps a caller's pipe open.
	slurmctld -f "$CONF" < /dev/null >> "$D/log/daemons.out" 2>&1 ||
	    skip "slurmctld failed to start (see $D/log/daemons.out)"
	record slurmctld "$D/run/slurmctld.pid" || skip "slurmctld wrote no pid file (see $D/log/)"
	_end=$(($(date +%s) + TIMEOUT))
	until ctld_up; do
		[ "$(date +%s)" -lt $_end ] || skip "slurmctld did not answer within $TIMEOUT s (see $D/log/slurmctld.log)"
		live "$(awk '$1 == "slurmctld" { print $2 }' "$D/run/pids")" ||
		    skip "slurmctld died at start-up (see $D/log/slurmctld.log)"
		sleep 0.1
	done
	# several slurmd on one host: -N picks the node line (and its Port=)
	for _n in $NODES; do
		slurmd -f "$CONF" -N "$_n" < /dev/null >> "$D/log/daemons.out" 2>&1 ||
		    skip "slurmd $_n failed to start (see $D/log/daemons.out)"
	done
	for _n in $NODES; do
		record "slurmd-$_n" "$D/run/slurmd-$_n.pid" ||
		    skip "slurmd $_n wrote no pid file (see $D/log/slurmd-$_n.log)"
	done
	while :; do
		_states=$(sinfo -h -N -o '%N %t' 2>/dev/null)
		[ "$(echo "$_states" | awk '$2 == "idle"' | wc -l)" -eq 2 ] && break
		_bad=$(echo "$_states" | awk '$2 ~ /inval|drain|fail/ { printf "%s %s; ", $1, $2 }')
		[ -n "$_bad" ] && skip "nodes not usable: $_bad(see $D/log/)"
		[ "$(date +%s)" -lt $_end ] ||
		    skip "nodes not idle within $TIMEOUT s: $(echo "$_states" | tr '\n' ' ')(see $D/log/)"
		sleep 0.1
	done
	trap - INT TERM HUP
	say "up under $D in $(since "$_t1") s (total $(since "$_t0") s): 2 nodes x 4 CPUs x 2 GPUs, controller port $CTLD_PORT"
}

do_status() {
	if [ ! -f "$CONF" ]; then
		echo "not running: no $CONF"
		return 1
	fi
	for _n in slurmctld $NODES; do
		_p=$(daemon_pid "$_n")
		case $_n in slurmctld) _w=slurmctld ;; *) _w="slurmd $_n" ;; esac
		echo "$_w: ${_p:+pid }${_p:-not running}"
	done
	if [ -z "$(daemon_pid slurmctld)" ] || ! ctld_up; then
		echo "not running: the controller of $D does not answer"
		return 1
	fi
	sinfo -N -o '%N %P %T %c %G'
	echo "jobs in queue: $(squeue -h 2>/dev/null | wc -l)"
	return 0
}

# ---------------------------------------------------------------- main
[ $# -eq 2 ] || usage
[ -n "$2" ] || usage
case "$2" in
*[!A-Za-z0-9._/+-]*)
	say "DIR may only contain letters, digits and . _ / + - (it goes into slurm.conf)"
	exit 2 ;;
esac
D=$2
case "$D" in /*) ;; *) D=$PWD/$D ;; esac
[ -d "$D" ] && D=$(cd "$D" && pwd -P)
CONF=$D/slurm.conf
SLURM_CONF=$CONF
export SLURM_CONF

case "$1" in
start) do_start ;;
stop) do_stop ;;
status) do_status ;;
env) echo "export SLURM_CONF=$CONF" ;;
*) usage ;;
esac
