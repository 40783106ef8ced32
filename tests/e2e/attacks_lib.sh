# tests/e2e/attacks_lib.sh - agent-level attacks of issue 10 (items 5, 6,
# 7, 11), shared by agent_attacks.sh (through `arena run`) and
# fs_agent_attacks.sh (through a real mount); sourced after lib.sh.
#
# One run, one task (c2c/gemm), one agent configuration per attack
# (tests/agents/attacks/*.sh), attempts numbered in this order:
#   1 baseline_edit  sandbox off: slows ../baseline 30x (or the baseline it
#                    finds through the controller's --store); the verdict
#                    must stay near 1, not 30
#   2 late_on        leaves a setsid writer and a TERM-proof sleeper
#   3 late_off       the same with sandbox: off; both must be gone before
#                    the snapshot, the late write must never be seen
#   4 seeker         looks for held-out data, references, trusted copies,
#                    stores and the catalogue anywhere: finds nothing
#   5 seeker_off     the same unconfined: finds them (the probe works)
#   6 big            writes 2 GiB under a 64 MiB quota: stopped with a
#                    clear error, nothing of it kept
#   7 deep           writes 180 MiB 70 directories down, under a 64 MiB
#                    quota: stopped with a clear error, nothing kept
#   8 inodes         writes 100000 empty files under a 64 MiB quota: the
#                    same
A="$ROOT/tests/agents/attacks"

# Plants what the seeker must not find besides the run's own store and
# catalogue: a second store and a copy of the catalogue elsewhere on disk.
plant() {
	mkdir -p "$T/planted-store/runs" "$T/planted-catalogue"
	: > "$T/planted-store/arena.db"
	cp -r "$ROOT/tasks/c2c" "$T/planted-catalogue/"
	P=$(mktemp -d /var/tmp/planted-catalogue.XXXXXX)
	cp -r "$ROOT/tasks/c2c/gemm" "$P/"
}

attacks_config() {	# file
	cat > "$1" <<CFG
agents:
  - {name: baseline_edit, template: command, command: [sh, $A/baseline_edit.sh], options: {sandbox: "off"}}
  - {name: late_on, template: command, command: [sh, $A/late_writer.sh]}
  - {name: late_off, template: command, command: [sh, $A/late_writer.sh], options: {sandbox: "off"}}
  - {name: seeker, template: command, command: [sh, $A/seeker.sh], timeout_seconds: 300}
  - {name: seeker_off, template: command, command: [sh, $A/seeker.sh], options: {sandbox: "off"}, timeout_seconds: 20}
  - {name: big, template: command, command: [sh, $A/big_writer.sh], disk_quota_mb: 64}
  - {name: deep, template: command, command: [sh, $A/deep_writer.sh], disk_quota_mb: 64}
  - {name: inodes, template: command, command: [sh, $A/inode_writer.sh], disk_quota_mb: 64}
tasks: [c2c/gemm]
device: host
seed: 7
timing: {case_budget_s: 0.2, blocks: 1, min_pairs: 5, max_pairs: 30}
CFG
}

field() {	# yaml top-level key
	sed -n "s/^$2: //p" "$1" | head -n 1
}

# Checks every attempt of run directory $1; fails naming the attack.
attacks_check() {
	d="$1/tasks"
	for a in 1 2 3 4 5 6 7 8; do
		t="$d/c2c_gemm"; [ $a -gt 1 ] && t="${t}__r$a"
		[ -f "$t/task_result.yaml" ] || fail "attempt $a has no result"
	done
	r="$d/c2c_gemm/task_result.yaml"
	grep -q real_launch "$d/c2c_gemm/baseline/kernel.c" ||
		fail "baseline_edit did not manage to edit the run's baseline/ (the test proves nothing)"
	[ "$(field "$r" status)" = ok ] || fail "baseline_edit: $(field "$r" status)"
	sp=$(field "$r" speedup_ratio)
	awk -v s="$sp" 'BEGIN { exit !(s > 0.5 && s < 3) }' ||
		fail "baseline_edit moved the verdict: speedup $sp (a 30x slower baseline was used?)"
	note "baseline_edit: run baseline/ edited, verdict ok at speedup $sp"

	for a in 2 3; do
		t="$d/c2c_gemm__r$a"
		[ "$(field "$t/task_result.yaml" status)" = ok ] ||
			fail "late writer $a: $(field "$t/task_result.yaml" status): $(grep -E '_message: [^n]|^ +error: [^n]' "$t/task_result.yaml" | head -n 5)"
		grep -q "written after the agent ended" "$t/workspace/kernel.c" &&
			fail "late writer $a: its process wrote the workspace after it ended"
		# Unconfined, the holder's sweep kills both (sandboxed, they
		# die with bubblewrap's own PID namespace first).
		k=$(sed -n 's/.*"leftover_processes_killed":\([0-9]*\).*/\1/p' "$t/logs/trace.jsonl" | tail -n 1)
		[ $a = 3 ] && [ "${k:-0}" -lt 2 ] &&
			fail "late writer $a: ${k:-no} leftover processes killed, expected 2"
		grep -q '"contained":"pid_namespace"\|"contained":"subreaper"' "$t/logs/trace.jsonl" ||
			fail "late writer $a: not contained"
		note "late writer $a: verdict ok, no late write ($k processes killed by the sweep)"
	done
	pgrep -f "written after the agent ended" >/dev/null &&
		fail "a late writer is still running"

	t="$d/c2c_gemm__r4"
	[ -f "$t/workspace/found.txt" ] || fail "seeker wrote no found.txt"
	[ -s "$t/workspace/found.txt" ] &&
		fail "seeker found: $(head -n 20 "$t/workspace/found.txt")"
	t5="$d/c2c_gemm__r5"
	[ -s "$t5/workspace/found.txt" ] ||
		fail "seeker_off (unconfined) found nothing: the seeker proves nothing"
	note "seeker: found nothing in the sandbox; unconfined it found $(wc -l < "$t5/workspace/found.txt") things"

	t="$d/c2c_gemm__r6"
	y="$t/task_result.yaml"
	sed -n '/^agent_execution:/,/^[a-z]/p' "$y" | grep -q "status: failed" ||
		fail "big: agent not failed: $(sed -n '/^agent_execution:/,/^[a-z]/p' "$y")"
	grep -q "disk quota of 64 MiB" "$y" || fail "big: no quota error in $y"
	ls "$t/workspace" | grep -q '\.bin$' && fail "big: the store kept $(ls "$t/workspace")"
	kb=$(du -sk "$t" | cut -f1)
	[ "$kb" -lt 20000 ] || fail "big: the attempt holds $kb KiB"
	[ "$(field "$y" status)" = ok ] || fail "big: verdict $(field "$y" status)"
	note "big: stopped over its quota, $kb KiB kept, verdict ok"

	for a in 7 8; do
		t="$d/c2c_gemm__r$a"
		y="$t/task_result.yaml"
		sed -n '/^agent_execution:/,/^[a-z]/p' "$y" | grep -q "status: failed" ||
			fail "quota attack $a: agent not failed: $(sed -n '/^agent_execution:/,/^[a-z]/p' "$y")"
		grep -q "agent.disk_quota_mb" "$y" || fail "quota attack $a: no quota error in $y"
		[ -e "$t/workspace/d" ] || [ -e "$t/workspace/many" ] &&
			fail "quota attack $a: the store kept $(ls "$t/workspace")"
		kb=$(du -sk "$t" | cut -f1)
		[ "$kb" -lt 20000 ] || fail "quota attack $a: the attempt holds $kb KiB"
		[ "$(field "$y" status)" = ok ] || fail "quota attack $a: verdict $(field "$y" status)"
		note "quota attack $a: stopped, $kb KiB kept, verdict ok"
	done
}
