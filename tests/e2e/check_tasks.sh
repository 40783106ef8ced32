# `arena check-tasks` over the repository's tasks, as CI runs it:
#   1. every task and every suite, the checks that need no device (the
#      GPU tasks' device checks are tests/gpu/check_tasks.sh's, on an H200);
#   2. every host task (suite:host, and torch2torch where python3 has
#      torch) on the host: the baseline against the
#      reference with every held-out case (written and generated), the
#      output mutants, a quick A/A, the timing floor and the difficulty,
#      with one seed to stay within CI's minutes on 2 cores;
#   3. the JSON form of one task parses and says what the text says.
# Replaces c2c_baselines.sh, whose checks (baseline correct with held-out
# cases, A/A near 1) are the baseline and aa checks here.
# About 125 s alone on an idle 2-core machine, all of it CPU; beside
# another test and other jobs (load 4-7, 2026-12-02) it ran past
# run.sh's default 600 s, so it gets more.
# test-timeout: 1500
. "$(dirname "$0")/lib.sh"

out=$("$ARENA" --store "$STORE" check-tasks --static 2>&1) ||
	fail "static checks failed: $(printf '%s\n' "$out" | grep -E 'FAIL' | head -n 20)"
printf '%s\n' "$out" | tail -n 1
ntasks=$(printf '%s\n' "$out" | awk '/^check-tasks:/ {print $2}')
[ "${ntasks:-0}" -ge 85 ] || fail "only ${ntasks:-0} tasks checked"
printf '%s\n' "$out" | grep -q '^suite:llm: ok' || fail "suite llm not validated"

out=$("$ARENA" --store "$STORE" check-tasks suite:host --seeds 1 --aa-quick \
	--case-budget 0.4 2>&1)
rc=$?
printf '%s\n' "$out" | grep -E '^c2c/|FAIL|check-tasks:'
[ $rc -eq 0 ] || fail "host tasks failed their checks"
n=$(printf '%s\n' "$out" | grep -c '^c2c/.*: ok (host')
[ "$n" -ge 20 ] || fail "only $n host tasks passed every check"
printf '%s\n' "$out" | grep -q 'mutants *ok' || fail "no mutants were checked"

# The host's Python tasks (torch on the CPU), where python3 has torch:
# 5-14 s each on the development VM (2026-12-03).
if "${ARENA_PYTHON:-python3}" -c 'import torch' 2>/dev/null; then
	out=$("$ARENA" --store "$STORE" check-tasks torch2torch --seeds 1 \
		--aa-quick --case-budget 0.4 2>&1) ||
		fail "host Python tasks failed their checks: $(printf '%s\n' "$out" | grep -E 'FAIL|: fail' | head -n 10)"
	n=$(printf '%s\n' "$out" | grep -c '^torch2torch/.*: ok (host')
	[ "$n" -ge 4 ] || fail "only $n torch2torch tasks passed every check"
	printf '%s\n' "$out" | grep -E '^torch2torch/|check-tasks:'
fi

"$ARENA" --store "$STORE" check-tasks c2c/saxpy --json --no-aa --seeds 1 > "$T/saxpy.json" ||
	fail "check-tasks --json c2c/saxpy failed"
python3 - "$T/saxpy.json" <<'PY' || fail "the JSON report is not what the checks said"
import json, sys
d = json.load(open(sys.argv[1]))
t = d["tasks"][0]
assert t["task"] == "c2c/saxpy" and t["status"] == "ok", t["status"]
checks = {c["check"]: c["status"] for c in t["checks"]}
assert checks["baseline"] == "ok" and checks["mutants"] == "ok", checks
assert len(t["mutants"]) == 7 and all(m["outcome"] == "caught" for m in t["mutants"])
assert any(g["id"] == "rule.degenerate" and g["params"] == "n=1" for g in t["generated_cases"])
assert d["failed"] == 0
PY
echo ok
