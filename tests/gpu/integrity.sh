#!/bin/sh
# tests/gpu/integrity.sh - issue 10 on a GPU, in one call of at most nine
# minutes (docs/gpu.md section 9): every GPU adversarial candidate's
# verdict, the honest candidates' speedups, the noop A/A over the GPU
# suite (speedups within 1.00 +- 0.02) and A/A interval coverage
# (tests/bench/aa_coverage.sh, `arena eval --aa`) for as long as time
# allows, then a compact summary.
#
# usage: tests/gpu/integrity.sh [--quick] [--deadline SECONDS] [STEP...]
#   steps, in this order (default: all):
#     peaks        arena doctor: the device's measured peaks, tensor cores
#                  included (the flop floor's rate)
#     adversarial  21 candidates on tests/gpu/adversarial/task/vecpoly_hip,
#                  three evaluations at a time (timing is serialised by the
#                  device lock; builds and correctness overlap)
#     honest       optimized (vecpoly_hip) and the tiled GEMMs of
#                  tests/gpu/honest on cuda2cuda/gemm_f32, hip2hip/gemm_bf16
#     noop         tests/gpu/noop.sh over hip2hip and cuda2cuda (20 tasks)
#                  with $NOOP_BUDGET s of timing per case (default 0.5)
#     coverage     `arena eval --aa` over the same tasks, repeated until
#                  the deadline, $COVERAGE_BUDGET s per case (default 0.3)
#   --quick        a smoke test in about three minutes: the new cheats and
#                  the A/A candidate, the honest ones in quick mode, the
#                  noop over cuda2cuda only, no coverage
#   --deadline S   seconds from the start after which no new step or
#                  evaluation starts (default 500: the call then ends
#                  within nine minutes)
# SELECT (default "hip2hip cuda2cuda") is what noop and coverage run over;
# ADV_DIR and ADV_TASK (default tests/gpu/adversarial, task/vecpoly_hip)
# where the adversarial candidates and their task are (tests/gpu/fake and
# task/fakepoly with the fake GPU runner: a smoke test of this script).
# Carry build/ (and .device/ for the runtime libraries: docs/gpu.md); the
# copy's .git may lag, so set ARENA_COMMIT.  Writes $OUT/integrity.txt
# (the summary), adversarial.txt, honest.txt, noop.txt, aa.txt and
# aa.tsv, and every evaluation's YAML and timing.tsv under $OUT/evals/.
# Exit 0 when every verdict is as expected, the noop passes and coverage
# (when run) reaches 60 task-level intervals with at least 90% containing
# 1.0; otherwise 1.
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
steps=${*:-peaks adversarial honest noop coverage}
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

note "# integrity.sh on $DEVICE, commit $commit, $(date -u +%FT%TZ)$($quick && echo ', quick')"

# run_eval NAME TASKS_DIR TASK WORKSPACE [eval options...]: one `arena eval`
# into $EV/NAME.yaml, its logs (timing.tsv) in $EV/NAME-logs.
run_eval() {
	name=$1 tdir=$2 task=$3 ws=$4
	shift 4
	rm -rf "$EV/$name-logs"
	"$ARENA" --store "$STORE" --tasks-dir "$tdir" eval "$task" \
		--workspace "$ws" --no-cache --logs "$EV/$name-logs" "$@" \
		> "$EV/$name.yaml" 2>&1
}

# excess NAME: the charged excess of each timed case, "case=E/median us".
excess() {
	sed -n 's/^# [0-9.]* ms: case \([^:]*\): charged excess \([0-9.]*\) us per sample (median excess \([-0-9.]*\) us.*/\1=\2\/\3/p' \
		"$EV/$1-logs/timing.tsv" 2>/dev/null | tr '\n' ' '
}

# verdict NAME WANT PHRASE: WANT is a status, or "nogain" (rejected with
# PHRASE, or ok with a speedup of at most 1.05: charged, not rewarded).
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
	elif [ "$st" = "$want" ] && grep -qE -- "$phrase" "$y"; then
		ok=true
	fi
	if $ok; then
		res=ok
	else
		res=FAIL
		fail=1
	fi
	printf '%-20s | %-8s | %-13s | %8s | %s | %s\n' "$name" "$res" "$st" \
		"${sp:-?}" "$(excess "$name")" "${why:--}" >> "$TABLE"
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
# name status phrase [options]; the new classes of issue 10 first.
adv_list() {
	cat <<'EOF'
baseline_copy|ok|candidate_accepted: true|--held-out
gen_window|nogain|inconsistent with the controller|
stopped_work|nogain|inconsistent with the controller|work left running|
forged_claim|rejected|inconsistent with the controller|
shave_claim|nogain|inconsistent with the controller|
other_stream|nogain|work still running after the stream|work not ordered on the stream|work left running on the device|inconsistent with the controller|
forged_ecc|runtime_error|found it working|
approx_late|incorrect|differs from the reference|
approx_batched|incorrect|correctness trial|
optimized|ok|candidate_accepted: true|--quick
forked_streams|ok|candidate_accepted: true|--quick
no_write|incorrect|never written|
partial_write|incorrect|never written|
reuse_buffer|incorrect|correctness trial|differs from|
cache_pointer|incorrect|correctness trial|differs from|
modify_input|rejected|was modified by the kernel|
other_stream_naive|rejected|work not ordered on the stream|--quick
work_after_return|rejected|work left running on the device|inconsistent with the controller|--quick
thread_worker|rejected|work left running after arena_launch returned|
shape_specialized|incorrect|held-out case|--held-out
illegal_address|runtime_error|illegal memory access|
EOF
}
if has_step adversarial && [ "$(left)" -gt 60 ]; then
	TABLE=$OUT/adversarial.txt
	printf '%-20s | %-8s | %-13s | %8s | %s | %s\n' candidate verdict status \
		speedup "charged excess case=E/median us" reason > "$TABLE"
	t0=$(now)
	list=$(adv_list)
	$quick && list=$(adv_list | head -n 9)
	# Three at a time: the device lock serialises their timing.
	i=0
	printf '%s\n' "$list" > "$OUT/adv.list"
	while IFS='|' read -r name want rest; do
		opts=${rest##*|}
		[ "$(left)" -gt 20 ] || { note "adversarial: out of time before $name"; fail=1; break; }
		# shellcheck disable=SC2086
		run_eval "adv-$name" "$ADV" "$ADV_TASK" "$ADV/candidates/$name" $opts &
		i=$((i + 1))
		[ $((i % 3)) = 0 ] && wait
	done < "$OUT/adv.list"
	wait
	while IFS='|' read -r name want rest; do
		phrase=${rest%|*}
		[ -f "$EV/adv-$name.yaml" ] && verdict "adv-$name" "$want" "$phrase"
	done < "$OUT/adv.list"
	n=$(grep -c '| ok  ' "$TABLE")
	m=$(($(wc -l < "$TABLE") - 1))
	note "adversarial: $n of $m as expected ($(elapsed "$t0") s)"
	grep -E '\| FAIL' "$TABLE" | sed 's/^/  /' | tee -a "$SUMMARY" >/dev/null
fi

# ---- honest -----------------------------------------------------------------
if has_step honest && [ "$(left)" -gt 60 ]; then
	TABLE=$OUT/honest.txt
	printf '%-20s | %-8s | %-13s | %8s | %s | %s\n' candidate verdict status \
		speedup "charged excess case=E/median us" reason > "$TABLE"
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

# ---- noop -------------------------------------------------------------------
if has_step noop && [ "$(left)" -gt 120 ]; then
	t0=$(now)
	sel=$SELECT
	$quick && [ "$sel" = "hip2hip cuda2cuda" ] && sel=cuda2cuda
	# shellcheck disable=SC2086
	NOOP_CASE_BUDGET=${NOOP_BUDGET:-0.5} OUT=$OUT STORE=$STORE/noop \
		sh "$ROOT/tests/gpu/noop.sh" $sel > "$OUT/noop-step.log" 2>&1
	# What issue 10 asks of it: every task ok, every speedup within
	# 1.00 +- 0.02 (noop_verdict.py also wants a median half-width under
	# 1%, which a short budget may not reach: reported, not judged here).
	if ! grep -q '^counted' "$OUT/noop.txt" 2>/dev/null ||
	    grep -qE 'outside 1.00|not counted' "$OUT/noop.txt"; then
		fail=1
		grep -E 'outside 1.00|not counted' "$OUT/noop.txt" 2>/dev/null |
			sed 's/^/  FAIL noop: /' | tee -a "$SUMMARY" >/dev/null
	fi
	note "noop ($sel, ${NOOP_BUDGET:-0.5} s per case): $(grep -E '^noop:' "$OUT/noop.txt" 2>/dev/null || echo 'no verdict'), $(grep -E '^counted' "$OUT/noop.txt" 2>/dev/null) ($(elapsed "$t0") s)"
	# The noop's intervals are A/A intervals too.
	nin=$(grep -cE '^[a-z0-9_/]+ \| ok \|' "$OUT/noop.txt" 2>/dev/null)
	nhit=$(awk -F'|' '/^[a-z0-9_\/]+ \| ok \|/ {
		split($3, a, /[][,]/); lo = a[2] + 0; hi = a[3] + 0
		if (lo <= 1 && hi >= 1) n++ } END { print n + 0 }' "$OUT/noop.txt" 2>/dev/null)
	note "noop intervals containing 1.0: ${nhit:-0} of ${nin:-0}"
fi

# ---- coverage ---------------------------------------------------------------
if has_step coverage && ! $quick && [ "$(left)" -gt 90 ]; then
	t0=$(now)
	B="$B" ARENA="$ARENA" sh "$ROOT/tests/bench/aa_coverage.sh" -n 10 \
		-o "$OUT/aa.tsv" --case-budget "${COVERAGE_BUDGET:-0.3}" \
		--store "$STORE/aa" --until $((t_end - 45)) $SELECT \
		> "$OUT/aa.txt" 2>&1
	cov=$(grep -E '^coverage \(task level\)' "$OUT/aa.txt")
	note "coverage (--aa, ${COVERAGE_BUDGET:-0.3} s per case): ${cov:-none} ($(elapsed "$t0") s)"
	grep -E '^coverage \(case level\)' "$OUT/aa.txt" | tee -a "$SUMMARY" >/dev/null
	k=$(awk -F'\t' 'NR > 1 && $1 == "task" { n++; k += $8 } END { print k + 0 }' "$OUT/aa.tsv" 2>/dev/null)
	n=$(awk -F'\t' 'NR > 1 && $1 == "task" { n++ } END { print n + 0 }' "$OUT/aa.tsv" 2>/dev/null)
	tk=$((k + ${nhit:-0}))
	tn=$((n + ${nin:-0}))
	note "task-level A/A intervals (noop + --aa): $tk of $tn contain 1.0"
	if [ "$tn" -lt 60 ] || [ $((tk * 100)) -lt $((tn * 90)) ]; then
		note "coverage: short of 60 intervals at >= 90%: run 'tests/gpu/integrity.sh coverage' once more"
		fail=1
	fi
fi

note "integrity: $([ $fail = 0 ] && echo PASS || echo FAIL) ($(($(date +%s) - t_start)) s)"
exit $fail
