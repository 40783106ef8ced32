#!/bin/sh
# tests/gpu/noop_split.sh - the noop A/A run (noop.sh) over the GPU suite
# split into parts, for machines whose calls are limited in time: each
# PART (a quoted list of selectors) is one `arena run`, written under
# $OUT/noop-<k>/; a part is not started once DEADLINE_S seconds have
# passed, and the parts that ran are judged together
# (noop_verdict.py).  Each attempt's timing.tsv is copied to
# $OUT/noop-<k>/tsv/ and summarised by timing_report.py in
# $OUT/noop-timing.txt.
# usage: noop_split.sh DEADLINE_S PART [PART...]
. "$(dirname "$0")/lib.sh"
deadline=$1
shift
t0=$(date +%s)
k=0
base=$OUT
for part in "$@"; do
	k=$((k + 1))
	if [ $(($(date +%s) - t0)) -ge "$deadline" ]; then
		echo "noop_split: part $k ($part) not started: past ${deadline} s"
		continue
	fi
	# shellcheck disable=SC2086 # a part is a list of selectors
	OUT=$base/noop-$k STORE=$STORE sh "$(dirname "$0")/noop.sh" $part
	run=$(ls -t "$STORE/runs" | head -n 1)
	mkdir -p "$base/noop-$k/tsv"
	find "$STORE/runs/$run" -name timing.tsv | while read -r f; do
		name=$(printf '%s' "${f#"$STORE/runs/$run/"}" | tr / _)
		cp "$f" "$base/noop-$k/tsv/$name"
	done
done
python3 "$(dirname "$0")/timing_report.py" "$base"/noop-*/tsv/*.tsv \
	> "$base/noop-timing.txt" 2>&1
python3 "$(dirname "$0")/noop_verdict.py" "$base"/noop-*/noop-summary.csv |
	tee "$base/noop-verdict.txt"
grep -q "^noop: PASS" "$base/noop-verdict.txt"
