#!/bin/sh
# tests/gpu/pair_cost.sh - what a timed pair's untimed parts cost, and
# whether other settings keep the A/A honest: alternates the default
# with $OTHER (environment assignments, default "ARENA_GPU_FLUSH_WARM=1
# ARENA_GPU_WARMUP_PAIRS=3": the settings until 2026-12-07, the keeper's
# flush with its busy kernel and three warm-up pairs per block, where the
# default now has neither the kernel nor more than one warm-up pair)
# over the tasks' A/As (`arena eval --aa --timing-only`, $CASE_BUDGET s
# of timing per case, default 0.3)
# for ROUNDS rounds (default 2); reports per evaluation its wall, timing
# phase, speedup, interval and pairs, then tests/gpu/pace_report.py per
# setting (where a pair's time went).  docs/gpu.md section 6, "Where a
# lent evaluation's time goes".
#
# usage: OUT=DIR [ROUNDS=2] [DEADLINE=240] [OTHER="VAR=V ..."]
#            sh tests/gpu/pair_cost.sh [TASK...]
. "$(dirname "$0")/lib.sh"
tasks=${*:-cuda2cuda/saxpy hip2hip/gelu}
other=${OTHER:-ARENA_GPU_FLUSH_WARM=1 ARENA_GPU_WARMUP_PAIRS=3}
T=$OUT/pair_cost.txt
W=$OUT/pair_cost
t_end=$(($(date +%s) + ${DEADLINE:-240}))
mkdir -p "$W"
: > "$T"
note() { printf '%s\n' "$*" | tee -a "$T"; }
note "# pair_cost.sh on $DEVICE, commit ${ARENA_COMMIT:-?}, $(date -u +%FT%TZ); other: $other"
r=0
while [ "$r" -lt "${ROUNDS:-2}" ]; do
	for setting in default other; do
		for t in $tasks; do
			[ "$(date +%s)" -ge "$t_end" ] && break 3
			name=$setting-r$r-$(echo "$t" | tr / _)
			y=$W/$name.yaml
			t0=$(now)
			# shellcheck disable=SC2086
			env $([ $setting = other ] && echo "$other") \
				"$ARENA" --store "$STORE/pc" eval "$t" --aa \
				--timing-only --no-cache \
				--case-budget "${CASE_BUDGET:-0.3}" \
				--logs "$W/$name" > "$y" 2>&1
			note "$(printf '%-40s %6.1f s  timing %s s  %-8s %s %s pairs %s' \
				"$name" "$(elapsed "$t0")" \
				"$(sed -n 's/^eval_phases:.* timing: \([0-9.]*\).*/\1/p' "$y")" \
				"$(field status < "$y")" \
				"$(field speedup_ratio < "$y")" \
				"$(field speedup_ci < "$y")" "$(field pairs < "$y")")"
		done
	done
	r=$((r + 1))
done
for setting in default other; do
	set --
	for f in "$W"/$setting-*/timing.tsv; do
		[ -f "$f" ] && set -- "$@" "${f#"$W"/}"
	done
	[ $# -gt 0 ] || continue
	note "## $setting"
	(cd "$W" && python3 "$ROOT/tests/gpu/pace_report.py" "$@") | tee -a "$T"
done
