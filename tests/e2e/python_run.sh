# Python tasks through `arena run`, as an agent meets them (docs/python.md):
# an agent that edits nothing and calls the MCP tool (`arena mcp call`,
# through the run's evaluation bridge) on a CPU PyTorch task gets a correct
# quick evaluation and the task's description from it, its final result is
# an A/A accepted near 1, and TASK.md describes the Python contract; the
# autotune agent finds the tunable (a module-level constant) that makes
# tests/python/task/pypoly_tune faster and writes it at the end of
# kernel.py, where the final evaluation, which uses no -D, sees it; `arena
# eval` of a broken module is a compile error naming the line.  (The noop
# template's A/A on Python tasks is tests/gpu/python.sh's; an agent that
# edits nothing is the same A/A here, one run fewer for CI.)  Skipped where
# python3 cannot import torch.
. "$(dirname "$0")/lib.sh"
PY=${ARENA_PYTHON:-/usr/bin/python3}
"$PY" -c 'import torch' >/dev/null 2>&1 || { echo "skip: $PY cannot import torch"; exit 77; }
export ARENA_TASKS_DIR="$ROOT/tests/python"

# The MCP tool through the run's bridge, as an agent without an MCP client
# calls it: a command agent runs `arena mcp call` in its workspace.
cat > "$T/mcp.yaml" <<EOF
agent:
  template: command
  command: [sh, -c, '"$ARENA" mcp call evaluate --quick > mcp_eval.out 2>&1; "$ARENA" mcp call show_task > mcp_task.out 2>&1']
tasks: [task/pypoly]
device: host
timing: {case_budget_s: 0.4, blocks: 2, min_pairs: 6, max_pairs: 60}
EOF
"$ARENA" --store "$STORE" run "$T/mcp.yaml" --run-suffix pymcp > "$T/mcp.log" 2>&1 ||
	{ cat "$T/mcp.log"; fail "mcp run failed"; }
w=$(run_dir_of "$(latest_run)")/tasks/task_pypoly/workspace
grep -q 'Verdict: correct (status ok)' "$w/mcp_eval.out" || fail "mcp evaluate: $(head -c 600 "$w/mcp_eval.out")"
grep -q 'launch(args, params)' "$w/mcp_task.out" || fail "mcp show_task: $(head -c 300 "$w/mcp_task.out")"
r=$(run_dir_of "$(latest_run)")/tasks/task_pypoly/task_result.yaml
grep -q '^status: ok' "$r" || fail "A/A: $(grep -E '^(status|.*error_message)' "$r")"
s=$(sed -n 's/^speedup_ratio: //p' "$r")
awk -v s="$s" 'BEGIN { exit !(s > 0.7 && s < 1.4) }' || fail "A/A speedup $s"
grep -q 'must define `launch(args, params)`' "$w/TASK.md" || fail "TASK.md: no Python contract"
grep -q 'cc -O2' "$w/TASK.md" && fail "TASK.md speaks of cc for a Python task"
note "mcp: evaluate and show_task through the bridge; A/A ok, speedup $s"

write_config "$T/tune.yaml" "{template: autotune, timeout_seconds: 900}" "[task/pypoly_tune]"
"$ARENA" --store "$STORE" run "$T/tune.yaml" --run-suffix pytune > "$T/tune.log" 2>&1 ||
	{ cat "$T/tune.log"; fail "autotune run failed"; }
d=$(run_dir_of "$(latest_run)")
k=$d/tasks/task_pypoly_tune/workspace/kernel.py
r=$d/tasks/task_pypoly_tune/task_result.yaml
tail -n 3 "$k" | grep -q '^HORNER = 1$' ||
	fail "autotune did not write HORNER = 1 at the end: $(tail -n 5 "$k"); its result: $(grep -E '^(status|optimization_summary|agent_status|agent_error):' "$r"); its turns: $(grep 'agent turn' "$T/tune.log")"
grep -q '^status: ok' "$r" || fail "autotune result: $(grep -E '^(status|.*error_message)' "$r")"
s=$(sed -n 's/^speedup_ratio: //p' "$r")
awk -v s="$s" 'BEGIN { exit !(s > 1.5) }' || fail "autotuned speedup $s"
note "autotune: HORNER = 1, final speedup $s"

mkdir -p "$T/ws"
printf 'import torch\n\ndef launch(args, params)\n    pass\n' > "$T/ws/kernel.py"
"$ARENA" --store "$STORE" eval task/pypoly --workspace "$T/ws" > "$T/bad.yaml" 2>&1
grep -q '^status: compile_error' "$T/bad.yaml" || fail "broken module: $(head -n 5 "$T/bad.yaml")"
grep -q "kernel.py:3:" "$T/bad.yaml" || fail "compile error does not name the line"

# A virtual environment first on PATH (the H200's torch lives in one; its
# bin/python3 is a symlink to the system interpreter, which finds the
# environment only through the link's own path): arena keeps the link's
# path as the interpreter, and a candidate evaluates through it.
if /usr/bin/python3 -m venv --without-pip --system-site-packages "$T/venv" >/dev/null 2>&1; then
	PATH="$T/venv/bin:$PATH" ARENA_PYTHON= "$ARENA" --store "$STORE" doctor > "$T/venv_doctor.txt" 2>&1
	grep -qE "^ +python +$T/venv/bin/python3 " "$T/venv_doctor.txt" ||
		fail "a venv first on PATH: doctor names $(grep -E '^ +python ' "$T/venv_doctor.txt")"
	mkdir -p "$T/venv_ws"
	PATH="$T/venv/bin:$PATH" ARENA_PYTHON= "$ARENA" --store "$STORE" eval task/pypoly \
		--aa --quick > "$T/venv_eval.yaml" 2>&1
	grep -q '^status: ok' "$T/venv_eval.yaml" ||
		fail "A/A with the venv's python3: $(grep -E '^(status|.*error_message)' "$T/venv_eval.yaml")"
	note "venv: interpreter $T/venv/bin/python3, A/A ok"
else
	note "venv: python3 -m venv unavailable here, not checked"
fi
echo ok
