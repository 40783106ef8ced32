#!/bin/sh
# tests/gpu/lend_ab.sh - the keeper's compare (docs/gpu.md section 6)
# against the host fetch it replaced, side by side on one GPU: for each
# TASK, ROUNDS rounds of two default `arena eval --aa` (the task's
# baseline against itself, correctness and reference checks included),
# one with ARENA_GPU_LEND=1 and one with =0, in alternating order (an A/A
# is never a cached result).
# Per evaluation: wall seconds, status, speedup and interval, the timing
# phase, timed pairs and the medians of a timed pair's whole time, of its
# two fetches and of its checks (timing.tsv's pair lines), and whether
# the batch buffers were lent (timing.tsv); below each line, where the
# lending of each case went, the pairs checked against the reference
# (their check's median) and how their sets reached the reference
# (taken by the keeper, or drawn again).
#
# usage: OUT=DIR [ROUNDS=2] sh tests/gpu/lend_ab.sh [TASK...]
#   default tasks: cuda2cuda/saxpy hip2hip/gelu triton2triton/rmsnorm_bf16
# Writes $OUT/lend_ab.txt; prints it.
. "$(dirname "$0")/lib.sh"
rounds=${ROUNDS:-2}
tasks=${*:-cuda2cuda/saxpy hip2hip/gelu triton2triton/rmsnorm_bf16}
work=$(mktemp -d "${TMPDIR:-/tmp}/arena-lend-ab.XXXXXX")
sum=$OUT/lend_ab.txt
commit=${ARENA_COMMIT:-$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')}
echo "# lend_ab.sh on $DEVICE, commit $commit, $(date -u +%FT%TZ), $rounds round(s)" >"$sum"
echo "task | lend | exit | wall s | status | speedup | interval | timing s | pairs | pair ms | fetch ms | check ms | buffers" >>"$sum"
n=0
one() { # TASK LEND
	task=$1
	lend=$2
	n=$((n + 1))
	logs=$work/logs$n
	t0=$(now)
	ARENA_GPU_LEND=$lend timeout 300 "$ARENA" --store "$STORE" eval "$task" \
		--aa --logs "$logs" >"$work/$n.yaml" 2>&1
	rc=$?
	wall=$(elapsed "$t0")
	y=$work/$n.yaml
	timing=$(awk '/^eval_phases:/ { p = 1; next } p && /^[^ ]/ { p = 0 }
		p && $1 == "timing:" { print $2 }' "$y")
	# Timed pairs: their count and medians (ms) of the pair, of both
	# fetches and of the checks after them.
	stats=$(awk -F'\t' '$3 == "timed" && NF > 40 {
			n++; p[n] = $(NF - 2); f[n] = $13 + $14; c[n] = $16 }
		function med(a, k, t, i, j) {
			for (i = 1; i <= n; i++) t[i] = a[i]
			for (i = 2; i <= n; i++) for (j = i; j > 1 && t[j - 1] > t[j]; j--) {
				k = t[j]; t[j] = t[j - 1]; t[j - 1] = k }
			return t[int((n + 1) / 2)] / 1e6 }
		END { if (n) printf "%d | %.1f | %.1f | %.1f", n, med(p), med(f), med(c)
		      else printf "0 | - | - | -" }' "$logs/timing.tsv" 2>/dev/null)
	if grep -q 'lent by the keeper' "$logs/timing.tsv" 2>/dev/null; then
		buf=lent
	elif grep -q 'batch buffers allocated' "$logs/timing.tsv" 2>/dev/null; then
		buf=own
	else
		buf=-
	fi
	echo "$task | $lend | $rc | $wall | $(field status <"$y") | $(field speedup_ratio <"$y") | $(field speedup_ci <"$y") | ${timing:--} | ${stats:-0 | - | - | -} | $buf" >>"$sum"
	grep -q '^status: ok' "$y" || grep -E '_error_message: [^n]' "$y" | head -n 2 | sed 's/^/    /' >>"$sum"
	grep -h 'lends no sets' "$logs/timing.tsv" 2>/dev/null | head -n 1 | sed 's/^/    /' >>"$sum"
	# Which driver step failed, when lending did not happen (gpu_rt.h).
	cat "$logs"/runner-*.log 2>/dev/null | grep -h 'CUresult' | sort | uniq -c |
		head -n 3 | sed 's/^/    /' >>"$sum"
	# Where a case's lending went, and the pairs checked against the
	# reference: how many, the median of their check on the
	# evaluation's thread, and how their sets reached the worker.
	grep -h "runners' sets lent in" "$logs/timing.tsv" 2>/dev/null |
		sed 's/^# [0-9.]* ms: /    /' >>"$sum"
	awk -F'\t' '$3 == "timed" && NF > 40 && $NF == 2 { n++; c[n] = $16 }
		END { if (!n) exit
		      for (i = 2; i <= n; i++) for (j = i; j > 1 && c[j - 1] > c[j]; j--) {
			k = c[j]; c[j] = c[j - 1]; c[j - 1] = k }
		      printf "    %d pairs checked against the reference, check median %.1f ms\n",
			n, c[int((n + 1) / 2)] / 1e6 }' "$logs/timing.tsv" 2>/dev/null >>"$sum"
	taken=$(grep -c 'inputs taken by the keeper' "$logs/timing.tsv" 2>/dev/null)
	again=$(grep -c 'reference check in timed call.*inputs again' "$logs/timing.tsv" 2>/dev/null)
	echo "    reference checks of timed samples: ${taken:-0} taken by the keeper, ${again:-0} drawn again" >>"$sum"
}
r=1
while [ "$r" -le "$rounds" ]; do
	for t in $tasks; do
		if [ $((r % 2)) -eq 1 ]; then
			one "$t" 1
			one "$t" 0
		else
			one "$t" 0
			one "$t" 1
		fi
	done
	r=$((r + 1))
done
tar -C "$work" -czf "$OUT/lend_ab.tgz" . 2>/dev/null
rm -rf "$work"
cat "$sum"
