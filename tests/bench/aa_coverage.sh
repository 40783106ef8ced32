#!/bin/sh
# tests/bench/aa_coverage.sh - how often an A/A interval contains 1.0.
#
# Times every selected task's baseline against itself (`arena eval TASK
# --aa`: the full timing path, the baseline in the candidate's runner)
# REPEATS times, each with a fresh seed, and counts the task-level and
# case-level 95% intervals that contain 1.0.  An honest interval should
# miss 1.0 in about 5% of repeats; far more means the interval ignores a
# source of variance (docs/statistics.md §2).  A benchmark, not a test:
# it prints, it does not judge (docs/benchmarks.md has results).
#
# Usage: B=build tests/bench/aa_coverage.sh [-n REPEATS] [-o OUT.tsv]
#            [--quick] [--held-out] [--timing-only] [--case-budget S]
#            [--store DIR] [--until EPOCH] [--logs DIR] [SELECTOR...]
#        tests/bench/aa_coverage.sh --summary OUT.tsv... (the coverage of
#            earlier runs together, e.g. a suite split over several)
# --timing-only passes on to arena eval (no correctness trials and no
# reference checks: the same timing, faster); --case-budget S passes on
# to arena eval (shorter timing per case: wider intervals, the same
# method); --store DIR keeps the store (and its
# compiled baselines) across calls; --until EPOCH starts no evaluation
# after that second (date +%s), for callers with a time limit; --logs DIR
# keeps each evaluation's timing.tsv and blocks.tsv in DIR/TASK-REPEAT
# (TASK's slashes as dashes), for analyses of the charge offline.
# Defaults: 3 repeats over every task under tasks/c2c.  Output: one line
# per evaluation (task, repeat, speedup, interval, in?), the same in
# OUT.tsv with the cases, and a summary.  Exit 0 unless an evaluation
# could not run.
summary() {	# TSV files: the coverage over all their lines
	awk -F'\t' '$1 == "task" || $1 == "case" { n[$1]++; k[$1] += $8 }
		END {
			for (l in n)
				printf "coverage (%s level): %d of %d intervals contain 1.0 (%.1f%%)\n",
					l, k[l], n[l], 100 * k[l] / n[l]
		}' "$@" | sort
}
if [ "${1:-}" = --summary ]; then
	shift
	summary "$@"
	exit 0
fi
B=${B:-build}
ARENA=${ARENA:-$B/arena}
n=3
out=
extra=
store=
until=
logs=
while [ $# -gt 0 ]; do
	case $1 in
	-n) n=$2; shift 2 ;;
	-o) out=$2; shift 2 ;;
	--quick|--held-out|--timing-only) extra="$extra $1"; shift ;;
	--case-budget) extra="$extra $1 $2"; shift 2 ;;
	--store) store=$2; shift 2 ;;
	--until) until=$2; shift 2 ;;
	--logs) logs=$2; shift 2 ;;
	-*) echo "unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
[ -x "$ARENA" ] || { echo "no $ARENA: build first" >&2; exit 2; }
sel=${*:-c2c}
tasks=$("$ARENA" tasks 2>/dev/null | awk 'NR > 1 {print $1}' | while read -r t; do
	for s in $sel; do
		case $t in "$s"|"$s"/*) echo "$t"; break ;; esac
	done
done)
[ -n "$tasks" ] || { echo "no task matches: $sel" >&2; exit 2; }
if [ -n "$store" ]; then
	mkdir -p "$store" || exit 1
else
	store=$(mktemp -d /tmp/arena-aa-XXXXXX) || exit 1
	trap 'rm -rf "$store"' EXIT
fi
trap 'exit 130' INT TERM
tsv=${out:-$store/aa.tsv}

echo "# A/A coverage: $(date -u +%Y-%m-%dT%H:%M:%SZ), $(uname -n), $(nproc) CPUs," \
	"commit ${ARENA_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo '?')}, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# $n repeats of: $(echo $tasks)$extra"
printf 'level\ttask\tcase\trepeat\tspeedup\tlo\thi\tcontains_one\n' >"$tsv"
rc=0
for r in $(seq 1 "$n"); do
	for t in $tasks; do
		if [ -n "$until" ] && [ "$(date +%s)" -ge "$until" ]; then
			echo "# stopped at the time limit"
			break 2
		fi
		keep=
		[ -n "$logs" ] && keep="--logs $logs/$(echo "$t" | tr / -)-$r"
		# shellcheck disable=SC2086
		y=$("$ARENA" --store "$store" eval "$t" --aa $extra $keep 2>&1)
		st=$(printf '%s\n' "$y" | sed -n 's/^status: //p')
		if [ "$st" != ok ]; then
			echo "$t repeat $r: status '$st'" >&2
			printf '%s\n' "$y" | grep -E 'error_message: [^n]' >&2
			rc=1
			continue
		fi
		# Task level: speedup_ratio and speedup_ci; cases: the indented
		# speedup and speedup_ci under each `- id:` of timed cases.
		printf '%s\n' "$y" | awk -v t="$t" -v r="$r" '
			function emit(level, c, s, ci,   a, lo, hi) {
				gsub(/[][ ]/, "", ci); split(ci, a, ",")
				lo = a[1] + 0; hi = a[2] + 0
				printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\n", level, t, c,
					r, s, lo, hi, (lo <= 1 && hi >= 1)
			}
			/^speedup_ratio:/ { sp = $2 }
			/^speedup_ci:/ { sub(/^speedup_ci: /, ""); emit("task", "-", sp, $0) }
			/^- id:/ { id = $3; timed = 0 }
			/^  timed: true/ { timed = 1 }
			/^  speedup:/ { csp = $2 }
			/^  speedup_ci:/ && timed { sub(/^  speedup_ci: /, ""); emit("case", id, csp, $0) }
		' >>"$tsv"
		tail -n 1 "$tsv" >/dev/null
		awk -F'\t' -v t="$t" -v r="$r" '$1 == "task" && $2 == t && $4 == r {
			printf "%-24s %2d  %.4f [%.4f, %.4f] %s\n", t, r, $5, $6, $7,
				$8 ? "contains 1" : "MISSES 1" }' "$tsv"
	done
done
summary "$tsv"
echo "# load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
exit $rc
