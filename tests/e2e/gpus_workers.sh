# `arena run --gpus 0,1`: one worker per device, on two emulated GPUs (the
# fake GPU runner sees as many devices as CUDA_VISIBLE_DEVICES names).
# Every attempt finishes, both devices evaluate some, the run's events say
# how it ran, and a bad --gpus list or a device that does not exist gets a
# clear answer.
. "$(dirname "$0")/lib.sh"
FAKE=$ROOT/$B/tests/arena-runner-fakegpu
[ -x "$FAKE" ] || { echo "skip: $FAKE is not built"; exit 77; }
export ARENA_RUNNER_CUDA=$FAKE NVCC=$ROOT/tests/gpu/fake/nvcc
export ARENA_TASKS_DIR=$ROOT/tests/gpu/fake CUDA_VISIBLE_DEVICES=0,1

cat > "$T/run.yaml" <<CFG
agent: {template: noop}
tasks: [task/fakepoly]
device: cuda:0
repeats: 4
timing: {case_budget_s: 0.2, blocks: 1, min_pairs: 4, max_pairs: 40}
CFG

"$ARENA" --store "$STORE" run "$T/run.yaml" --gpus 0,1 > "$T/run.log" 2>&1 ||
	{ cat "$T/run.log"; fail "arena run --gpus 0,1 failed"; }
grep -q "one worker per device: 0,1" "$T/run.log" ||
	fail "the run did not say it ran one worker per device"
run=$(latest_run)
results=$(find "$(run_dir_of "$run")/tasks" -name task_result.yaml)
[ "$(printf '%s\n' "$results" | grep -c .)" = 4 ] ||
	fail "expected 4 task results, found: $results"
# The emulated devices run their "kernels" on this machine's CPUs, so two
# workers timing at once contend for them, which the clock check can see
# (docs/cli.md); separate GPUs do not share their work that way.  Any
# other verdict on these honest attempts is a failure.  task_result.yaml
# quotes the message in YAML's single quotes, where an apostrophe is
# written twice.
for r in $results; do
	grep -q '^status: ok' "$r" && continue
	grep -q '^status: rejected' "$r" &&
		grep -Eq "inconsistent with the controller'{1,2}s clock" "$r" &&
		{ note "$(basename "$(dirname "$r")"): clock check under CPU contention"; continue; }
	fail "$r: $(grep -E '^status|_message: [^n]' "$r")"
done
used=$(cat $results | sed -n 's/^ *device: .*\(cuda:[0-9]*\).*/\1/p' | sort -u |
	tr '\n' ' ')
[ "$used" = "cuda:0 cuda:1 " ] ||
	fail "both devices should have evaluated attempts; used: '$used'"
grep -q "^Ran on:  cuda:0 Arena Fake GPU (sm_00), cuda:1 Arena Fake GPU" \
	"$(run_dir_of "$run")/report.txt" ||
	fail "report.txt does not name both devices"
note "4 attempts on two workers, devices used: $used"

# The same from the config (`gpus:`), as a run launched through the
# mount would have it.
sed 's/^repeats: 4$/repeats: 4\ngpus: [0, 1]/' "$T/run.yaml" > "$T/cfg_gpus.yaml"
"$ARENA" --store "$STORE" run "$T/cfg_gpus.yaml" > "$T/run2.log" 2>&1 ||
	{ cat "$T/run2.log"; fail "a run with gpus: [0, 1] failed"; }
grep -q "one worker per device: 0,1" "$T/run2.log" ||
	fail "gpus: [0, 1] did not give one worker per device"
run=$(latest_run)
used=$(find "$(run_dir_of "$run")/tasks" -name task_result.yaml -exec cat {} + |
	sed -n 's/^ *device: .*\(cuda:[0-9]*\).*/\1/p' | sort -u | tr '\n' ' ')
[ "$used" = "cuda:0 cuda:1 " ] || fail "gpus: [0, 1] used '$used'"
sed 's/^repeats: 4$/repeats: 4\ngpus: [0, 7]/' "$T/run.yaml" > "$T/cfg_bad.yaml"
"$ARENA" --store "$STORE" run "$T/cfg_bad.yaml" > "$T/bad3.log" 2>&1 &&
	fail "gpus: [0, 7] was accepted with two devices"
grep -q "cfg_bad.yaml: gpus: device cuda:7 does not exist" "$T/bad3.log" ||
	fail "unclear error for gpus: [0, 7]: $(cat "$T/bad3.log")"
# --gpus stands in for the config's list (another machine, fewer GPUs).
"$ARENA" --store "$STORE" run "$T/cfg_bad.yaml" --gpus 1 > "$T/over.log" 2>&1 ||
	{ cat "$T/over.log"; fail "--gpus 1 did not override gpus: [0, 7]"; }
grep -q "one worker per device: 1\$" "$T/over.log" ||
	grep -q "one worker per device: 1)" "$T/over.log" ||
	fail "--gpus 1 did not run one worker on device 1"
note "config gpus: [0, 1] used $used"

# A list that is not one.
if "$ARENA" --store "$STORE" run "$T/run.yaml" --gpus 0,x > "$T/bad.log" 2>&1
then
	fail "--gpus 0,x was accepted"
fi
grep -q -- "--gpus '0,x': give device indices" "$T/bad.log" ||
	fail "unclear error for --gpus 0,x: $(cat "$T/bad.log")"
"$ARENA" --store "$STORE" run "$T/run.yaml" --gpus 1,1 > "$T/bad2.log" 2>&1 &&
	fail "--gpus 1,1 was accepted"
grep -q "device 1 is named twice" "$T/bad2.log" ||
	fail "unclear error for --gpus 1,1: $(cat "$T/bad2.log")"

# A device the runtime does not have: refused before any run is created.
runs_before=$(ls "$STORE/runs" | wc -l)
if "$ARENA" --store "$STORE" run "$T/run.yaml" --gpus 0,5 > "$T/missing.log" 2>&1
then
	fail "--gpus 0,5 was accepted with two devices"
fi
grep -q "device cuda:5 does not exist: the cuda runtime sees 2 devices" \
	"$T/missing.log" || fail "a missing device is not named: $(cat "$T/missing.log")"
[ "$(ls "$STORE/runs" | wc -l)" = "$runs_before" ] ||
	fail "a run was created for a missing device"
note "missing device: $(cat "$T/missing.log")"
echo "ok"
