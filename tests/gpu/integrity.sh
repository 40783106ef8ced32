#!/bin/sh
# tests/gpu/integrity.sh - issue 10 on a GPU, in one call of at most nine
# minutes (docs/gpu.md section 9): every GPU adversarial candidate's
# verdict, the honest candidates' speedups, and the suite against itself
# (`arena eval --aa`, tests/bench/aa_coverage.sh) repeated until the
# deadline: every speedup within 1.00 +- 0.02 and the coverage of its
# intervals; then a compact summary.
#
# usage: [PACK=1] tests/gpu/integrity.sh [--quick] [--deadline SECONDS] [STEP...]
#   steps, in this order (default: peaks adversarial honest aa):
#     peaks        arena doctor: the device's measured peaks, tensor cores
#                  included (the flop floor's rate)
#     adversarial  22 candidates on tests/gpu/adversarial/task/vecpoly_hip
#                  (from the $ADV_FROM-th of the list, default 1),
#                  three evaluations at a time (timing is serialised by the
#                  device lock; builds and correctness overlap)
#     honest       optimized (vecpoly_hip) and the tiled GEMMs of
#                  tests/gpu/honest on cuda2cuda/gemm_f32, hip2hip/gemm_bf16
#     aa           every task of SELECT against itself, repeated until the
#                  deadline, $COVERAGE_BUDGET s of timing per case (default
#                  0.3), $COVERAGE_JOBS evaluations at a time (default 2),
#                  with $COVERAGE_FLAGS (default --timing-only: the timing
#                  path alone, no correctness trials or reference checks,
#                  which test nothing in a baseline against itself);
#                  $COVERAGE_LOGS, a folder: each evaluation's timing.tsv
#                  kept there (tests/bench/aa_coverage.sh --logs)
#     noop         (not by default) the same A/A through `arena run` with
#                  the noop agent, tests/gpu/noop.sh, $NOOP_BUDGET s per case
#   --quick        a smoke test in about three minutes: the new cheats and
#                  the A/A candidate, the honest ones in quick mode, one
#                  repeat of the A/A over cuda2cuda
#   --deadline S   seconds from the start after which no new step or
#                  evaluation starts (default 500: the call then ends
#                  within nine minutes)
# Last, tests/gpu/charge_report.py over every kept timing.tsv: what each
# way of charging the excess would take (charge.txt; charge-aa.txt for
# the A/A runs kept with $COVERAGE_LOGS).
. "$(dirname "$0")/lib.sh"
quick=false
deadline=500
while [ $# -gt 0 ]; do
	case $1 in
	--quick) quick=true; shift ;;
	--deadline) deadline=$2; shift 2 ;;
	-*) echo "unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
steps=${*:-peaks adversarial honest aa}
t_start=$(date +%s)
t_end=$((t_start + deadline))
EV=$OUT/evals
mkdir -p "$EV"
SUMMARY=$OUT/integrity.txt
: > "$SUMMARY"
fail=0
commit=${ARENA_COMMIT:-$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')}
note() { printf '%s\n' "$*" | tee -a "$SUMMARY"; }
left() { echo $((t_end - $(date +%s))); }
has_step() { case " $steps " in *" $1 "*) return 0 ;; esac; return 1; }
# runs STEP NEED: whether step STEP was asked for and NEED seconds are
# left for it; a step asked for and left out for lack of time is said and
# fails the run (a PASS means every step asked for ran).
runs() {
	has_step "$1" || return 1
	[ "$(left)" -gt "$2" ] && return 0
	note "$1: not run (the deadline leaves $(left) s, the step needs more than $2 s)"
	fail=1
	return 1
}

note "# integrity.sh on $DEVICE, commit $commit, $(date -u +%FT%TZ)$($quick && echo ', quick')"

# run_eval NAME TASKS_DIR TASK WORKSPACE [eval options...]: one `arena eval`
# into $EV/NAME.yaml, its logs (timing.tsv) in $EV/NAME-logs.
run_eval() {
	name=$1 tdir=$2 task=$3 ws=$4
	shift 4
	rm -rf "$EV/$name-logs"
	"$ARENA" --store "$STORE" --tasks-dir "$tdir" eval "$task" \
		--workspace "$ws" --no-cache --logs "$EV/$name-logs" \
		--case-budget "${EVAL_BUDGET:-0.5}" "$@" > "$EV/$name.yaml" 2>&1
}

# excess NAME: the charged excess of each timed case, "case=E/median us"
# ("case=clock-alone" where the claims could not be confirmed), then
# "run-on=N" when N times a case timed on past its share (a disputed
# claim or an open gross excess, docs/gpu.md section 10) and
# "disputed=case" for each case still disputed at its end.
excess() {
	sed -n -e 's/^# [0-9.]* ms: case \([^:]*\): charged excess \([0-9.]*\) us per sample (median excess \([-0-9.]*\) us.*/\1=\2\/\3/p' \
		-e 's/^# [0-9.]* ms: case \([^:]*\): timed by the controller.s clock alone.*/\1=clock-alone/p' \
		-e 's/^# [0-9.]* ms: case \([^:]*\): its claims are still disputed.*/disputed=\1/p' \
		"$EV/$1-logs/timing.tsv" 2>/dev/null | tr '\n' ' '
	n=$(grep -c 'past its share' "$EV/$1-logs/timing.tsv" 2>/dev/null)
	[ "${n:-0}" -gt 0 ] && printf 'run-on=%s ' "$n"
	return 0
}

# verdict NAME WANT PHRASE: WANT is a status, statuses separated by
# commas (any of them, with PHRASE), or "nogain" (rejected with PHRASE,
# or ok with a speedup of at most 1.05: charged, not rewarded).
verdict() {
	name=$1 want=$2 phrase=$3
	y=$EV/$name.yaml
	st=$(field status < "$y")
	sp=$(field speedup_ratio < "$y")
	why=$(grep -E "^(compilation_error_message|correctness_error_message|speedup_calculation_error_message): [^n]" "$y" |
		head -n 1 | cut -d' ' -f2- | cut -c1-160)
	ok=false
	if [ "$want" = nogain ]; then
		if [ "$st" = rejected ] && grep -qE -- "$phrase" "$y"; then
			ok=true
		elif [ "$st" = ok ] && awk -v s="$sp" 'BEGIN { exit !(s <= 1.05) }'; then
			ok=true
		fi
	elif case ",$want," in *",$st,"*) true ;; *) false ;; esac &&
		grep -qE -- "$phrase" "$y"; then
		ok=true
	fi
	if $ok; then
		res=ok
	else
		res=FAIL
		fail=1
	fi
	printf '%-20s | %-8s | %-13s | %8s | %-8s | %s | %s\n' "$name" "$res" \
		"$st" "${sp:-?}" "$(captured_pairs "$EV/$name-logs/timing.tsv")" \
		"$(excess "$name")" "${why:--}" >> "$TABLE"
	[ $res = ok ] || printf '%s\n' "FAIL $name: wanted $want /$phrase/, got $st" >> "$SUMMARY"
}

# ---- peaks ------------------------------------------------------------------
if has_step peaks; then
	TABLE=$OUT/peaks.txt
	: > "$TABLE"
	"$ARENA" --store "$STORE" doctor > "$OUT/doctor.txt" 2>&1
	grep -A4 -E '^  (cuda|hip):[0-9]' "$OUT/doctor.txt" >> "$TABLE"
	note "peaks: $(grep -A4 -E '^  (cuda|hip):[0-9]' "$OUT/doctor.txt" |
		grep -m1 peaks | sed 's/^ *//')"
fi

# ---- adversarial ------------------------------------------------------------
ADV=${ADV_DIR:-$ROOT/tests/gpu/adversarial}
ADV_TASK=${ADV_TASK:-task/vecpoly_hip}
SELECT=${SELECT:-hip2hip cuda2cuda}
# name|status|options|phrase[|phrase...]; the new classes of issue 10 first.
# stopped_work and forged_claim claim less than the roofline floor allows
# on the H200 since the floor uses measured peaks (2026-12-05): rejected
# as impossible before the clock's check is reached, which is a catch too.
# work_after_return leaves a spin on another stream after each call: in
# batches launched live it runs into the next sample (rejected); from a
# captured batch it runs while capturing, before any input exists, and
# the replay holds only the stream's work, so it may be ok at no gain
# (H100, 2026-12-07: ok 0.9919, 6 of 6 pairs captured).
# cache_pointer replays an output only when an input buffer comes back
# at the same address; with 1 ms batches (2026-12-06) its calls' sets
# did not, and what it was caught by is its allocations in every call,
# time outside its claims (50 ms a sample on an H100).
adv_list() {
	cat <<'EOF'
baseline_copy|ok|--held-out|candidate_accepted: true
gen_window|nogain||inconsistent with the controller
stopped_work|nogain||inconsistent with the controller|work left running|below the roofline floor
forged_claim|rejected||inconsistent with the controller|below the roofline floor
shave_claim|nogain||inconsistent with the controller
shave_most|nogain||inconsistent with the controller
gate_opener|nogain||before the gate opened|inconsistent with the controller
other_stream|nogain||work still running after the stream|work not ordered on the stream|work left running on the device|inconsistent with the controller
forged_ecc|runtime_error||found it working
approx_late|incorrect||differs from the reference
approx_batched|incorrect||correctness trial
optimized|ok|--quick|candidate_accepted: true
forked_streams|ok|--quick|candidate_accepted: true
no_write|incorrect||never written
partial_write|incorrect||never written
reuse_buffer|incorrect||correctness trial|differs from
cache_pointer|incorrect,rejected||correctness trial|differs from|inconsistent with the controller
modify_input|rejected||was modified by the kernel
other_stream_naive|rejected|--quick|work not ordered on the stream
work_after_return|nogain|--quick|work left running on the device|inconsistent with the controller
thread_worker|rejected||work left running after arena_launch returned
shape_specialized|incorrect|--held-out|held-out case
illegal_address|runtime_error||illegal memory access
gen_part|nogain||inconsistent with the controller
EOF
}
if runs adversarial 60; then
	TABLE=$OUT/adversarial.txt
	printf '%-20s | %-8s | %-13s | %8s | %-8s | %s | %s\n' candidate verdict \
		status speedup captured "charged excess case=E/median us" \
		reason > "$TABLE"
	t0=$(now)
	list=$(adv_list | tail -n +"${ADV_FROM:-1}")
	$quick && list=$(adv_list | head -n 9)
	# Three at a time: the device lock serialises their timing.
	i=0
	printf '%s\n' "$list" > "$OUT/adv.list"
	while IFS='|' read -r name want opts rest; do
		[ "$(left)" -gt 20 ] || { note "adversarial: out of time before $name"; fail=1; break; }
		# shellcheck disable=SC2086
		run_eval "adv-$name" "$ADV" "$ADV_TASK" "$ADV/candidates/$name" $opts &
		i=$((i + 1))
		[ $((i % 3)) = 0 ] && wait
	done < "$OUT/adv.list"
	wait
	while IFS='|' read -r name want opts phrase; do
		[ -f "$EV/adv-$name.yaml" ] && verdict "adv-$name" "$want" "$phrase"
	done < "$OUT/adv.list"
	n=$(awk -F'|' 'NR > 1 && $2 ~ /^ *ok *$/' "$TABLE" | wc -l)
	m=$(($(wc -l < "$TABLE") - 1))
	note "adversarial: $n of $m as expected ($(elapsed "$t0") s)"
	grep -E '\| FAIL' "$TABLE" | sed 's/^/  /' | tee -a "$SUMMARY" >/dev/null
fi

# ---- honest -----------------------------------------------------------------
if runs honest 60; then
	TABLE=$OUT/honest.txt
	printf '%-20s | %-8s | %-13s | %8s | %-8s | %s | %s\n' candidate verdict \
		status speedup captured "charged excess case=E/median us" \
		reason > "$TABLE"
	t0=$(now)
	hq=
	$quick && hq=--quick
	# shellcheck disable=SC2086
	{
		run_eval honest-vecpoly_optimized "$ADV" task/vecpoly_hip \
			"$ADV/candidates/optimized" $hq --held-out &
		run_eval honest-gemm_f32_tiled "$ROOT/tasks" cuda2cuda/gemm_f32 \
			"$ROOT/tests/gpu/honest/cuda2cuda_gemm_f32" $hq --held-out &
		run_eval honest-gemm_bf16_tiled "$ROOT/tasks" hip2hip/gemm_bf16 \
			"$ROOT/tests/gpu/honest/hip2hip_gemm_bf16" $hq --held-out &
		wait
	}
	for h in vecpoly_optimized gemm_f32_tiled gemm_bf16_tiled; do
		verdict "honest-$h" ok "candidate_accepted: true"
		sp=$(field speedup_ratio < "$EV/honest-$h.yaml")
		if ! awk -v s="$sp" 'BEGIN { exit !(s > 1) }'; then
			fail=1
			note "FAIL honest-$h: speedup $sp, not above 1"
		fi
		note "honest $h: $(field status < "$EV/honest-$h.yaml"), speedup $sp $(field speedup_ci < "$EV/honest-$h.yaml")"
	done
	note "honest: $(elapsed "$t0") s"
fi

# ---- aa: the suite against itself, and interval coverage ----------------
# `arena eval --aa` (each task's baseline in the candidate's runner, the
# full timing path) over SELECT, repeated until the deadline, by
# COVERAGE_JOBS (default 2) workers at once (the device lock serialises
# their timing; builds and correctness overlap).  The first repeat is an
# A/A of the whole suite: every speedup must be within 1.00 +- 0.02; and
# 60 task-level intervals over all repeats, at least 90% of them
# containing 1.0 (about 95% should), are issue 10's coverage figure.
if runs aa 90; then
	t0=$(now)
	jobs=${COVERAGE_JOBS:-2}
	reps=10
	$quick && reps=1
	tasks=$("$ARENA" tasks 2>/dev/null |
		awk 'NR > 1 { print $1 }' | while read -r t; do
			for sel in $SELECT; do
				case $t in "$sel"|"$sel"/*) echo "$t"; break ;; esac
			done
		done)
	$quick && [ "$SELECT" = "hip2hip cuda2cuda" ] &&
		tasks=$(printf '%s\n' "$tasks" | grep '^cuda2cuda/')
	w=0
	while [ $w -lt "$jobs" ]; do
		mine=$(printf '%s\n' $tasks | awk -v w=$w -v j="$jobs" 'NR % j == w')
		# shellcheck disable=SC2086
		[ -n "$mine" ] && B="$B" ARENA="$ARENA" \
			sh "$ROOT/tests/bench/aa_coverage.sh" -n $reps \
			${COVERAGE_FLAGS---timing-only} \
			-o "$OUT/aa-$w.tsv" --case-budget "${COVERAGE_BUDGET:-0.3}" \
			--store "$STORE/aa-$w" --until $((t_end - 45)) \
			${COVERAGE_LOGS:+--logs "$COVERAGE_LOGS"} $mine \
			> "$OUT/aa-$w.txt" 2>&1 &
		w=$((w + 1))
	done
	wait
	head -n 1 "$OUT/aa-0.tsv" > "$OUT/aa.tsv"
	for f in "$OUT"/aa-[0-9]*.tsv; do tail -n +2 "$f"; done >> "$OUT/aa.tsv"
	cat "$OUT"/aa-[0-9]*.txt > "$OUT/aa.txt"
	# The suite's A/A (its first repeat: one run of every task, as a noop
	# run would be): every task-level speedup within 1.00 +- 0.02.  Later
	# repeats' outliers are listed, not judged (they feed the coverage).
	awk -F'\t' 'NR > 1 && $1 == "task" && ($5 < 0.98 || $5 > 1.02) {
		printf "  %s a/a: %s repeat %s: %.4f [%.4f, %.4f]\n",
			$4 == 1 ? "FAIL" : "outside 1.00 +- 0.02 (later repeat)",
			$2, $4, $5, $6, $7 }' "$OUT/aa.tsv" | tee -a "$SUMMARY"
	awk -F'\t' 'NR > 1 && $1 == "task" && $4 == 1 && ($5 < 0.98 || $5 > 1.02) {
		bad = 1 } END { exit bad }' "$OUT/aa.tsv" || fail=1
	grep -E ': status ' "$OUT"/aa-[0-9]*.txt | sed 's/^/  FAIL a\/a: /' |
		tee -a "$SUMMARY"
	grep -qE ': status ' "$OUT"/aa-[0-9]*.txt && fail=1
	k=$(awk -F'\t' 'NR > 1 && $1 == "task" { k += $8 } END { print k + 0 }' "$OUT/aa.tsv")
	n=$(awk -F'\t' 'NR > 1 && $1 == "task" { n++ } END { print n + 0 }' "$OUT/aa.tsv")
	rng=$(awk -F'\t' 'NR > 1 && $1 == "task" { if (!m || $5 < lo) lo = $5; if (!m || $5 > hi) hi = $5; m = 1 }
		END { if (m) printf "%.4f..%.4f", lo, hi }' "$OUT/aa.tsv")
	ck=$(awk -F'\t' 'NR > 1 && $1 == "case" { n++; k += $8 } END { printf "%d of %d", k, n }' "$OUT/aa.tsv")
	note "a/a ($jobs workers, ${COVERAGE_BUDGET:-0.3} s per case): speedups $rng; task-level intervals containing 1.0: $k of $n; case-level: $ck ($(elapsed "$t0") s)"
	# What disputed claims (docs/gpu.md section 10) cost honest ones:
	# the cases that timed on past their share, from the kept traces.
	if [ -n "${COVERAGE_LOGS:-}" ]; then
		set -- "$COVERAGE_LOGS"/*/timing.tsv
		on=$(cat "$@" 2>/dev/null | grep -c 'past its share')
		still=$(cat "$@" 2>/dev/null | grep -c 'still disputed')
		note "a/a: timed on past a case's share $on times in $# evaluations; claims still disputed at a case's end: $still"
	fi
	if ! $quick && { [ "$n" -lt 60 ] || [ $((k * 100)) -lt $((n * 90)) ]; }; then
		note "a/a: short of 60 task-level intervals at >= 90% containing 1.0 (run 'tests/gpu/integrity.sh aa' once more for more)"
		fail=1
	fi
fi

# ---- noop: the same A/A through `arena run` (optional) -------------------
if runs noop 120; then
	t0=$(now)
	sel=$SELECT
	$quick && [ "$sel" = "hip2hip cuda2cuda" ] && sel=cuda2cuda
	# shellcheck disable=SC2086
	NOOP_CASE_BUDGET=${NOOP_BUDGET:-0.5} OUT=$OUT STORE=$STORE/noop \
		sh "$ROOT/tests/gpu/noop.sh" $sel > "$OUT/noop-step.log" 2>&1
	# Every task ok and within 1.00 +- 0.02 (noop_verdict.py also wants
	# a median half-width under 1%: reported, not judged here).
	if ! grep -q '^counted' "$OUT/noop.txt" 2>/dev/null ||
	    grep -qE 'outside 1.00|not counted' "$OUT/noop.txt"; then
		fail=1
		grep -E 'outside 1.00|not counted' "$OUT/noop.txt" 2>/dev/null |
			sed 's/^/  FAIL noop: /' | tee -a "$SUMMARY" >/dev/null
	fi
	note "noop ($sel, ${NOOP_BUDGET:-0.5} s per case): $(grep -E '^noop:' "$OUT/noop.txt" 2>/dev/null || echo 'no verdict'), $(grep -E '^counted' "$OUT/noop.txt" 2>/dev/null) ($(elapsed "$t0") s)"
fi

# What each way of charging would have charged (tests/gpu/charge_report.py),
# from every kept timing.tsv: the candidates' in charge.txt and, with
# COVERAGE_LOGS, the A/A runs' in charge-aa.txt, whose last lines say how
# often and how much each charge fell on honest pairs.
charges() {	# FILE TIMING.TSV...
	f=$1
	shift
	ls "$@" > /dev/null 2>&1 || return 0
	"${ARENA_PYTHON:-python3}" "$ROOT/tests/gpu/charge_report.py" "$@" \
		> "$f" 2>&1 &&
		note "$(basename "$f" .txt): $(tail -n 3 "$f" | tr '\n' ';')"
}
charges "$OUT/charge.txt" "$EV"/*-logs/timing.tsv
[ -n "${COVERAGE_LOGS:-}" ] &&
	charges "$OUT/charge-aa.txt" "$COVERAGE_LOGS"/*/timing.tsv

note "integrity: $([ $fail = 0 ] && echo PASS || echo FAIL) ($(($(date +%s) - t_start)) s)"
# PACK=1 (for the device tool, whose $OUT is a folder of its own and
# which brings back eight files at most): the tables stay, everything
# else in $OUT (evaluations, logs, A/A runs) goes into one archive.
if [ "${PACK:-0}" = 1 ] && [ -f "$OUT/integrity.txt" ]; then
	( cd "$OUT" &&
		rest=$(ls -A | grep -vxE 'integrity.txt|adversarial.txt|honest.txt|aa.txt|charge.txt|charge-aa.txt') &&
		echo "$rest" | tar -czf integrity-files.tgz -T - 2>/dev/null &&
		echo "$rest" | xargs -r rm -rf )
fi
exit $fail
