#!/bin/sh
# tests/gpu/pace.sh - GPU evaluation fairness and pace on a real device
# (docs/gpu.md sections 5, 6 and 9), in one call of at most eight minutes:
#   1. stream-ordered allocation: tests/gpu/bench/pool_probe.cu (which
#      layer of a runner's sandbox, if any, breaks cudaMallocAsync) and
#      the runner's own `--selftest`;
#   2. `arena eval TASK --aa` (the task's baseline against itself, 0.3 s
#      of timing per case) of cuda2cuda/moe_align_block_size and
#      radix_sort_pass (their baselines take scratch from cudaMallocAsync),
#      then cuda2cuda/dot (its A/A came out at 0.97-0.98 before buffers
#      were placed per sample), cuda2cuda/gemm_f32,
#      cuda2cuda/cross_entropy_fwd_bwd and hip2hip/flash_attn_fwd_bf16;
#      between them, tests/gpu/honest/cuda2cuda_dot_pool (an honest dot
#      whose scratch comes from cudaMallocAsync: ok, above 1);
#   3. per evaluation its wall time, status, speedup and interval, pairs,
#      and per case where a pair's time went (tests/gpu/pace_report.py).
# No evaluation starts after DEADLINE seconds (default 420).  AA_FLAGS
# go to every A/A: AA_FLAGS=--timing-only leaves out the correctness
# trials and the reference checks (what an interval-coverage run needs),
# so that the checks column is the comparison with the baseline alone.
#
# usage: OUT=DIR [DEADLINE=420] [CASE_BUDGET=0.3] [AA_FLAGS=...]
#            sh tests/gpu/pace.sh [TASK...]
# Files under $OUT: pace.txt (the summary), pace.tsv (one line per
# evaluation), cases.tsv (one line per case: pace_report.py --tsv),
# probe.txt, evals.tgz (every evaluation's YAML and logs).
. "$(dirname "$0")/lib.sh"
tasks=${*:-cuda2cuda/moe_align_block_size cuda2cuda/radix_sort_pass \
honest:cuda2cuda/dot:cuda2cuda_dot_pool cuda2cuda/dot cuda2cuda/gemm_f32 \
cuda2cuda/cross_entropy_fwd_bwd hip2hip/flash_attn_fwd_bf16}
T=$OUT/pace.txt
TSV=$OUT/pace.tsv
PR=$OUT/probe.txt
W=$(mktemp -d "${TMPDIR:-/tmp}/arena-pace-XXXXXX") || exit 1
trap 'rm -rf "$W"' EXIT INT TERM
t_end=$(($(date +%s) + ${DEADLINE:-420}))
commit=${ARENA_COMMIT:-$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null)}
: > "$T"
note() { printf '%s\n' "$*"; printf '%s\n' "$*" >> "$T"; }
note "# pace.sh on $DEVICE, commit $commit, $(date -u +%FT%TZ), load $(cut -d' ' -f1-3 /proc/loadavg)"

# ---- 1. stream-ordered allocation ------------------------------------------
: > "$PR"
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
if [ -x "$NVCC" ] && "$NVCC" -O2 -Xcompiler -D_GNU_SOURCE \
	-I"$ROOT/engine/runner" -I"$ROOT/engine/include" \
	"$ROOT/tests/gpu/bench/pool_probe.cu" "$ROOT/engine/runner/runner_sandbox.c" \
	-o "$W/pool_probe" >> "$PR" 2>&1; then
	"$W/pool_probe" >> "$PR" 2>&1
else
	echo "pool probe: not built (nvcc $NVCC)" >> "$PR"
fi
RUNNER=${ARENA_RUNNER_CUDA:-$B/arena-runner-cuda}
[ -x "$RUNNER" ] && "$RUNNER" --selftest 0 >> "$PR" 2>&1
grep -E 'pool probe|stream-ordered|selftest' "$PR" | sed 's/^/  /' | tee -a "$T"

# ---- 2. evaluations ----------------------------------------------------------
printf 'eval\twall_s\tstatus\tspeedup\tci_lo\tci_hi\tpairs\treason\n' > "$TSV"
store=$STORE/pace
rm -rf "$store"
mkdir -p "$W/evals"
for spec in $tasks; do
	case $spec in
	honest:*)
		t=$(echo "$spec" | cut -d: -f2)
		ws=$ROOT/tests/gpu/honest/$(echo "$spec" | cut -d: -f3)
		name=honest-$(echo "$spec" | cut -d: -f3)
		set -- --workspace "$ws" ;;
	*)
		t=$spec name=aa-$(echo "$spec" | tr / _)
		# shellcheck disable=SC2086
		set -- --aa ${AA_FLAGS:-} ;;
	esac
	if [ "$(date +%s)" -ge "$t_end" ]; then
		note "$name: not run (deadline)"
		continue
	fi
	y=$W/evals/$name.yaml
	t0=$(now)
	"$ARENA" --store "$store" eval "$t" "$@" --no-cache \
		--case-budget "${CASE_BUDGET:-0.3}" --logs "$W/evals/$name" \
		> "$y" 2>&1
	wall=$(elapsed "$t0")
	ci=$(field speedup_ci < "$y" | tr -d '[],')
	why=$(field correctness_error_message < "$y")
	[ "$why" = null ] && why=$(field speedup_calculation_error_message < "$y")
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$wall" \
		"$(field status < "$y")" "$(field speedup_ratio < "$y")" \
		$(echo "$ci" | awk '{ print ($1 == "" ? "-" : $1), ($2 == "" ? "-" : $2) }') \
		"$(field pairs < "$y")" "$why" >> "$TSV"
	note "$(tail -n 1 "$TSV" | awk -F'\t' '{ printf "%-40s %7.1f s  %-12s %s [%s, %s] pairs %s %s", $1, $2, $3, $4, $5, $6, $7, ($8 == "null" ? "" : $8) }')"
done

# ---- 3. where the time went --------------------------------------------------
set --
for f in "$W"/evals/*/timing.tsv; do
	[ -f "$f" ] && set -- "$@" "$f"
done
if [ $# -gt 0 ]; then
	(cd "$W/evals" && python3 "$ROOT/tests/gpu/pace_report.py" --tsv \
		$(for f in "$@"; do echo "${f#"$W"/evals/}"; done)) > "$OUT/cases.tsv"
	(cd "$W/evals" && python3 "$ROOT/tests/gpu/pace_report.py" \
		$(for f in "$@"; do echo "${f#"$W"/evals/}"; done)) | tee -a "$T"
fi
tar -czf "$OUT/evals.tgz" -C "$W" evals 2>/dev/null
note "# pace.sh: $(awk -F'\t' 'NR > 1 { n++; s += $2 } END { printf "%d evaluations, %.0f s", n, s }' "$TSV")"
