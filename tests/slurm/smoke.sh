#!/bin/sh
# shellcheck disable=SC2016,SC2034  # check() evals its single-quoted tests
# tests/slurm/smoke.sh [DIR] - checks tests/slurm/cluster.sh end to end on a
# real cluster in DIR (default /tmp/slurm-arena-test): a 3-element GPU job
# array plus a dependent job, one fake GPU per job at a time, exit codes in
# the jobcomp file, start/stop twice, and no process of the cluster left
# after stop (also after the daemons were SIGKILLed under a running job).
# Prints "N passed, N failed"; exits 77 when cluster.sh skips.
C=$(cd "$(dirname "$0")" && pwd)/cluster.sh
D=${1:-/tmp/slurm-arena-test}
pass=0; fail=0
ok() { echo "ok   $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1"; fail=$((fail + 1)); }
check() { if eval "$2"; then ok "$1"; else bad "$1"; fi; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }

# Wait until none of the given jobs (array ids, plain ids, comma-separated)
# is pending, running or completing.  squeue -j lists only those states by
# default, so its output goes empty when everything has finished; a job the
# controller has already forgotten makes it fail with "Invalid job id".
wait_jobs() {	# ids timeout_s
	_end=$(($(date +%s) + ${2:-120}))
	while :; do
		_out=$(squeue -h -j "$1" -o %i 2>&1) || {
			case "$_out" in *"Invalid job id"*) return 0 ;; esac
			echo "squeue failed: $_out" >&2; return 1; }
		[ -z "$_out" ] && return 0
		[ "$(date +%s)" -lt "$_end" ] || { echo "timeout waiting for $1" >&2; return 1; }
		sleep 0.25
	done
}

# processes of the cluster still alive: anything naming DIR on its command
# line, slurmstepd whose cwd is under DIR, anything with our SLURM_CONF
leftovers() {
	ps -eo pid=,stat=,args= | awk -v d="$D/" '$2 !~ /^Z/ && index($0, d) && !/awk -v d=/ { print }'
	for p in $(ps -eo pid=,args= | awk '$2 ~ /^slurmstepd/ { print $1 }'); do
		case "$(readlink "/proc/$p/cwd" 2>/dev/null)" in "$D"/*) echo "$p slurmstepd" ;; esac
	done
	for p in $(ps -eo pid=,stat= | awk '$2 !~ /^Z/ { print $1 }'); do
		[ "$p" = $$ ] && continue
		# shellcheck disable=SC2002
		cat "/proc/$p/environ" 2>/dev/null | tr '\0' '\n' | grep -qx "SLURM_CONF=$D/slurm.conf" &&
		    grep -q '^SLURM_JOB_ID=' "/proc/$p/environ" 2>/dev/null && echo "$p job process"
	done
}

"$C" stop "$D" 2>/dev/null
t=$(now)
"$C" start "$D"; rc=$?
[ $rc -eq 77 ] && exit 77
check "start exit 0 (took $(since "$t") s)" '[ $rc -eq 0 ]'
[ $rc -eq 0 ] || exit 1
eval "$("$C" env "$D")"
check "env points SLURM_CONF into DIR" '[ "$SLURM_CONF" = "$(cd "$D" && pwd -P)/slurm.conf" ]'
check "status exit 0" '"$C" status "$D" >/dev/null'
S=$D/out; rm -rf "$S"; mkdir -p "$S"

# 1. job array of 3, one fake GPU each, and a job that depends on it
t=$(now)
arr=$(sbatch --parsable --array=0-2 --gres=gpu:1 -o "$S/arr_%a.out" --wrap '
	s=$(date +%s.%N); sleep 1
	echo "$SLURM_ARRAY_TASK_ID $CUDA_VISIBLE_DEVICES $SLURMD_NODENAME $s $(date +%s.%N)" > '"$S"'/task_$SLURM_ARRAY_TASK_ID')
dep=$(sbatch --parsable --dependency=afterany:"$arr" -o "$S/dep.out" --wrap '
	date +%s.%N > '"$S"'/dep_start; cat '"$S"'/task_* | wc -l > '"$S"'/dep_count')
check "sbatch returned ids ($arr, $dep)" '[ -n "$arr" ] && [ -n "$dep" ]'
wait_jobs "$arr,$dep" 120; rc=$?
check "array + dependent job finished (polling squeue: $(since "$t") s)" '[ $rc -eq 0 ]'
check "3 task files with ids 0 1 2" '[ "$(cat "$S"/task_* | awk "{print \$1}" | sort | tr "\n" " ")" = "0 1 2 " ]'
check "each task saw exactly one GPU (CUDA_VISIBLE_DEVICES 0 or 1)" \
    '[ "$(awk "\$2 !~ /^[01]\$/" "$S"/task_* | wc -l)" -eq 0 ] && [ "$(cat "$S"/task_* | wc -l)" -eq 3 ]'
check "dependent job saw 3 task files" '[ "$(cat "$S"/dep_count)" = 3 ]'
check "dependent job started after every element ended" \
    '[ "$(cat "$S"/task_* | awk -v d="$(cat "$S"/dep_start)" "\$5 > d" | wc -l)" -eq 0 ]'
check "jobcomp.log: 4 COMPLETED with ExitCode=0:0" \
    '[ "$(grep -E "JobId=($arr|$dep) |ArrayJobId=$arr " "$D"/jobcomp.log | grep "JobState=COMPLETED" | grep -c "ExitCode=0:0")" -eq 4 ]'
sed 's/^/     /' "$S"/task_*

# 2. one GPU, one job: 8 elements x 2 s on 4 fake GPUs -> never 2 on one GPU
t=$(now)
big=$(sbatch --parsable --array=0-7 --gres=gpu:1 -o /dev/null --wrap '
	s=$(date +%s.%N); sleep 2
	echo "$SLURMD_NODENAME $CUDA_VISIBLE_DEVICES $s $(date +%s.%N)" > '"$S"'/big_$SLURM_ARRAY_TASK_ID')
n=0
until [ "$(squeue -h -r -j "$big" -t R | wc -l)" -ge 4 ] || [ $n -ge 100 ]; do sleep 0.1; n=$((n + 1)); done
run=$(squeue -h -r -j "$big" -t R | wc -l)
pend=$(squeue -h -r -j "$big" -t PD -o %r | sort | uniq -c | tr -s ' \n' '  ')
wait_jobs "$big" 120
check "8 x 2 s on 4 GPUs done ($(since "$t") s; first wave: $run running, pending:$pend)" '[ "$(ls "$S"/big_* | wc -l)" -eq 8 ]'
over=$(cat "$S"/big_* | sort -k1,2 -k3,3n | awk '{ k = $1 " " $2; if (k == pk && $3 < pe) n++; pk = k; pe = $4 } END { print n + 0 }')
check "no fake GPU ran two jobs at once" '[ "$over" -eq 0 ]'
check "all 4 (node, GPU) pairs used" '[ "$(awk "{print \$1, \$2}" "$S"/big_* | sort -u | wc -l)" -eq 4 ]'

# 3. exit codes without sacct
f=$(sbatch --parsable -o /dev/null --wrap 'exit 3')
wait_jobs "$f" 60
check "failed job: jobcomp.log has JobState=FAILED ExitCode=3:0" \
    'grep "JobId=$f " "$D"/jobcomp.log | grep -q "JobState=FAILED.*ExitCode=3:0"'

# 4. start on a running cluster
"$C" start "$D" 2>"$S/start2.err"; rc=$?
check "second start exit 0 ($(cat "$S/start2.err"))" '[ $rc -eq 0 ]'
check "still one controller" '[ "$(ps -eo args= | grep -c "^slurmctld -f $D/slurm.conf")" -eq 1 ]'

# 5. stop with a job that ignores SIGTERM still running
sbatch -o /dev/null --wrap 'trap "" TERM; sleep 300' >/dev/null
until [ -n "$(squeue -h -t R)" ]; do sleep 0.2; done
t=$(now)
"$C" stop "$D"; rc=$?
check "stop with a running job exit 0 ($(since "$t") s)" '[ $rc -eq 0 ]'
l=$(leftovers)
check "nothing of the cluster left after stop${l:+: $l}" '[ -z "$l" ]'
check "status exit non-zero after stop" '! "$C" status "$D" >/dev/null'
"$C" stop "$D"; rc=$?
check "second stop exit 0" '[ $rc -eq 0 ]'

# 6. daemons SIGKILLed under a running job: stop still cleans up
t=$(now)
"$C" start "$D" || exit 1
check "restart in the same DIR ($(since "$t") s)" 'true'
sbatch -o /dev/null --wrap 'sleep 300 & sleep 300; wait' >/dev/null
until [ -n "$(squeue -h -t R)" ]; do sleep 0.2; done
sleep 0.5
# shellcheck disable=SC2046
kill -KILL $(ps -eo pid=,args= | awk -v c="$D/slurm.conf" 'index($0, "-f " c) && !/awk/ { print $1 }')
sleep 0.5
"$C" stop "$D"; rc=$?
l=$(leftovers)
check "stop after SIGKILLed daemons: exit 0, nothing left${l:+: $l}" '[ $rc -eq 0 ] && [ -z "$l" ]'

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
