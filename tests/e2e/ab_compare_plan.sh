# A/B comparisons inside one run (agents:) and `arena plan`, end to end:
#   - the configurations of one (task, repeat) are evaluated on the same
#     seed even without `seed:` in the config (the run's secret seed);
#   - `arena compare RUN`, `arena compare RUN:a RUN:b` and --json report
#     the A/B statistics; a wrong configuration name is an error naming
#     the right ones; usage errors exit 2, --help exits 0;
#   - report.txt and summary.json carry the A/B section;
#   - `arena plan` measures the timing noise from that (A/A) run and the
#     agent's spread from its repeats.
. "$(dirname "$0")/lib.sh"

cat > "$T/ab.yaml" <<CFG
agents:
  - {name: a, template: noop}
  - {name: b, template: noop}
tasks: [c2c/gemm]
device: host
repeats: 2
timing: {case_budget_s: 0.4, blocks: 2, min_pairs: 6, max_pairs: 60}
CFG
"$ARENA" --store "$STORE" run "$T/ab.yaml" > "$T/run.log" 2>&1 || { cat "$T/run.log"; fail "run"; }
run=$(latest_run)
dir=$(run_dir_of "$run")

# Paired seeds: attempts 1 and 2 are repeat 1 under a and b, 3 and 4
# repeat 2.
seed() { awk '/^seed:/ { print $2 }' "$dir/tasks/$1/task_result.yaml"; }
s1=$(seed c2c_gemm); s2=$(seed c2c_gemm__r2)
s3=$(seed c2c_gemm__r3); s4=$(seed c2c_gemm__r4)
note "seeds: $s1 $s2 $s3 $s4"
[ -n "$s1" ] && [ "$s1" = "$s2" ] || fail "repeat 1: configurations a and b were evaluated on different seeds ($s1, $s2)"
[ -n "$s3" ] && [ "$s3" = "$s4" ] || fail "repeat 2: configurations a and b were evaluated on different seeds ($s3, $s4)"
[ "$s1" != "$s3" ] || fail "repeats 1 and 2 share a seed ($s1)"

# compare RUN = compare RUN:a RUN:b
"$ARENA" --store "$STORE" compare "$run" > "$T/c1.txt" || fail "compare RUN: $(cat "$T/c1.txt")"
cat "$T/c1.txt"
grep -q '^A = a, B = b$' "$T/c1.txt" || fail "compare RUN does not name the configurations"
grep -q '^One task has results under both a and b' "$T/c1.txt" ||
	fail "compare RUN has no headline"
grep -q 'per-task verdicts (Benjamini-Hochberg, FDR 5%)' "$T/c1.txt" || fail "no per-task verdict line"
"$ARENA" --store "$STORE" compare "$run:a" "$run:b" > "$T/c2.txt" || fail "compare RUN:a RUN:b"
cmp -s "$T/c1.txt" "$T/c2.txt" || fail "compare RUN and compare RUN:a RUN:b differ"

"$ARENA" --store "$STORE" compare "$run:a" "$run:b" --json > "$T/c.json" || fail "compare --json"
python3 - "$T/c.json" <<'PY' || fail "compare --json: $(head -c 600 "$T/c.json")"
import json, sys
d = json.load(open(sys.argv[1]))
ab = d["ab"]
assert d["a"]["variant"] == "a" and d["b"]["variant"] == "b", d["a"]
assert ab["tasks_common"] == 1, ab["tasks_common"]
assert ab["attempts_min"] == 2 and ab["attempts_max"] == 2
for m in ("speedup", "pass_rate", "score", "reward"):
    assert m in ab["effects"], m
assert ab["effects"]["pass_rate"]["a"] == 1.0
assert ab["headline"]
assert d["tasks"][0]["task"] == "c2c/gemm"
assert d["tasks"][0]["verdict"] in ("tie", "untested", "win", "loss")
PY

"$ARENA" --store "$STORE" compare "$run:zzz" "$run:b" > "$T/e.txt" 2>&1 && fail "unknown configuration accepted"
grep -q "no agent configuration named 'zzz'; its configurations are a, b" "$T/e.txt" || fail "error: $(cat "$T/e.txt")"
"$ARENA" --store "$STORE" compare > /dev/null 2>&1; [ $? -eq 2 ] || fail "compare without arguments should exit 2"
"$ARENA" --store "$STORE" compare "$run:a" > /dev/null 2>&1; [ $? -eq 2 ] || fail "compare with one side should exit 2"
"$ARENA" --store "$STORE" compare --help > "$T/h.txt" || fail "compare --help should exit 0"
grep -q '^Example:' "$T/h.txt" || fail "compare --help has no example"

# The run's own reports.
grep -q '^A/B COMPARISON' "$dir/report.txt" || fail "report.txt has no A/B section"
python3 -c "
import json, sys
d = json.load(open('$dir/summary.json'))
assert d['ab'][0]['a'] == 'a' and d['ab'][0]['b'] == 'b'
" || fail "summary.json has no ab comparison"

# arena plan: this noop run is an A/A run, and it has repeats.
"$ARENA" --store "$STORE" plan c2c --noise "$run" --past "$run" --json > "$T/p.json" || fail "plan --json: $(cat "$T/p.json")"
python3 - "$T/p.json" <<'PY' || fail "plan --json: $(head -c 800 "$T/p.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["tasks_selected"] >= 5, d["tasks_selected"]
c = d["components"]
assert c["sd_timing"]["measured"] and c["sd_timing"]["value"] > 0
assert c["sd_agent"]["measured"], c["sd_agent"]
assert [r["repeats"] for r in d["rows"]] == [1, 2, 3, 5]
assert d["conclusion"]
PY
"$ARENA" --store "$STORE" plan c2c/saxpy > "$T/p.txt" || fail "plan"
grep -q 'arena plan: 1 task(s) selected' "$T/p.txt" || fail "plan: $(cat "$T/p.txt")"
grep -q 'assumed: ' "$T/p.txt" || fail "plan does not say which components are assumed"
"$ARENA" --store "$STORE" plan --help > "$T/ph.txt" || fail "plan --help should exit 0"
grep -q '^Example:' "$T/ph.txt" || fail "plan --help has no example"
"$ARENA" --store "$STORE" plan --effect fast > /dev/null 2>&1; [ $? -eq 2 ] || fail "plan --effect fast should exit 2"
"$ARENA" --store "$STORE" plan --bogus > /dev/null 2>&1; [ $? -eq 2 ] || fail "plan --bogus should exit 2"
"$ARENA" --store "$STORE" plan no_such_family > "$T/pe.txt" 2>&1 && fail "plan accepted an unknown selector"
grep -q 'no_such_family' "$T/pe.txt" || fail "plan error does not name the selector: $(cat "$T/pe.txt")"
echo ok
