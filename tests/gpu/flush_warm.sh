#!/bin/sh
# tests/gpu/flush_warm.sh - does the keeper's `flush` need its busy kernel?
# The keeper warms the device before each runner's `gen` (`warm`) and
# again inside the L2 flush that follows that `gen` within microseconds;
# the second warm-up costs about 1 ms of every sample.  Alternates
# ARENA_GPU_FLUSH_WARM=1 and =0 over the tasks' A/As (`arena eval --aa
# --timing-only`, $CASE_BUDGET s of timing per case, default 0.3) for
# ROUNDS rounds (default 2) and reports per evaluation its wall, speedup,
# interval and pairs, then tests/gpu/pace_report.py per setting (where a
# pair's time went).  docs/gpu.md section 6, "Where a lent evaluation's
# time goes".
#
# usage: OUT=DIR [ROUNDS=2] [DEADLINE=240] sh tests/gpu/flush_warm.sh [TASK...]
. "$(dirname "$0")/lib.sh"
tasks=${*:-cuda2cuda/saxpy hip2hip/gelu}
T=$OUT/flush_warm.txt
W=$OUT/flush_warm
t_end=$(($(date +%s) + ${DEADLINE:-240}))
mkdir -p "$W"
: > "$T"
note() { printf '%s\n' "$*" | tee -a "$T"; }
note "# flush_warm.sh on $DEVICE, commit ${ARENA_COMMIT:-?}, $(date -u +%FT%TZ)"
r=0
while [ "$r" -lt "${ROUNDS:-2}" ]; do
	for w in 1 0; do
		for t in $tasks; do
			[ "$(date +%s)" -ge "$t_end" ] && break 3
			name=w$w-r$r-$(echo "$t" | tr / _)
			y=$W/$name.yaml
			t0=$(now)
			ARENA_GPU_FLUSH_WARM=$w "$ARENA" --store "$STORE/fw" eval \
				"$t" --aa --timing-only --no-cache \
				--case-budget "${CASE_BUDGET:-0.3}" \
				--logs "$W/$name" > "$y" 2>&1
			note "$(printf '%-36s %6.1f s  %-8s %s %s pairs %s' "$name" \
				"$(elapsed "$t0")" "$(field status < "$y")" \
				"$(field speedup_ratio < "$y")" \
				"$(field speedup_ci < "$y")" "$(field pairs < "$y")")"
		done
	done
	r=$((r + 1))
done
for w in 1 0; do
	set --
	for f in "$W"/w$w-*/timing.tsv; do
		[ -f "$f" ] && set -- "$@" "${f#"$W"/}"
	done
	[ $# -gt 0 ] || continue
	note "## ARENA_GPU_FLUSH_WARM=$w"
	(cd "$W" && python3 "$ROOT/tests/gpu/pace_report.py" "$@") | tee -a "$T"
done
