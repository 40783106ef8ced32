#!/bin/sh
# tests/gpu/baselines.sh - every GPU task's baseline checked against its
# reference: `arena eval TASK --workspace <copy of the task> --held-out`
# (for an unimplemented task the copy holds its baseline.<ext> under the
# editable name).  The baseline against itself is also an A/A measurement:
# speedups should sit at 1.  Writes $OUT/baselines.txt (a table) and
# $OUT/baselines.csv, and each evaluation's logs (timing.tsv among them:
# tests/gpu/timing_report.py reads it) under $OUT/logs/.  usage: baselines.sh [SELECTOR...] (default:
# hip2hip cuda2cuda instruction2hip; the Python families - triton2triton,
# torch2triton, instruction2triton, torch2cuda, torch2hip - when named,
# through the Python runner; tests/gpu/python_tasks.sh is their quick check
# outside the evaluator)
. "$(dirname "$0")/lib.sh"
TABLE=$OUT/baselines.txt
CSV=$OUT/baselines.csv
: > "$TABLE"
echo "task,status,speedup,ci_lo,ci_hi,held_out_correct,pairs,eval_seconds,method" > "$CSV"
[ $# -gt 0 ] || set -- hip2hip cuda2cuda instruction2hip
fail=0
say "GPU task baselines against their references on $DEVICE ($(date -u +%FT%TZ))"
say "task | status | speedup [CI] | held-out | pairs | seconds"
for sel in "$@"; do
	for t in $("$ARENA" tasks "$sel" 2>/dev/null | awk 'NR > 1 && $3 ~ /^(hip|cuda|triton)$/ { print $1 }'); do
		dir=${ARENA_TASKS_DIR:-$ROOT/tasks}/$t
		ws=$(mktemp -d "${TMPDIR:-/tmp}/arena-base-XXXXXX")
		cp -R "$dir"/. "$ws"/
		for f in "$ws"/baseline.*; do
			[ -f "$f" ] || continue
			ext=${f##*.}
			for e in "$ws"/*."$ext"; do
				case $(basename "$e") in baseline.*|reference.*) ;; *) cp "$f" "$e" ;; esac
			done
		done
		t0=$(now)
		"$ARENA" --store "$STORE" eval "$t" --workspace "$ws" --held-out \
			--no-cache --logs "$OUT/logs/$(echo "$t" | tr / _)" > "$ws.out" 2>&1
		secs=$(elapsed "$t0")
		st=$(field status < "$ws.out")
		sp=$(field speedup_ratio < "$ws.out")
		lo=$(sed -n 's/^speedup_ci: \[\(.*\), .*/\1/p' "$ws.out" | head -n 1)
		hi=$(sed -n 's/^speedup_ci: \[.*, \(.*\)\]/\1/p' "$ws.out" | head -n 1)
		ho=$(sed -n '/^held_out:/,/^[a-z]/ s/^  correct: //p' "$ws.out" | head -n 1)
		pairs=$(field pairs < "$ws.out")
		method=$(field baseline_benchmark_methods < "$ws.out")
		say "$t | $st | $sp [$lo, $hi] | $ho | $pairs | $secs"
		echo "$t,$st,$sp,$lo,$hi,$ho,$pairs,$secs,\"$method\"" >> "$CSV"
		if [ "$st" != ok ]; then
			fail=1
			sed 's/^/      /' "$ws.out" | head -60 >> "$OUT/baselines-failures.txt"
		fi
		rm -rf "$ws" "$ws.out"
	done
done
say "baselines: $([ $fail = 0 ] && echo PASS || echo FAIL)"
exit $fail
