#!/bin/sh
# tests/bench/py_latency_agent.sh - the `command` agent of py_latency.sh:
# what an agent does between edits, timed.  In its workspace it edits the
# first editable file (a comment line, so the sources hash anew and no
# cached result answers), asks `arena eval` for a score (through the run's
# evaluation bridge, as an agent does), and writes one line per
# evaluation to latency.tsv: mode, seconds from the edit to the score,
# status, score, and the file that holds arena eval's answer.
# usage (as agent.command): sh py_latency_agent.sh ARENA FILE NQUICK NDEFAULT
arena=$1 file=$2 nquick=${3:-3} ndefault=${4:-2}
out=latency.tsv
: > "$out"
now() { date +%s.%N; }
one() {	# mode k [--quick]
	mode=$1 k=$2
	shift 2
	printf '\n# latency edit %s %s\n' "$mode" "$k" >> "$file"
	t0=$(now)
	answer=eval-$mode-$k.yaml
	"$arena" eval "$ARENA_TASK_ID" --workspace . "$@" > "$answer" 2>&1
	t1=$(now)
	st=$(sed -n 's/^status: //p' "$answer" | head -n 1)
	sc=$(sed -n 's/^score: //p' "$answer" | head -n 1)
	awk -v m="$mode" -v a="$t0" -v b="$t1" -v s="${st:-?}" -v c="${sc:-?}" \
		-v f="$answer" \
		'BEGIN { printf "%s\t%.2f\t%s\t%s\t%s\n", m, b - a, s, c, f }' >> "$out"
}
k=0
while [ $k -lt "$nquick" ]; do k=$((k + 1)); one quick $k --quick; done
k=0
while [ $k -lt "$ndefault" ]; do k=$((k + 1)); one default $k; done
exit 0
