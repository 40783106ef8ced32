#!/bin/sh
# tests/e2e/aka_config_keys.sh - AgentKernelArena's run-config keys that
# arena accepts do what they do in AKA (docs/config.md): log_directory
# gets the run's events in <dir>/<GPU>_<agent>_<stamp>.log, appended by
# later executions from anywhere; workspace_directory_prefix gets
# <prefix>_<GPU>_<agent>/<run>/, AKA's run directory: a link to each
# attempt's directory and reports/ with AKA's dashboard files, found where
# AKA's dashboard looks (real files whose real path is
# <prefix>_*/run_*/reports, naming target_gpu_model); a directory that
# cannot be made stops the run's creation with the reason; AKA keys arena
# does not take are refused, naming the ones it takes.  A sandboxed agent
# allowed to read the directory around them finds neither place (every
# run's results and events) nor the other tasks of its task root (their
# references and held-out cases).
. "$(dirname "$0")/lib.sh"

mkdir -p "$T/cwd" "$T/elsewhere"
cd "$T/cwd" || exit 1
write_config "$T/c.yaml" "{template: noop}" "[c2c/saxpy]" \
	"log_directory: logs
workspace_directory_prefix: ws"
"$ARENA" --store "$STORE" run "$T/c.yaml" >"$T/run.log" 2>&1 || fail "run: $(tail -n 20 "$T/run.log")"
run=$(latest_run)
stamp=${run#run_}
log="$T/cwd/logs/host_noop_$stamp.log"
[ -f "$log" ] || fail "no log at $log: $(ls -R "$T/cwd")"
for kind in created started agent_start agent_end eval_start eval_end done; do
	grep -q "^20[0-9-]*T[0-9:]*Z $kind " "$log" || fail "the log has no $kind line: $(cat "$log")"
done
grep -q "eval_end    c2c/saxpy " "$log" || fail "the log does not name the task"
place="$T/cwd/ws_host_noop/$run"
[ -d "$place" ] && [ ! -L "$place" ] || fail "no run directory at $place: $(ls -lR "$T/cwd")"
[ -L "$place/c2c_saxpy" ] && [ -f "$place/c2c_saxpy/workspace/kernel.c" ] ||
	fail "the run directory does not link the attempt's workspace: $(ls -l "$place")"
# AKA's dashboard resolves each report directory and keeps it only when
# its real path is <prefix>_*/run_*/reports under its project root.
real=$(cd "$place/reports" 2>/dev/null && pwd -P) || fail "no reports/ in $place"
case $real in
"$(cd "$T/cwd" && pwd -P)"/ws_*/run_*/reports) ;;
*) fail "reports/ resolves to $real, outside the run directory" ;;
esac
for f in overall_summary.csv task_type_breakdown.json overall_report.txt; do
	[ -f "$place/reports/$f" ] && [ ! -L "$place/reports/$f" ] ||
		fail "reports/$f is not a file of the run directory"
	cmp -s "$place/reports/$f" "$(run_dir_of "$run")/reports/$f" ||
		fail "reports/$f differs from the run's own"
done
grep -q '^PASS  *c2c/saxpy  *Score: ' "$place/reports/overall_report.txt" ||
	fail "overall_report.txt has no line for c2c/saxpy: $(cat "$place/reports/overall_report.txt")"
note "log_directory and workspace_directory_prefix, relative to the current directory"

# target_gpu_model names the GPU in the place and in AKA's files.
write_config "$T/m.yaml" "{template: noop}" "[c2c/saxpy]" \
	"target_gpu_model: MI300
workspace_directory_prefix: workspace"
"$ARENA" --store "$STORE" run "$T/m.yaml" >"$T/m.log" 2>&1 || fail "run: $(tail -n 20 "$T/m.log")"
mrun=$(latest_run)
grep -q '"target_gpu":[[:space:]]*"MI300"' "$T/cwd/workspace_MI300_noop/$mrun/reports/task_type_breakdown.json" ||
	fail "task_type_breakdown.json does not name target_gpu_model: $(ls -R "$T/cwd")"
note "target_gpu_model is the GPU AKA's files name"

# A later execution from elsewhere appends to the same log.
lines=$(wc -l < "$log")
( cd "$T/elsewhere" && "$ARENA" --store "$STORE" resume "$run" >/dev/null 2>&1 ) || fail "resume failed"
[ "$(wc -l < "$log")" -gt "$lines" ] || fail "resume did not append to the run's log"
[ ! -e "$T/elsewhere/logs" ] || fail "resume from elsewhere made a second log directory"
note "a resume from another directory appends to the same log"

# A sandboxed agent that may read the directory holding the places and
# a task root: the log directory, every run's AKA directory and the task
# root are masked inside its sandbox; its own workspace is not.
if "$ARENA" check-agents --agents noop --json 2>/dev/null | grep -q '"sandbox":	true'; then
	mkdir -p "$T/cwd/roots/c2c"
	cp -R "$ROOT/tasks/c2c/saxpy" "$ROOT/tasks/c2c/dot" "$T/cwd/roots/c2c/"
	cat > "$T/look.sh" <<EOF
for p in "$T/cwd/logs" "$T/cwd/ws_host_noop" "$T/cwd/ws_host_command" \
	"$T/cwd/roots/c2c/dot/held_out.yaml" "$T/cwd/roots/c2c/dot/config.yaml"; do
	if [ -n "\$(ls -A "\$p" 2>/dev/null)" ]; then echo "seen \$p"; else echo "hidden \$p"; fi
done > seen.txt
ls "$T/cwd" >> seen.txt
EOF
	cat > "$T/s.yaml" <<EOF
agent:
  template: command
  command: [sh, "$T/look.sh"]
  options: {sandbox: "on", expose: "$T/cwd"}
tasks: [mine/c2c/saxpy]
task_roots: {mine: "$T/cwd/roots"}
device: host
timing: {case_budget_s: 0.2, blocks: 1, min_pairs: 6, max_pairs: 30}
log_directory: logs
workspace_directory_prefix: ws
EOF
	"$ARENA" --store "$STORE" run "$T/s.yaml" >"$T/s.log" 2>&1 || fail "sandboxed run: $(tail -n 20 "$T/s.log")"
	seen=$(run_dir_of "$(latest_run)")/tasks/mine_c2c_saxpy/workspace/seen.txt
	[ -f "$seen" ] || fail "the sandboxed agent wrote nothing: $(tail -n 20 "$T/s.log")"
	grep -qx "roots" "$seen" || fail "the agent could not read the exposed directory: $(cat "$seen")"
	grep "^seen " "$seen" && fail "a sandboxed agent read the places or the task root: $(cat "$seen")"
	[ "$(grep -c '^hidden ' "$seen")" = 5 ] || fail "unexpected: $(cat "$seen")"
	# Listed once each however many runs share them.
	for d in logs ws_host_noop ws_host_command; do
		[ "$(grep -cx "$(cd "$T/cwd" && pwd -P)/$d" "$STORE/places")" = 1 ] ||
			fail "$STORE/places does not list $d once: $(cat "$STORE/places")"
	done
	note "the places and the task root are hidden from a sandboxed agent that may read around them"
else
	note "skip: the sandbox part (bubblewrap is not available here)"
fi

# A log directory that cannot be made: the run is not created, the
# reason is given.
touch "$T/cwd/blocked"
write_config "$T/b.yaml" "{template: noop}" "[c2c/saxpy]" "log_directory: blocked/logs"
"$ARENA" --store "$STORE" run "$T/b.yaml" >"$T/b.log" 2>&1 && fail "a log directory under a file was accepted"
grep -q "log_directory 'blocked/logs'" "$T/b.log" || fail "the error does not name log_directory: $(cat "$T/b.log")"

# AKA keys arena does not take are refused with the list of those it takes.
write_config "$T/g.yaml" "{template: noop}" "[c2c/saxpy]" "gpu_ids: [0, 1]"
"$ARENA" --store "$STORE" run "$T/g.yaml" >"$T/g.log" 2>&1 && fail "gpu_ids was accepted"
grep -q "gpu_ids" "$T/g.log" && grep -q "log_directory" "$T/g.log" ||
	fail "the refusal does not name the key and the allowed ones: $(cat "$T/g.log")"
note "what cannot be honoured is refused with the reason"
echo "PASS aka_config_keys"
