#!/bin/sh
# tests/e2e/progress_tty.sh - `arena run` on a terminal shows a status line
# (attempts done of all, elapsed, ETA, what runs now: the agent's turns and
# the evaluation's step), redrawn in place; into a pipe it prints the plain
# event lines only, without a control byte, as scripts expect.  The
# terminal is a pseudo-terminal from script(1) (util-linux); without it
# the test skips.
. "$(dirname "$0")/lib.sh"

command -v script >/dev/null 2>&1 || { echo "script(1) is not installed (util-linux)"; exit 77; }

# A small private task with one tunable of two values: autotune takes two
# turns on it.  Its case is large enough to be timed (a call of about
# 0.2 ms, above the timing floor), so the evaluation spends its seconds in
# the timing step, where the status line (redrawn every second) shows it.
mkdir -p "$T/tasks/p/flip"
cp "$ROOT/tests/adversarial/task/bytemap/kernel.c" \
   "$ROOT/tests/adversarial/task/bytemap/reference.c" "$T/tasks/p/flip/"
cat > "$T/tasks/p/flip/config.yaml" <<'EOF'
schema: arena/1
description: y = 255 - x over bytes (progress test).
language: c
editable: [kernel.c]
reference: {file: reference.c, language: c}
signature:
  params: [n]
  args:
    - {name: x, dtype: u8, shape: [n], io: in, init: {dist: randint, low: "0", high: "255"}}
    - {name: y, dtype: u8, shape: [n], io: out}
cases:
  - {id: small, n: 262144}
tunables: {UNUSED: [1, 2]}
EOF
export ARENA_TASKS_DIR="$T/tasks"
write_config "$T/c.yaml" "{template: autotune, timeout_seconds: 300}" "[p/flip]" \
	"repeats: 2"

# On a terminal.
COLUMNS=200 script -qfec "stty cols 200 2>/dev/null; '$ARENA' --store '$STORE' run '$T/c.yaml'" \
	"$T/tty.log" >/dev/null 2>&1 || fail "arena run on a terminal failed: $(tail -c 2000 "$T/tty.log")"
esc=$(printf '\033')
grep -q "${esc}\[K\[0/2\] 00:00:0[0-9] elapsed, ETA --:--:--" "$T/tty.log" ||
	fail "no status line at the start: $(head -c 600 "$T/tty.log")"
grep -q "\[1/2\] [0-9:]* elapsed, ETA [0-9][0-9]:" "$T/tty.log" ||
	fail "no ETA after the first attempt finished"
grep -q "\[2/2\] [0-9:]* elapsed, ETA 00:00:00" "$T/tty.log" || fail "no final 2/2 status"
grep -q "| p/flip#[12]: agent turn 1: trying UNUSED=1" "$T/tty.log" ||
	fail "the status line does not show the agent's turns"
grep -q "| p/flip#[12]: .*evaluating: timing" "$T/tty.log" ||
	fail "the status line does not show the evaluation's step"
# Event lines still appear, each on a line of its own after the status
# line is cleared.
grep -q "${esc}\[K[0-9:]*Z eval_end    p/flip" "$T/tty.log" ||
	fail "event lines are not printed over a cleared status line"
note "on a terminal: k/N, elapsed, ETA, agent turns and evaluation steps"

# Into a pipe: plain lines, no control bytes, the same events.
"$ARENA" --store "$STORE" run "$T/c.yaml" >"$T/pipe.log" 2>&1 || fail "arena run into a pipe failed"
if grep -q "$esc" "$T/pipe.log"; then fail "escape sequences in piped output"; fi
if grep -q 'elapsed, ETA' "$T/pipe.log"; then fail "a status line in piped output"; fi
[ "$(grep -c '^[0-9:]*Z eval_end    p/flip ' "$T/pipe.log")" = 2 ] ||
	fail "piped output does not have one eval_end line per attempt: $(cat "$T/pipe.log")"
grep -q '^[0-9:]*Z agent_start p/flip ' "$T/pipe.log" || fail "no agent_start line in piped output"
note "into a pipe: one plain line per event, no control bytes"
echo "PASS progress_tty"
