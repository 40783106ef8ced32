#!/bin/sh
# tests/bench/claim_excess.sh - how much of the host claim check's
# allowance honest candidates use (docs/evaluator.md §6, "Are the
# runner's times real?").  Per timed case, from timing.tsv: the
# candidate's median (cpu - claim) less the larger of the protocol cost o
# and the baseline's median (cpu - claim), in us and as a fraction of the
# candidate's median claim, next to the per-pair difference's median
# (what the check holds since 2026-12-04: pair by pair).
# Honest candidates: every c2c task's baseline in the candidate's runner
# (--aa) and tests/adversarial/honest/*; the shave_* cheats for scale.
# usage: [LOAD=N] [B=build] [TASKS="c2c/gemm ..."] tests/bench/claim_excess.sh
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=${B:-build}
LOAD=${LOAD:-0}
ARENA="$ROOT/$B/arena"
TASKS=${TASKS:-$(cd "$ROOT/tasks" && ls -d c2c/*/ | sed 's,/$,,')}
STORE=$(mktemp -d /tmp/arena-claim-excess.XXXXXX)
. "$ROOT/tests/bench/busy_loops.sh"
trap 'stop_busy_loops; rm -rf "$STORE"' EXIT
start_busy_loops "$LOAD"
echo "claim_excess: $LOAD busy loops on $(nproc) CPUs, commit $(git -C "$ROOT" rev-parse --short HEAD), $(date -u +%FT%TZ)"

# one LABEL TASKS_DIR TASK [eval options]: evaluate, keep timing.tsv.
one() {
	label=$1 tdir=$2 task=$3
	shift 3
	mkdir -p "$STORE/logs/$label"
	"$ARENA" --store "$STORE/store" --tasks-dir "$tdir" eval "$task" \
		--no-cache --logs "$STORE/logs/$label" "$@" \
		> "$STORE/logs/$label/result.yaml" 2>&1
	st=$(sed -n 's/^status: //p' "$STORE/logs/$label/result.yaml")
	echo "$label: $st"
}

for t in $TASKS; do
	one "aa:$(echo "$t" | tr / _)" "$ROOT/tasks" "$t" --aa --timing-only
done
for h in "$ROOT"/tests/adversarial/honest/*/; do
	n=$(basename "$h")
	task=c2c/${n%%_*}
	one "honest:$n" "$ROOT/tasks" "$task" --workspace "$h"
done
for c in optimized shave_old_allowance shave_new_allowance; do
	one "adv:$c" "$ROOT/tests/adversarial" task/vecpoly \
		--workspace "$ROOT/tests/adversarial/candidates/$c"
done

python3 - "$STORE/logs" <<'EOF'
import os, re, statistics as st, sys
root = sys.argv[1]
print("| evaluation | case | pairs | claim us | o us | base e us | cand e us | excess us | excess/claim | paired median us |")
print("|---|---|---|---|---|---|---|---|---|---|")
for label in sorted(os.listdir(root)):
    path = os.path.join(root, label, "timing.tsv")
    if not os.path.exists(path):
        continue
    o, cases = {}, {}
    for line in open(path):
        m = re.search(r"case (\S+): protocol cost ([0-9.]+) us", line)
        if m:
            o[m.group(1)] = float(m.group(2))
            continue
        if line.startswith("#"):
            continue
        f = line.rstrip("\n").split("\t")
        if len(f) < 20 or f[2] != "timed":
            continue
        cases.setdefault(f[0], []).append(
            (int(f[6]), int(f[7]), int(f[16]), int(f[17])))
    for case, rows in sorted(cases.items()):
        eb = [(bc - b) / 1e3 for b, c, bc, cc in rows]
        ec = [(cc - c) / 1e3 for b, c, bc, cc in rows]
        claim = st.median(c for b, c, bc, cc in rows) / 1e3
        bo = max(o.get(case, 0.0), st.median(eb))
        ex = st.median(ec) - bo
        paired = st.median(x - y for x, y in zip(ec, eb))
        print(f"| {label} | {case} | {len(rows)} | {claim:.1f} | {o.get(case, 0.0):.1f} | "
              f"{st.median(eb):.1f} | {st.median(ec):.1f} | {ex:.1f} | "
              f"{ex / claim if claim else 0:.3f} | {paired:.1f} |")
EOF
