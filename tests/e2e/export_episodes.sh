#!/bin/sh
# tests/e2e/export_episodes.sh - `arena export` episodes say what a command
# agent did (its argv, its output, its exit status), carry the model at the
# top, the final sources and their diff against the baseline (and whether
# those are the sources the result evaluated), keep every field in one
# type from episode to episode, and name no local path: paths under the
# run are relative to it.  pandas (when installed) reads the file.
. "$(dirname "$0")/lib.sh"

PY=""
for p in python3 /usr/bin/python3; do
	command -v "$p" >/dev/null 2>&1 || continue
	[ -z "$PY" ] && PY=$p
	if "$p" -c 'import pandas' 2>/dev/null; then PY=$p; break; fi
done
[ -n "$PY" ] || { echo "python3 is not installed"; exit 77; }

mkdir -p "$T/tasks/p/flip"
cp "$ROOT/tests/adversarial/task/bytemap/kernel.c" \
   "$ROOT/tests/adversarial/task/bytemap/reference.c" "$T/tasks/p/flip/"
cat > "$T/tasks/p/flip/config.yaml" <<'EOF'
schema: arena/1
description: y = 255 - x over bytes (export test).
language: c
editable: [kernel.c]
reference: {file: reference.c, language: c}
signature:
  params: [n]
  args:
    - {name: x, dtype: u8, shape: [n], io: in, init: {dist: randint, low: "0", high: "255"}}
    - {name: y, dtype: u8, shape: [n], io: out}
cases:
  - {id: small, n: 4096}
EOF
export ARENA_TASKS_DIR="$T/tasks"
# A command agent that edits the kernel, says so, and exits 3; its
# workspace path appears in what it prints.
write_config "$T/c.yaml" "{template: command, model: tiny-model-1, command: [sh, -c, 'printf \"/* tuned by the test */\\\\n\" >> kernel.c; echo \"edited \$ARENA_WORKSPACE/kernel.c\"; exit 3']}" \
	"[p/flip]" "repeats: 2"
"$ARENA" --store "$STORE" run "$T/c.yaml" >"$T/run.log" 2>&1 || fail "run: $(tail -n 20 "$T/run.log")"
run=$(latest_run)
"$ARENA" --store "$STORE" export "$run" -o "$T/ep.jsonl" || fail "export failed"
if grep -q "$STORE" "$T/ep.jsonl"; then
	fail "export names local paths: $(grep -o "$STORE[^\"]*" "$T/ep.jsonl" | head -n 3)"
fi
"$PY" - "$T/ep.jsonl" <<'PY' || fail "episodes: see above"
import json, sys
eps = [json.loads(l) for l in open(sys.argv[1])]
assert len(eps) == 2, len(eps)
for e in eps:
    assert e["schema"] == "arena.episode/2", e["schema"]
    assert e["model"] == "tiny-model-1", e["model"]
    assert e["agent"]["name"] == "command", e["agent"]
    assert e["agent"]["argv"][0] == "sh", e["agent"]
    assert e["prompt"], "no prompt"
    kinds = [s["type"] for s in e["steps"]]
    assert "output" in kinds and "outcome" in kinds, kinds
    out = [s for s in e["steps"] if s["type"] == "output"][0]
    # What it printed, with its workspace path made relative to the run.
    assert "edited tasks/p_flip" in out["text"] and "/workspace/kernel.c" in out["text"], out
    oc = [s for s in e["steps"] if s["type"] == "outcome"][0]
    assert oc["exit"] == 3 and oc["status"] == "failed", oc
    assert e["agent_execution"]["status"] == "failed", e["agent_execution"]
    assert "/* tuned by the test */" in e["final_sources"]["kernel.c"]
    assert e["final_sources_evaluated"] is True, e["final_sources_evaluated"]
    assert "+/* tuned by the test */" in e["diff"], e["diff"]
    assert e["diff"].startswith("--- a/kernel.c"), e["diff"][:80]
    assert e["result"]["status"] == "ok", e["result"]
# One type per field from episode to episode.
for k in eps[0]:
    types = {type(e[k]).__name__ for e in eps}
    assert len(types) == 1, (k, types)
print("episodes: the command agent's argv, output and exit; model; final sources; diff")
try:
    import pandas as pd
except ImportError:
    sys.exit(0)
# pandas.read_json turns a float column whose values are all whole into
# int64 (here every score is 120: the task is below the timing floor), so
# docs/results.md says to name the float columns; then they read as
# floats, which fails if any value is not a number or null.
df = pd.read_json(sys.argv[1], lines=True,
                  dtype={"score": "float64", "reward": "float64"})
assert len(df) == 2 and str(df["score"].dtype) == "float64", df.dtypes
assert str(df["reward"].dtype) == "float64", df.dtypes
assert str(df["attempt"].dtype) == "int64", df.dtypes
print("pandas reads the episodes:", ", ".join(f"{c}:{df[c].dtype}" for c in ("attempt", "score", "reward")))
PY
# An edited workspace is no longer what the result evaluated.
echo "/* later */" >> "$STORE/runs/$run/tasks/p_flip/workspace/kernel.c"
"$ARENA" --store "$STORE" export "$run" -o "$T/ep2.jsonl" || fail "export failed"
head -n 1 "$T/ep2.jsonl" | grep -q '"final_sources_evaluated":false' ||
	fail "an edited workspace still counts as the evaluated sources"
note "export: a command agent's steps, the model, final sources and diff, relative paths"

# Agents that leave, named like the editable file, a symbolic link to a
# file of the machine (a held-out file, a key: the sandboxed agent cannot
# read it, but export runs outside) and a FIFO (which blocks a reader).
# The evaluator refuses both; export must neither follow the link into
# an episode nor hang on the FIFO: the file counts as deleted.
echo "ARENA-EXPORT-SECRET-4711" > "$T/secret.txt"
cat > "$T/c2.yaml" <<CFG
agents:
  - {name: link, template: command, command: [sh, -c, 'rm -f kernel.c; ln -s "\$EXPORT_SECRET" kernel.c']}
  - {name: fifo, template: command, command: [sh, -c, 'rm -f kernel.c; mkfifo kernel.c']}
tasks: [p/flip]
device: host
timing: {case_budget_s: 0.2, blocks: 1, min_pairs: 6, max_pairs: 30}
CFG
EXPORT_SECRET="$T/secret.txt" "$ARENA" --store "$STORE" run "$T/c2.yaml" --run-suffix tricks \
	>"$T/run2.log" 2>&1 || fail "run: $(tail -n 20 "$T/run2.log")"
run2=$(ls -1 "$STORE/runs" | grep '_tricks$')
w="$STORE/runs/$run2/tasks"
[ -L "$w/p_flip/workspace/kernel.c" ] && [ -p "$w/p_flip__r2/workspace/kernel.c" ] ||
	fail "the agents left no link and FIFO (the test proves nothing): $(ls -l "$w"/*/workspace/)"
timeout 60 "$ARENA" --store "$STORE" export "$run2" -o "$T/ep3.jsonl" ||
	fail "export of a workspace holding a link and a FIFO failed or hung"
grep -q ARENA-EXPORT-SECRET "$T/ep3.jsonl" &&
	fail "export followed an agent's link into an episode: $(grep -o '.\{60\}ARENA-EXPORT-SECRET.\{20\}' "$T/ep3.jsonl" | head -n 1)"
[ "$(grep -c '"final_sources":{"kernel.c":null}' "$T/ep3.jsonl")" = 2 ] ||
	fail "a link or FIFO counted as a source: $(grep -o '"final_sources":{[^}]*}' "$T/ep3.jsonl")"
note "export: an agent's link and FIFO named like its source count as deleted"
echo "PASS export_episodes"
