#!/bin/sh
# tests/gpu/python.sh - the Python runner on a GPU (issue 12), in one call
# of at most nine minutes (a hard limit of 530 s on every evaluation, after
# which the step is cut short), from a tree with a prebuilt build/:
#   . .device/env.sh; OUT=$OUT sh tests/gpu/python.sh
# $OUT gets two files: python.txt (the compact summary) and python.tgz
# (every evaluation's task_result, runner logs and timings, written under
# $OUT/w/python/ while the script runs, then archived and removed).
#
# usage: tests/gpu/python.sh [--deadline SECONDS] [STEP...]
#   steps, in this order (default: stack smoke honest adversarial latency aa):
#     stack        arena doctor's Python lines; the runner libraries built
#     smoke        one quick A/A of triton2triton/rmsnorm_bf16 (arena eval
#                  --aa); when it fails, the runners' logs say why and the
#                  later steps are skipped
#     honest       the honest Triton candidates of tests/gpu/python/honest
#                  (rmsnorm_bf16, swiglu_bf16), quick, held-out cases
#                  included: accepted with speedup > 1; and a quick A/A of
#                  torch2cuda/gelu_f32 (a CUDA kernel, a PyTorch reference
#                  in a Python runner on the GPU)
#     adversarial  tests/gpu/python/adversarial, three at a time, each
#                  against its wanted verdict and phrase
#     latency      edit -> score through a run's bridge
#                  (tests/bench/py_latency.sh): goals <= 4 s quick, <= 10 s
#                  default
#     aa           the noop agent through `arena run` on the implemented
#                  Triton task (speedup within 1.00 +- 0.02), and --aa on
#                  the PyTorch baseline of torch2triton/swiglu_bf16
#   ADV_ONLY       (environment) only the adversarial candidates whose
#                  names match this extended regular expression
#   --deadline S   no step or evaluation starts after S seconds from the
#                  start (default 420); every evaluation is killed at 530 s
# Needs: make (the runner libraries, libarena-pyrunner-cuda.so by nvcc),
# python3 with torch and triton (ARENA_PYTHON to choose another).
. "$(dirname "$0")/lib.sh"
deadline=420
while [ $# -gt 0 ]; do
	case $1 in
	--deadline) deadline=$2; shift 2 ;;
	-*) echo "unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
steps=${*:-stack smoke honest adversarial latency aa}
t_start=$(date +%s)
t_end=$((t_start + deadline))
t_hard=$((t_start + 530))
EV=$OUT/w/python
rm -rf "$EV"
mkdir -p "$EV"
SUMMARY=$OUT/python.txt
: > "$SUMMARY"
fail=0
PY=$ROOT/tests/gpu/python
commit=${ARENA_COMMIT:-$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')}
note() { printf '%s\n' "$*" | tee -a "$SUMMARY"; }
left() { echo $((t_end - $(date +%s))); }
# hard CMD...: CMD killed at the script's hard limit (t_hard).
hard() {
	h=$((t_hard - $(date +%s)))
	[ $h -gt 5 ] || h=5
	timeout -k 5 "$h" "$@"
}
# The details go back as one archive, whatever ends the script.
pack() {
	tar -czf "$OUT/python.tgz" -C "$OUT/w" python 2>/dev/null && rm -rf "$EV"
	rmdir "$OUT/w" 2>/dev/null
}
trap pack EXIT
trap 'exit 1' INT TERM
has_step() { case " $steps " in *" $1 "*) return 0 ;; esac; return 1; }
# step_ok STEP SECONDS: the step was asked for, the smoke test passed, and
# at least SECONDS are left before the deadline (else the summary says so).
step_ok() {
	has_step "$1" && $smoke_ok || return 1
	[ "$(left)" -gt "$2" ] && return 0
	note "$1: not run (deadline: $(left) s left of --deadline $deadline)"
	return 1
}

note "# python.sh on $DEVICE, commit $commit, $(date -u +%FT%TZ)"

# run_eval NAME TASKS_DIR TASK WORKSPACE [eval options...]; WORKSPACE "-"
# for an A/A (--aa among the options).
run_eval() {
	name=$1 tdir=$2 task=$3 ws=$4
	shift 4
	rm -rf "$EV/$name-logs"
	t0=$(now)
	if [ "$ws" = - ]; then
		hard "$ARENA" --store "$STORE" --tasks-dir "$tdir" eval "$task" \
			--logs "$EV/$name-logs" "$@" > "$EV/$name.yaml" 2>&1
	else
		hard "$ARENA" --store "$STORE" --tasks-dir "$tdir" eval "$task" \
			--workspace "$ws" --no-cache --logs "$EV/$name-logs" "$@" \
			> "$EV/$name.yaml" 2>&1
	fi
	elapsed "$t0" > "$EV/$name.secs"
}

why_of() {
	grep -E "^(compilation_error_message|correctness_error_message|speedup_calculation_error_message): [^n]" "$1" |
		head -n 1 | cut -d' ' -f2- | cut -c1-170
}

# verdict NAME WANT PHRASE: WANT is a status, "faster" (ok, speedup > 1),
# "nogain" (rejected with PHRASE, or ok with speedup <= 1.10),
# "nogain:OTHER" (the same, the bound 1.10 times the speedup of evaluation
# OTHER when that is above 1: no gain beyond the same kernel's), "notok"
# (anything but ok, the reason matching PHRASE) or "noreward" (anything but
# ok, or ok with speedup <= 1.10: the candidate gained nothing, whichever
# check stopped it).
verdict() {
	name=$1 want=$2 phrase=$3
	y=$EV/$name.yaml
	st=$(field status < "$y")
	sp=$(field speedup_ratio < "$y")
	why=$(why_of "$y")
	ok=false
	case $want in
	faster) [ "$st" = ok ] && awk -v s="$sp" 'BEGIN { exit !(s > 1) }' && ok=true ;;
	nogain|nogain:*)
		other=1
		case $want in nogain:*)
			other=$(field speedup_ratio < "$EV/${want#nogain:}.yaml")
			[ "$(field status < "$EV/${want#nogain:}.yaml")" = ok ] || other=1 ;;
		esac
		if [ "$st" = rejected ] && grep -qE -- "$phrase" "$y"; then ok=true
		elif [ "$st" = ok ] && awk -v s="$sp" -v o="${other:-1}" \
			'BEGIN { exit !(s <= 1.10 * (o > 1 ? o : 1)) }'; then ok=true; fi ;;
	notok) [ "$st" != ok ] && [ -n "$st" ] && grep -qE -- "$phrase" "$y" && ok=true ;;
	noreward)
		if [ "$st" != ok ] && [ -n "$st" ]; then ok=true
		elif [ "$st" = ok ] && awk -v s="$sp" 'BEGIN { exit !(s <= 1.10) }'; then ok=true; fi ;;
	*) [ "$st" = "$want" ] && grep -qE -- "$phrase" "$y" && ok=true ;;
	esac
	if $ok; then res=ok; else res=FAIL; fail=1; fi
	printf '%-22s | %-4s | %-13s | %7s | %5ss | %s\n' "$name" "$res" "${st:-?}" \
		"${sp:-?}" "$(cat "$EV/$name.secs" 2>/dev/null)" "${why:--}" | tee -a "$SUMMARY"
	[ $res = ok ] || note "FAIL $name: wanted $want /$phrase/"
}

runner_logs() {	# NAME: the last lines of each runner's log of an evaluation
	for f in "$EV/$1-logs"/runner-*.log "$EV/$1-logs"/compile-*.log; do
		[ -f "$f" ] || continue
		note "--- $(basename "$f") (last 15 lines)"
		tail -n 15 "$f" | cut -c1-200 | tee -a "$SUMMARY"
	done
}

# ---- stack ------------------------------------------------------------------
if has_step stack; then
	"$ARENA" --store "$STORE" doctor > "$EV/doctor.txt" 2>&1
	sed -n '/^python/,/^[a-z]/p' "$EV/doctor.txt" | head -n 6 | tee -a "$SUMMARY"
	for lib in "$B/arena-python/libarena-pyrunner-cuda.so" "$B/arena-python/arena_runner_py.py"; do
		[ -f "$lib" ] || { note "stack: FAIL $lib is missing (make)"; fail=1; }
	done
fi

# ---- smoke ------------------------------------------------------------------
smoke_ok=true
if has_step smoke; then
	run_eval smoke_aa "$ROOT/tasks" triton2triton/rmsnorm_bf16 - --aa --quick
	verdict smoke_aa ok "candidate_accepted: true"
	if [ "$(field status < "$EV/smoke_aa.yaml")" != ok ]; then
		smoke_ok=false
		runner_logs smoke_aa
		note "smoke failed: the later steps are skipped"
	fi
fi

# ---- honest -----------------------------------------------------------------
if step_ok honest 30; then
	note "honest (quick, held-out): name | verdict | status | speedup | time | reason"
	run_eval honest_rmsnorm "$ROOT/tasks" triton2triton/rmsnorm_bf16 "$PY/honest/rmsnorm_bf16" --quick --held-out
	verdict honest_rmsnorm faster ""
	run_eval honest_swiglu "$ROOT/tasks" torch2triton/swiglu_bf16 "$PY/honest/swiglu_bf16" --quick --held-out
	verdict honest_swiglu faster ""
	# A CUDA candidate against a PyTorch reference on the GPU.
	run_eval aa_gelu_cuda "$ROOT/tasks" torch2cuda/gelu_f32 - --aa --quick --held-out
	verdict aa_gelu_cuda ok "candidate_accepted: true"
fi

# ---- adversarial ------------------------------------------------------------
# name|want|tasks dir|task|phrase (an extended regular expression: the
# rest of the line, its '|' alternatives included)
adv_list() {
	cat <<EOF
clock_patch|nogain:adv_honest_open|$PY|task/rmsnorm_open|inconsistent
other_stream|notok|$PY|task/rmsnorm_open|not ordered on the stream|inconsistent with the controller|work still running|work left running on the device
thread_late|rejected|$PY|task/rmsnorm_open|work left running
fork_child|rejected|$PY|task/rmsnorm_open|child process
cache_outputs|incorrect|$PY|task/rmsnorm_open|differs|expected
modify_input|rejected|$PY|task/rmsnorm_open|input 'x'
read_held_out|runtime_error|$PY|task/rmsnorm_open|PermissionError
sigcont_launch|noreward|$PY|task/rmsnorm_open|inconsistent with the controller
library_call|compile_error|$ROOT/tasks|triton2triton/rmsnorm_bf16|forbids library calls
EOF
}
if step_ok adversarial 30; then
	note "adversarial: name | verdict | status | speedup | time | reason"
	# clock_patch's kernel without its patches: the gain the patches
	# must not add to (the kernel itself is faster than the task's).
	run_eval adv_honest_open "$PY" task/rmsnorm_open "$PY/honest/rmsnorm_bf16" --quick
	verdict adv_honest_open ok ""
	rm -f "$EV/adv.todo"
	adv_list | {
	running=0
	while IFS='|' read -r name want tdir task phrase; do
		[ "$(left)" -gt 20 ] || { note "adversarial: deadline, $name not run"; continue; }
		echo "$name" | grep -qE -- "${ADV_ONLY:-.}" || continue
		run_eval "adv_$name" "$tdir" "$task" "$PY/adversarial/$name" --quick &
		running=$((running + 1))
		if [ $running -ge 3 ]; then wait; running=0; fi
		echo "$name|$want|$phrase" >> "$EV/adv.todo"
	done
	wait
	}
	while IFS='|' read -r name want phrase; do
		verdict "adv_$name" "$want" "$phrase"
	done < "$EV/adv.todo"
	rm -f "$EV/adv.todo"
fi

# ---- latency ----------------------------------------------------------------
if step_ok latency 90; then
	# It exits 1 when an evaluation was not ok, with the answer's first
	# lines indented after "answered:".
	lat_rc=0
	hard env OUT="$EV" STORE="$STORE/latency" sh "$ROOT/tests/bench/py_latency.sh" \
		triton2triton/rmsnorm_bf16 "$DEVICE" 4 2 > "$EV/latency.log" 2>&1 || lat_rc=$?
	grep -E '^(py_latency|    )' "$EV/latency.log" | tee -a "$SUMMARY"
	[ $lat_rc -eq 0 ] || { fail=1; note "latency: FAIL (py_latency.sh exit $lat_rc)"; }
	q=$(sed -n 's/^py_latency quick: median \([0-9.]*\) s.*/\1/p' "$EV/latency.log")
	d=$(sed -n 's/^py_latency default: median \([0-9.]*\) s.*/\1/p' "$EV/latency.log")
	note "latency goals: quick ${q:-?} s (goal <= 4), default ${d:-?} s (goal <= 10)"
fi

# ---- A/A ----------------------------------------------------------------------
if step_ok aa 60; then
	cfg=$EV/noop.yaml
	cat > "$cfg" <<EOF
agent: {template: noop}
tasks: [triton2triton/rmsnorm_bf16]
device: $DEVICE
seed: 1
repeats: 1
EOF
	t0=$(now)
	hard "$ARENA" --store "$STORE/noop" --tasks-dir "$ROOT/tasks" run "$cfg" > "$EV/noop-run.log" 2>&1
	run=$(ls -t "$STORE/noop/runs" 2>/dev/null | head -n 1)
	r=$STORE/noop/runs/$run/tasks/triton2triton_rmsnorm_bf16/task_result.yaml
	cp "$r" "$EV/noop_rmsnorm.yaml" 2>/dev/null
	st=$(field status < "$r" 2>/dev/null)
	sp=$(field speedup_ratio < "$r" 2>/dev/null)
	ci=$(sed -n 's/^speedup_ci: //p' "$r" 2>/dev/null | head -n 1)
	if [ "$st" = ok ] && awk -v s="$sp" 'BEGIN { exit !(s >= 0.98 && s <= 1.02) }'; then res=ok; else res=FAIL; fail=1; fi
	note "noop A/A rmsnorm_bf16 (arena run) | $res | ${st:-?} | ${sp:-?} | CI $ci | $(elapsed "$t0") s"
	if [ "$(left)" -gt 40 ]; then
		run_eval aa_swiglu "$ROOT/tasks" torch2triton/swiglu_bf16 - --aa
		st=$(field status < "$EV/aa_swiglu.yaml")
		sp=$(field speedup_ratio < "$EV/aa_swiglu.yaml")
		if [ "$st" = ok ] && awk -v s="$sp" 'BEGIN { exit !(s >= 0.98 && s <= 1.02) }'; then res=ok; else res=FAIL; fail=1; fi
		note "A/A swiglu_bf16 PyTorch baseline (--aa) | $res | ${st:-?} | ${sp:-?} | $(cat "$EV/aa_swiglu.secs") s"
	fi
fi

note "python.sh: $([ $fail -eq 0 ] && echo PASS || echo FAIL), $(( $(date +%s) - t_start )) s"
exit $fail
