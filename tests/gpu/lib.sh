# tests/gpu/lib.sh - shared by the GPU check scripts (sourced, not run).
# Sets ARENA, STORE, OUT, DEVICE, ROOT; defines say, secs, eval_json.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=${B:-build}
case $B in /*) ;; *) B=$ROOT/$B ;; esac
ARENA=$B/arena
OUT=${OUT:-$B/gpu-results}
STORE=${STORE:-${TMPDIR:-/tmp}/arena-gpu-store}
DEVICE=${ARENA_DEVICE:-cuda:0}
export ARENA_DEVICE=$DEVICE
mkdir -p "$OUT" "$STORE"
if [ ! -x "$ARENA" ]; then
	echo "skip: $ARENA is not built (run make)" >&2
	exit 77
fi

# say TEXT...: to the terminal and the step's table ($TABLE).
say() {
	printf '%s\n' "$*"
	[ -n "${TABLE:-}" ] && printf '%s\n' "$*" >> "$TABLE"
	return 0
}

# secs CMD...: runs CMD, prints its wall time in seconds on fd 3.
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }

# captured_pairs TIMING_TSV: "C/N", of an evaluation's N timed pairs the C
# that ran from batches captured before their inputs existed (timing.tsv's
# graph column; docs/gpu.md section 6); "?" without the file.
captured_pairs() {
	[ -f "$1" ] || { echo '?'; return 0; }
	awk -F'\t' '$1 == "case" { for (k = 1; k <= NF; k++) if ($k == "graph") g = k }
		g && $3 == "timed" { n++; c += $g } END { printf "%d/%d\n", c, n }' "$1"
}

# field KEY < task_result.yaml: the value of a top-level key.
field() { sed -n "s/^$1: //p" | head -n 1 | sed "s/^'\(.*\)'$/\1/"; }
