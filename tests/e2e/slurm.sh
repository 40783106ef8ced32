# `arena slurm` against a real Slurm: slurmctld and two slurmd on this
# host (tests/slurm/cluster.sh), two fake GPUs per node.  A host run of
# three tasks becomes a 3-element job array plus the job after it; every
# attempt is evaluated exactly once, the run ends done with its reports,
# and every job exits 0.  Then a GPU run (the emulated GPU runner) asks
# each element for one GPU, which Slurm hands out through
# CUDA_VISIBLE_DEVICES.  Skips (77) where Slurm cannot be installed or
# started.
. "$(dirname "$0")/lib.sh"
CLUSTER=$ROOT/tests/slurm/cluster.sh
C=$T/cluster
sh "$CLUSTER" start "$C" > "$T/cluster.log" 2>&1
rc=$?
if [ $rc = 77 ]; then
	echo "skip: no Slurm here: $(tail -n 1 "$T/cluster.log")"
	exit 77
fi
[ $rc = 0 ] || { cat "$T/cluster.log"; fail "the test cluster did not start"; }
trap 'sh "$CLUSTER" stop "$C" > /dev/null 2>&1; rm -rf "$T"' EXIT
trap 'exit 143' INT TERM
eval "$(sh "$CLUSTER" env "$C")"

# wait_jobs ID...: until Slurm no longer lists them (at most 10 minutes).
wait_jobs() {
	ids=$(echo "$@" | tr ' ' ,)
	for i in $(seq 1 600); do
		# Empty once every job has ended; "Invalid job id" once the
		# controller has forgotten them.
		out=$(squeue -h -j "$ids" -o %i 2>&1) || {
			case $out in *"Invalid job id"*) return 0 ;; esac
			fail "squeue failed: $out"; }
		[ -z "$out" ] && return 0
		sleep 1
	done
	squeue -j "$ids"
	fail "jobs $ids still queued or running after 10 minutes"
}
# The exit code Slurm recorded for every job named arena-RUN*.
job_codes() { grep "Name=arena-$1" "$C/jobcomp.log" | sed -n 's/.*ExitCode=\([0-9:]*\).*/\1/p' | sort | uniq -c; }

submit() {	# config [args...] -> sets run, array, after
	"$ARENA" --store "$STORE" slurm "$@" --time 10 > "$T/submit.log" 2>&1 ||
		{ cat "$T/submit.log"; fail "arena slurm $1 failed"; }
	run=$(sed -n 's/^run \([^ ]*\) .*/\1/p' "$T/submit.log")
	array=$(sed -n 's/^array job \([0-9]*\):.*/\1/p' "$T/submit.log")
	after=$(sed -n 's/^job \([0-9]*\) after it.*/\1/p' "$T/submit.log")
	[ -n "$run" ] && [ -n "$array" ] && [ -n "$after" ] ||
		fail "unexpected arena slurm output: $(cat "$T/submit.log")"
}

# 1. Host tasks.
write_config "$T/host.yaml" "{template: noop}" "[c2c/gemm, c2c/dot, c2c/transpose]"
t0=$(date +%s)
submit "$T/host.yaml"
wait_jobs "$array" "$after"
dir=$(run_dir_of "$run")/slurm
for k in 0 1 2; do
	[ -s "$dir/element-$k.out" ] || fail "element $k left no output"
	grep -q "started (one attempt)" "$dir/element-$k.out" ||
		fail "element $k: $(cat "$dir/element-$k.out")"
done
counts=$(cat "$dir"/element-*.out "$dir/aggregate.out" |
	awk '$2 == "eval_start" { print $3 }' | sort | uniq -c)
[ "$(printf '%s\n' "$counts" | awk '$1 == 1' | wc -l)" = 3 ] ||
	fail "every attempt should be evaluated exactly once: $counts"
"$ARENA" --store "$STORE" status "$run" | grep -q "done done=3 total=3" ||
	fail "run not done: $("$ARENA" --store "$STORE" status "$run")"
grep -q "^arena run report" "$dir/aggregate.out" && grep -q "Tasks: *3 (3 evaluated" "$dir/aggregate.out" ||
	fail "the job after the array printed no report: $(cat "$dir/aggregate.out")"
[ "$(tail -n +2 "$(run_dir_of "$run")/summary.csv" | wc -l)" = 3 ] ||
	fail "summary.csv should have 3 rows"
codes=$(job_codes "$run")
[ "$(printf '%s\n' "$codes" | grep -v ' 0:0$' | grep -c .)" = 0 ] ||
	fail "a job did not exit 0: $codes"
note "host run on Slurm: 3 elements + report job in $(($(date +%s) - t0)) s; $(echo $codes)"

# 2. --dry-run: the scripts are written and the commands printed; run
#    by hand, they do what arena slurm would have done.
write_config "$T/dry.yaml" "{template: noop}" "[c2c/gemm]"
"$ARENA" --store "$STORE" slurm "$T/dry.yaml" --time 10 --dry-run > "$T/dry.log" 2>&1 ||
	fail "arena slurm --dry-run failed: $(cat "$T/dry.log")"
run=$(sed -n 's/^run \([^ ]*\) .*/\1/p' "$T/dry.log")
squeue -h -n "arena-$run" | grep -q . && fail "--dry-run submitted a job"
"$ARENA" --store "$STORE" status "$run" | grep -q "created done=0" || fail "dry run did not stay created"
sed -n '/^ARRAY_JOB=/,$p' "$T/dry.log" > "$T/submit.sh"
after=$(sh "$T/submit.sh") || fail "the printed commands failed: $(cat "$T/submit.sh")"
wait_jobs "$after"	# after the array (afterany), so the array is done too
"$ARENA" --store "$STORE" status "$run" | grep -q "done done=1 total=1" ||
	fail "the dry run's commands did not finish the run"
note "--dry-run printed commands that ran the run by hand"

# 3. GPU tasks on the emulated GPU: each element gets one GPU.
FAKE=$ROOT/$B/tests/arena-runner-fakegpu
if [ -x "$FAKE" ]; then
	export ARENA_RUNNER_CUDA=$FAKE NVCC=$ROOT/tests/gpu/fake/nvcc
	cat > "$T/gpu.yaml" <<CFG
agent: {template: noop}
tasks: [task/fakepoly]
device: cuda:0
repeats: 2
timing: {case_budget_s: 0.2, blocks: 1, min_pairs: 4, max_pairs: 40}
CFG
	ARENA_TASKS_DIR=$ROOT/tests/gpu/fake
	export ARENA_TASKS_DIR
	submit "$T/gpu.yaml"
	wait_jobs "$array" "$after"
	dir=$(run_dir_of "$run")/slurm
	grep -q -- "--gpu 0" "$dir/element.sh" || fail "GPU elements do not use --gpu 0"
	gpus=$(sed -n 's/.*CUDA_VISIBLE_DEVICES=\([0-9]*\)$/\1/p' "$dir"/element-*.out | sort | tr '\n' ' ')
	case $gpus in
	"0 0 " | "1 1 " | "0 1 ") ;;
	*) fail "each element should see one GPU from Slurm, saw '$gpus': $(cat "$dir"/element-*.out)" ;;
	esac
	"$ARENA" --store "$STORE" status "$run" | grep -q "done done=2 total=2" ||
		fail "GPU run not done: $("$ARENA" --store "$STORE" status "$run"; cat "$dir"/*.out)"
	for r in $(find "$(run_dir_of "$run")/tasks" -name task_result.yaml); do
		# The clock check may reject an honest attempt whose two
		# emulated GPUs share this machine's CPUs (gpus_workers.sh);
		# YAML's single quotes write its apostrophe twice.
		grep -q "^status: ok" "$r" ||
			grep -Eq "inconsistent with the controller'{1,2}s clock" "$r" ||
			fail "$r: $(grep -E '^status|_message: [^n]' "$r")"
	done
	note "GPU run on Slurm: 2 elements, CUDA_VISIBLE_DEVICES from Slurm: $gpus, done"
fi
echo "slurm: ok"
