# A real experiment end to end (noop on two tasks): summary.csv has one row
# per task with compiled, correct and speedup; finished is final: editing a
# done workspace afterwards is reported (stale=1) but `arena resume`
# re-evaluates nothing and every result and report stays as it was; `arena
# eval` on an unchanged directory answers from the cache.
. "$(dirname "$0")/lib.sh"

write_config "$T/noop.yaml" "{template: noop}" "[c2c/saxpy, c2c/dot]"
"$ARENA" --store "$STORE" run "$T/noop.yaml" --run-suffix e2e > "$T/run.log" 2>&1 ||
	{ cat "$T/run.log"; fail "run failed"; }
run=$(latest_run)
d="$STORE/runs/$run"
csv="$d/summary.csv"
head -n 1 "$csv" | grep -q '^Task Name,Task Type,Score,Speedup' || fail "csv header: $(head -n 1 "$csv")"
for t in c2c/saxpy c2c/dot; do
	[ "$(csv_field "$csv" $t 7)" = true ] || fail "$t not compiled: $(grep $t "$csv")"
	[ "$(csv_field "$csv" $t 8)" = true ] || fail "$t not correct: $(grep $t "$csv")"
	s=$(csv_field "$csv" $t 4)
	awk -v s="$s" 'BEGIN { exit !(s > 0.8 && s < 1.25) }' || fail "$t noop speedup $s"
done
[ -f "$d/summary.json" ] && [ -f "$d/report.txt" ] || fail "reports missing"
grep -q 'TASK.md' /dev/null; [ -f "$d/tasks/c2c_saxpy/workspace/TASK.md" ] || fail "no TASK.md"
grep -q 'held' "$d/tasks/c2c_saxpy/workspace/TASK.md" || fail "TASK.md does not mention held-out cases"
if grep -q "$(awk '/id:/ {print $0; exit}' "$ROOT/tasks/c2c/saxpy/held_out.yaml" | sed 's/.*id: *\([A-Za-z0-9_.-]*\).*/\1/')" "$d/tasks/c2c_saxpy/workspace/TASK.md"; then
	fail "TASK.md leaks a held-out case id"
fi

# Edit one done workspace: reported, never re-evaluated (finished is final).
sum_before=$(cat "$d"/tasks/*/task_result.yaml "$csv" | cksum)
printf '\n/* edited */\n' >> "$d/tasks/c2c_saxpy/workspace/kernel.c"
"$ARENA" --store "$STORE" status "$run" | grep -q 'done=2 total=2 stale=1' ||
	fail "edit not reported: $("$ARENA" --store "$STORE" status "$run")"
"$ARENA" --store "$STORE" resume "$run" > "$T/resume.log" 2>&1 || fail "resume failed"
grep -q 'eval_start' "$T/resume.log" && fail "resume re-evaluated a done attempt: $(cat "$T/resume.log")"
[ "$(cat "$d"/tasks/*/task_result.yaml "$csv" | cksum)" = "$sum_before" ] ||
	fail "a final result or the summary changed"

# arena eval: a second evaluation of unchanged sources comes from the cache
# (gemm: its default full evaluation, the one that is cached, is short).
cp -r "$ROOT/tasks/c2c/gemm" "$T/ws"
"$ARENA" --store "$STORE" eval c2c/gemm --workspace "$T/ws" > "$T/e1.yaml" || fail "eval failed"
grep -q '^pass_correctness: true' "$T/e1.yaml" || fail "eval: baseline copy not correct"
"$ARENA" --store "$STORE" eval c2c/gemm --workspace "$T/ws" > "$T/e2.yaml" || fail "eval 2 failed"
cmp -s "$T/e1.yaml" "$T/e2.yaml" || fail "unchanged sources were evaluated again"
echo 'int broken(' >> "$T/ws/kernel.c"
"$ARENA" --store "$STORE" eval c2c/gemm --workspace "$T/ws" > "$T/e3.yaml" || fail "eval 3 failed"
grep -q '^pass_compilation: false' "$T/e3.yaml" || fail "broken source compiled?"
grep -q '^score: 0' "$T/e3.yaml" || fail "broken source did not score 0"
echo ok
