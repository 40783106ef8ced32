#!/bin/sh
# tests/e2e/aka_run.sh - AgentKernelArena task folders through the CLI, as
# a user of AKA would bring them (docs/aka.md): `arena tasks aka:PATH`
# lists them with their family and says which are skipped and why;
# `arena run` with the noop agent evaluates them (tasks: [aka:PATH]),
# gives each its verdict, writes AKA's dashboard files (reports/) in AKA's
# formats beside arena's own, and a later `arena status`/report in another
# process still finds the tasks (the store remembers the root); `arena
# eval` evaluates a workspace; `arena check-tasks` flags lying harnesses
# and passes an honest one.  A harness that fails its own kernel as
# shipped (one that prints FAIL and exits 0) is skipped in a run, with
# the reason, and flagged by check-tasks.
# The fixtures are tests/aka/tasks (PyTorch on the CPU).  arena is given
# the interpreter checked here (ARENA_PYTHON, else the first of PATH's
# python3 and /usr/bin/python3 that imports torch); skips without torch.
. "$(dirname "$0")/lib.sh"
AKA="$ROOT/tests/aka/tasks"
PY=${ARENA_PYTHON:-}
if [ -z "$PY" ]; then
	for p in "$(command -v python3)" /usr/bin/python3; do
		[ -n "$p" ] && "$p" -c 'import torch' 2>/dev/null && { PY=$p; break; }
	done
fi
[ -n "$PY" ] && "$PY" -c 'import torch' 2>/dev/null ||
	{ echo "no python3 with torch"; exit 77; }
export ARENA_PYTHON="$PY"

note "arena tasks lists AKA folders with their family and skip reasons"
out=$("$ARENA" tasks "aka:$AKA/triton2triton") || fail "arena tasks: $out"
echo "$out" | grep -q '^aka/triton2triton/vllm_rmsnorm  *triton2triton  *python  *aka:vllm' ||
	fail "vllm_rmsnorm not listed as a triton2triton python vllm task: $out"
echo "$out" | grep -q '^aka/triton2triton/rocmbench_softmax .*aka:rocmbench' ||
	fail "rocmbench style not detected: $out"
echo "$out" | grep -q '^aka/triton2triton/platform_skip .*SKIPPED: the task folder marks itself skip: needs the gfx950' ||
	fail "platform_skip not reported skipped with its reason: $out"

note "a tree naming a triton task is refused on device host, with the reason"
cfg="$T/aka.yaml"
write_aka_config() {	# file, tasks yaml, [extra yaml]
	cat > "$1" <<CFG
agent: {template: noop}
tasks: $2
device: host
timing: {case_budget_s: 0.2, blocks: 2, min_pairs: 3, max_pairs: 40}
${3:-}
CFG
}
write_aka_config "$T/gpu.yaml" "[aka:$AKA]"
out=$("$ARENA" --store "$STORE" run "$T/gpu.yaml" 2>&1) &&
	fail "a run of a triton task on device host was accepted: $out"
echo "$out" | grep -q 'vllm_rmsnorm_gpu: a triton task needs a GPU' ||
	fail "the refusal does not name the task and the reason: $out"

# A user's checkout: the fixture tree less its one triton (GPU) folder,
# named as a whole (aka:CHECKOUT, whose tasks/ holds the folders).
CO="$T/AgentKernelArena"
# The folders of the harness styles test_aka_eval covers one by one
# (pytest fixtures, direct launches, self-timing and aliasing harnesses,
# an unrecordable one, a kernel keeping state) are left out: they add
# time, not coverage here.
mkdir -p "$CO" && cp -R "$AKA" "$CO/tasks" &&
	rm -rf "$CO/tasks/triton2triton/vllm_rmsnorm_gpu" \
		"$CO/tasks/instruction2triton" \
		"$CO/tasks/triton2triton/rocmbench_launch" \
		"$CO/tasks/triton2triton/vllm_inline_timing" \
		"$CO/tasks/triton2triton/vllm_unrecordable" \
		"$CO/tasks/triton2triton/geak_alias" \
		"$CO/tasks/triton2triton/geak_stateful" || fail "copying the fixtures"
CO_TASKS=$(cd "$CO/tasks" && pwd -P)

note "arena run with the noop agent on a whole AKA tree: four styles, liars, skips"
write_aka_config "$cfg" "[aka:$CO]"
"$ARENA" --store "$STORE" run "$cfg" >"$T/run.out" 2>&1 || {
	cat "$T/run.out"; fail "arena run"; }
run=$(latest_run)
dir=$(run_dir_of "$run")
sum="$dir/summary.csv"
[ "$(grep -c '^aka/' "$sum")" = 8 ] ||
	fail "the tree has 8 runnable-or-skipped folders; summary.csv: $(cat "$sum")"
# gpumode: the kernel is a PyTorch extension built from the .hip file.
[ "$(csv_field "$sum" aka/hip2hip/gpumode_leaky 6)" = ok ] ||
	fail "gpumode_leaky: status '$(csv_field "$sum" aka/hip2hip/gpumode_leaky 6)' (expected ok)"
gws="$dir/tasks/aka_hip2hip_gpumode_leaky/workspace"
[ -f "$gws/hip/hip_7_LeakyScale.hip" ] && [ -f "$gws/TASK.md" ] ||
	fail "the gpumode workspace lacks its .hip file or TASK.md"
grep -q "built as a PyTorch extension" "$gws/TASK.md" &&
	grep -q "may overwrite its arguments" "$gws/TASK.md" ||
	fail "the gpumode TASK.md does not say how its extension is judged"
for t in vllm_rmsnorm rocmbench_softmax geak_scale; do
	st=$(csv_field "$sum" "aka/triton2triton/$t" 6)
	[ "$st" = ok ] || fail "$t: status '$st' (expected ok)"
	[ "$(csv_field "$sum" "aka/triton2triton/$t" 2)" = triton2triton ] ||
		fail "$t: Task Type is not triton2triton"
done
# A harness that prints FAIL and exits 0 fails its own kernel as shipped:
# the task's fault, skipped with that reason (check-tasks flags it, below).
[ "$(csv_field "$sum" aka/triton2triton/geak_lies 6)" = skipped ] ||
	fail "geak_lies: a harness that prints FAIL and exits 0 must not pass"
grep -q "^    skipped: the kernel as shipped fails the task's own correctness check: the harness printed .* but exited 0" "$dir/report.txt" ||
	fail "report.txt does not give geak_lies's reason: $(cat "$dir/report.txt")"
for t in platform_skip vllm_fnuz geak_lies; do
	[ "$(csv_field "$sum" "aka/triton2triton/$t" 6)" = skipped ] ||
		fail "$t: not skipped"
	grep -q "^SKIPPED aka/triton2triton/$t" "$dir/report.txt" ||
		fail "report.txt does not list $t as SKIPPED"
done
grep -q "^    skipped: fp8 'fnuz' types are AMD-only: " "$dir/report.txt" ||
	fail "report.txt does not give vllm_fnuz's reason once: $(cat "$dir/report.txt")"
# A harness that checks nothing does not decide arena's verdict: the
# kernel as shipped is checked against itself (arena check-tasks flags
# the harness, below).
[ "$(csv_field "$sum" aka/triton2triton/vllm_checks_nothing 6)" = ok ] ||
	fail "vllm_checks_nothing: its own kernel is not accepted"
# The workspace holds the whole folder, the stub helper replaced.
ws="$dir/tasks/aka_triton2triton_rocmbench_softmax/workspace"
[ -f "$ws/softmax.py" ] && [ -f "$ws/TASK.md" ] || fail "workspace lacks the folder"
grep -q PytestBenchmarker "$ws/performance_utils_pytest.py" ||
	fail "the helper stub was not replaced by arena's stand-in"
# Copied from the run's read-only trusted copy, yet the agent's to write.
case $(stat -c %A "$ws/performance_utils_pytest.py") in -rw*) ;; *)
	fail "workspace files are not writable: $(stat -c %A "$ws/performance_utils_pytest.py")" ;;
esac

note "AKA's dashboard files, in AKA's formats"
r="$dir/reports"
for f in overall_summary.csv task_type_breakdown.json overall_report.txt; do
	[ -s "$r/$f" ] || fail "reports/$f missing"
done
head -n 1 "$r/overall_summary.csv" | tr -d '\r' |
	grep -qx 'Task Name,Task Type,Score,Speedup,Optimization_summary' ||
	fail "overall_summary.csv header is not AKA's"
# The format, not the figures: a noop A/A under CI's load can come out
# at 0.79 (score 198.6), so the score is any number with four decimals.
grep -q '^triton2triton/vllm_rmsnorm,triton2triton,[0-9]\{1,3\}\.[0-9]\{4\},[0-9]\.[0-9]\{4\},' \
	"$r/overall_summary.csv" || fail "overall_summary.csv row: $(cat "$r/overall_summary.csv")"
grep -q 'platform_skip\|vllm_fnuz' "$r/overall_summary.csv" &&
	fail "a skipped task is in AKA's summary (AKA filters them out)"
# The line pattern AKA's dashboard reads its statuses with.
$PY - "$r" <<'PY' || fail "AKA's dashboard pattern does not read overall_report.txt"
import json, re, sys
d = sys.argv[1]
pat = re.compile(r"^(PASS|FAIL|PARTIAL)\s+(\S+)\s+Score:\s*([0-9.]+)\s+Speedup:\s*([0-9.]+)x\s*$")
got = {}
for line in open(d + "/overall_report.txt"):
    m = pat.match(line.strip())
    if m:
        got[m.group(2)] = m.group(1)
want = {"triton2triton/vllm_rmsnorm": "PASS", "triton2triton/rocmbench_softmax": "PASS",
        "triton2triton/geak_scale": "PASS",
        "triton2triton/vllm_checks_nothing": "PASS",
        "hip2hip/gpumode_leaky": "PASS"}
assert got == want, got
b = json.load(open(d + "/task_type_breakdown.json"))
assert b["agent"] == "noop" and b["overall"]["total_tasks"] == 5, b["overall"]
assert abs(b["overall"]["correctness_pass_rate"] - 100.0) < 1e-9
assert b["task_types"]["triton2triton"]["count"] == 4
assert b["task_types"]["hip2hip"]["count"] == 1
PY

note "another process finds the run's AKA tasks (the store remembers the root)"
grep -q "^aka	$CO_TASKS\$" "$STORE/task_roots" || fail "store/task_roots: $(cat "$STORE/task_roots")"
"$ARENA" --store "$STORE" status "$run" >"$T/status.out" 2>&1 ||
	{ cat "$T/status.out"; fail "arena status"; }

note "a task_roots: entry names the same checkout"
write_aka_config "$T/roots.yaml" "[aka/triton2triton/platform_skip]" \
	"task_roots: {aka: $CO}"
"$ARENA" --store "$STORE" run "$T/roots.yaml" >"$T/roots.out" 2>&1 ||
	{ cat "$T/roots.out"; fail "arena run with task_roots:"; }
[ "$(csv_field "$(run_dir_of "$(latest_run)")/summary.csv" \
	aka/triton2triton/platform_skip 6)" = skipped ] ||
	fail "task_roots: did not select the checkout's platform_skip"

note "arena eval of a workspace and arena check-tasks"
out=$("$ARENA" --store "$STORE" eval aka/triton2triton/vllm_rmsnorm \
	--workspace "$ROOT/tests/aka/candidates/vllm_rmsnorm/wrong" --quick 2>&1)
echo "$out" | grep -q '^status: incorrect' || fail "eval of a wrong kernel: $out"
out=$("$ARENA" --store "$STORE" check-tasks "aka:$CO/tasks/triton2triton/vllm_checks_nothing" 2>&1) &&
	fail "check-tasks passed a harness that checks nothing: $out"
echo "$out" | grep -q '^aka/triton2triton/vllm_checks_nothing: FAIL' &&
	echo "$out" | grep -q '^  aka  *FAIL its correctness check passes a corrupted kernel' ||
	fail "a harness that checks nothing is not flagged: $out"
out=$("$ARENA" --store "$STORE" check-tasks "aka:$CO/tasks/triton2triton/geak_lies" 2>&1) &&
	fail "check-tasks passed a harness that prints FAIL and exits 0: $out"
echo "$out" | grep -q "^  aka  *FAIL the kernel as shipped fails the task's own correctness check: the harness printed" ||
	fail "a harness that prints FAIL and exits 0 is not flagged: $out"
out=$("$ARENA" --store "$STORE" check-tasks "aka:$CO/tasks/triton2triton/vllm_rmsnorm" \
	"aka:$CO/tasks/triton2triton/platform_skip" 2>&1) ||
	fail "check-tasks failed an honest AKA folder or a skipped one: $out"
echo "$out" | grep -q '^  aka  *ok   vllm harness: the kernel as shipped passes its check and a corrupted one fails it' ||
	fail "check-tasks does not pass vllm_rmsnorm's harness: $out"
echo "$out" | grep -q '^  aka  *skip the task folder marks itself skip: needs the gfx950' ||
	fail "check-tasks does not skip platform_skip with its reason: $out"
out=$("$ARENA" --store "$STORE" check-tasks --static "aka:$CO/tasks/triton2triton/vllm_rmsnorm" 2>&1) ||
	fail "check-tasks --static on an AKA folder: $out"
echo "$out" | grep -q '^  aka  *skip .*not with --static' ||
	fail "check-tasks --static does not say why the AKA check is skipped: $out"
echo "ok"
