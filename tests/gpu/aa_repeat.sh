#!/bin/sh
# tests/gpu/aa_repeat.sh - where a GPU A/A's per-evaluation offset comes
# from (issue 10 item 9; docs/gpu.md section 6, "what differs between the
# two runners").  On the H200 (2026-12-02) A/A intervals missed 1.0 only
# below it, narrow, in one evaluation of a task and not in another:
# cuda2cuda/saxpy's case n64m at 0.9429, segmented_scan's n32m_seg2 at
# 0.9202.  This repeats `arena eval TASK --aa --timing-only` on those two
# tasks, one evaluation at a time (nothing else on the device), and keeps
# each block's line of blocks.tsv: both runners' process ids, where they
# said their buffers lie, the block's median ratio by the claims alone and
# as charged, and the case's charged excess.  An offset in the charged
# ratios only is the charged excess (the claims agree); one in the claims
# of every block is the runners'.
#
# usage: tests/gpu/aa_repeat.sh [-n REPEATS] [--deadline SECONDS] [TASK...]
#        (default: 8 repeats of cuda2cuda/saxpy cuda2cuda/segmented_scan,
#        alternating, none started after 250 s, so that it ends within 5
#        minutes unless its last evaluation takes over 50 s; the deadline
#        may leave fewer repeats; CASE_BUDGET, default 0.3 s, as in
#        integrity.sh's A/A)
# Writes $OUT/aa_repeat.tsv (level eval|case|block, task, repeat, case,
# block, speedup, lo, hi, then blocks.tsv's columns on block lines),
# $OUT/aa_repeat.txt (one line per evaluation and per block) and each
# evaluation's result and logs (timing.tsv, blocks.tsv, pace_report.py's
# report) in $OUT/aa_repeat.tgz (aa_repeat/ inside).
. "$(dirname "$0")/lib.sh"
n=8
deadline=250
while [ $# -gt 0 ]; do
	case $1 in
	-n) n=$2; shift 2 ;;
	--deadline) deadline=$2; shift 2 ;;
	-*) echo "aa_repeat.sh: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || set -- cuda2cuda/saxpy cuda2cuda/segmented_scan
D=$OUT/aa_repeat
mkdir -p "$D"
end=$(($(date +%s) + deadline))
tsv=$OUT/aa_repeat.tsv
txt=$OUT/aa_repeat.txt
printf 'level\ttask\trepeat\tcase\tblock\tspeedup\tlo\thi\tbase_pid\tcand_pid\tbase_dev_lo\tbase_dev_hi\tcand_dev_lo\tcand_dev_hi\tpairs\tclaims_ratio\tcharged_ratio\texcess_ns\tfetch_excess_ns\texcess_med_ns\tfetch_excess_med_ns\n' > "$tsv"
echo "# aa_repeat.sh on $DEVICE, $(date -u +%FT%TZ), commit" \
	"$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?'):" \
	"$n repeats of $*, case budget ${CASE_BUDGET:-0.3} s" > "$txt"
rc=0
r=0
while [ "$r" -lt "$n" ]; do
	r=$((r + 1))
	for t in "$@"; do
		if [ "$(date +%s)" -ge "$end" ]; then
			echo "# stopped at the deadline (${deadline} s)" >> "$txt"
			break 2
		fi
		name=$(echo "$t" | tr / _)-$r
		logs=$D/$name-logs
		t0=$(now)
		"$ARENA" --store "$STORE/aa_repeat" eval "$t" --aa --timing-only \
			--case-budget "${CASE_BUDGET:-0.3}" --logs "$logs" \
			> "$D/$name.yaml" 2>&1
		s=$(elapsed "$t0")
		st=$(field status < "$D/$name.yaml")
		if [ "$st" != ok ]; then
			echo "$t $r: status '${st:-none}' after $s s" >> "$txt"
			rc=1
			continue
		fi
		# The evaluation's and its timed cases' intervals (as
		# tests/bench/aa_coverage.sh reads them), then blocks.tsv.
		awk -v t="$t" -v r="$r" '
			function emit(level, c, sp, ci,   a) {
				gsub(/[][ ]/, "", ci); split(ci, a, ",")
				printf "%s\t%s\t%s\t%s\t-\t%s\t%s\t%s", level, t, r,
					c, sp, a[1] + 0, a[2] + 0
				for (i = 0; i < 13; i++)
					printf "\t-"
				printf "\n"
			}
			/^speedup_ratio:/ { sp = $2 }
			/^speedup_ci:/ { sub(/^speedup_ci: /, ""); emit("eval", "-", sp, $0) }
			/^- id:/ { id = $3; timed = 0 }
			/^  timed: true/ { timed = 1 }
			/^  speedup:/ { csp = $2 }
			/^  speedup_ci:/ && timed { sub(/^  speedup_ci: /, ""); emit("case", id, csp, $0) }
		' "$D/$name.yaml" >> "$tsv"
		[ -f "$logs/blocks.tsv" ] && awk -F'\t' -v OFS='\t' -v t="$t" -v r="$r" \
			'NR > 1 { printf "block\t%s\t%s\t%s\t%s\t-\t-\t-", t, r, $1, $2
				for (i = 3; i <= NF; i++) printf "\t%s", $i
				printf "\n" }' "$logs/blocks.tsv" >> "$tsv"
		python3 "$ROOT/tests/gpu/pace_report.py" "$logs/timing.tsv" \
			> "$D/$name-pace.txt" 2>&1
		awk -F'\t' -v t="$t" -v r="$r" -v s="$s" '
			$2 != t || $3 != r { next }
			$1 == "eval" { printf "%s %d: %.4f [%.4f, %.4f] %s, %s s\n", t, r,
				$6, $7, $8, ($7 <= 1 && $8 >= 1) ? "contains 1" : "MISSES 1", s }
			$1 == "case" { printf "  case %s: %.4f [%.4f, %.4f]\n", $4, $6, $7, $8 }
			$1 == "block" { printf "    %s block %s: claims %.4f, charged %.4f (excess %.1f + %.1f us charged, medians %.1f, %.1f us); pids %s/%s, buffers %s-%s / %s-%s\n",
				$4, $5, $16, $17, $18 / 1e3, $19 / 1e3, $20 / 1e3,
				$21 / 1e3, $9, $10, $11, $12, $13, $14 }
		' "$tsv" >> "$txt"
	done
done
cat "$txt"
# One archive instead of a tree: the device tool brings back files only a
# few folders deep (the -logs folders of 2026-12-04 stayed behind).
tar -czf "$OUT/aa_repeat.tgz" -C "$OUT" aa_repeat && rm -rf "$D"
exit $rc
