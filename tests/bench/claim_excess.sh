#!/bin/sh
# tests/bench/claim_excess.sh - how much of the host claim check's
# allowance honest candidates use (docs/evaluator.md §6, "Are the
# runner's times real?").  Per timed case, from timing.tsv, the check's
# own two statistics against their limits (timing_host.c
# host_claims_ok): the median over pairs of d = max(e_c, o) - max(e_b, o),
# e = cpu - claim of a side's request and o the protocol cost, against
# max(20 us, 1% of the candidate's claim) + 3 standard errors; and the
# pairs whose d clears that margin + 3 spreads, less those as far below,
# against max(3, 25% of the pairs).  A ratio of 1 or more is a finding
# (an honest candidate's is a false rejection when it comes back in the
# second timing); the status of each evaluation is printed as it ends.
# Honest candidates: every c2c task's baseline in the candidate's runner
# (--aa), tests/adversarial/honest/*, and (where python3 has torch) the
# autotuned Horner kernel of tests/python/task/pypoly_tune with its
# held-out cases; the shave_* cheats for scale.
# BUILDS compares builds side by side: each evaluation runs once per
# build, in turn (a directory under the repository, or absolute).
# SETS limits what runs (aa honest python adv, all by default); KEEP=DIR
# keeps the logs there.
# usage: [LOAD=N] [BUILDS="build /tmp/old/build"] [TASKS="c2c/gemm ..."]
#        [ROUNDS=N] [SETS="python adv"] [KEEP=DIR] tests/bench/claim_excess.sh
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILDS=${BUILDS:-${B:-build}}
LOAD=${LOAD:-0}
ROUNDS=${ROUNDS:-1}
SETS=${SETS:-aa honest python adv}
TASKS=${TASKS:-$(cd "$ROOT/tasks" && ls -d c2c/*/ | sed 's,/$,,')}
STORE=$(mktemp -d /tmp/arena-claim-excess.XXXXXX)
KEEP=${KEEP:-}
. "$ROOT/tests/bench/busy_loops.sh"
trap 'stop_busy_loops; [ -z "$KEEP" ] || cp -R "$STORE/logs" "$KEEP"; rm -rf "$STORE"' EXIT
start_busy_loops "$LOAD"
echo "claim_excess: $LOAD busy loops on $(nproc) CPUs, builds: $BUILDS," \
	"commit $(git -C "$ROOT" rev-parse --short HEAD), $(date -u +%FT%TZ)"

build_dir() {
	case $1 in
	/*) echo "$1" ;;
	*) echo "$ROOT/$1" ;;
	esac
}

# one LABEL TASKS_DIR TASK [eval options]: evaluate with every build in
# turn, keep each timing.tsv under logs/BUILD#LABEL#ROUND.
one() {
	label=$1 tdir=$2 task=$3
	shift 3
	for b in $BUILDS; do
		tag=$(echo "$b" | tr / _)
		dir="$STORE/logs/$tag#$label#$round"
		mkdir -p "$dir"
		"$(build_dir "$b")/arena" --store "$STORE/store-$tag" \
			--tasks-dir "$tdir" eval "$task" --no-cache \
			--logs "$dir" "$@" > "$dir/result.yaml" 2>&1
		st=$(sed -n 's/^status: //p' "$dir/result.yaml")
		echo "$b $label round $round: $st"
	done
}

py=/usr/bin/python3
[ -x "$py" ] || py=python3
horner=
if "$py" -c 'import torch' 2> /dev/null; then
	horner="$STORE/horner"
	export ARENA_PYTHON="$py"
	mkdir -p "$horner"
	sed 's/^HORNER = 0$/HORNER = 1/' \
		"$ROOT/tests/python/task/pypoly_tune/kernel.py" > "$horner/kernel.py"
fi

round=1
while [ "$round" -le "$ROUNDS" ]; do
	case " $SETS " in *" aa "*)
		for t in $TASKS; do
			one "aa:$(echo "$t" | tr / _)" "$ROOT/tasks" "$t" --aa --timing-only
		done ;;
	esac
	case " $SETS " in *" honest "*)
		for h in "$ROOT"/tests/adversarial/honest/*/; do
			n=$(basename "$h")
			one "honest:$n" "$ROOT/tasks" "c2c/${n%%_*}" --workspace "$h"
		done ;;
	esac
	case " $SETS " in *" python "*)
		[ -z "$horner" ] || one "honest:pypoly_horner" "$ROOT/tests/python" \
			task/pypoly_tune --workspace "$horner" --held-out ;;
	esac
	case " $SETS " in *" adv "*)
		for c in optimized shave_old_allowance shave_new_allowance; do
			one "adv:$c" "$ROOT/tests/adversarial" task/vecpoly \
				--workspace "$ROOT/tests/adversarial/candidates/$c"
		done ;;
	esac
	round=$((round + 1))
done

"$py" - "$STORE/logs" <<'EOF'
import math, os, re, statistics as st, sys
root = sys.argv[1]
print()
print("| build | evaluation | round | case | pairs | claim us | o us | median d us | bound us | median/bound | above - below | needed | share ratio |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
worst = {}
for entry in sorted(os.listdir(root)):
    build, label, rnd = entry.split("#")
    path = os.path.join(root, entry, "timing.tsv")
    if not os.path.exists(path):
        continue
    # A case's protocol cost is marked after its pairs; a case timed
    # twice (a finding, then fresh runners) has two runs of pairs, each
    # followed by its own mark, and each is judged on its own.
    marks, cases, col = {}, {}, None
    for line in open(path):
        m = re.search(r"case (\S+): protocol cost ([0-9.]+) us", line)
        if m:
            seg = marks.setdefault(m.group(1), [])
            seg.append(float(m.group(2)) * 1e3)
            continue
        if line.startswith("#"):
            continue
        f = line.rstrip("\n").split("\t")
        if f[0] == "case":
            col = {k: i for i, k in enumerate(f)}
            continue
        if col is None or f[col["kind"]] != "timed":
            continue
        g = lambda k: float(f[col[k]])
        cases.setdefault((f[0], len(marks.get(f[0], []))), []).append(
            (g("base_claim_ns"), g("cand_claim_ns"), g("base_cpu_ns"), g("cand_cpu_ns")))
    for (case, seg), rows in sorted(cases.items()):
        ms = marks.get(case, [])
        oc = ms[seg] if seg < len(ms) else 0.0
        n = len(rows)
        d = [max(cc - c, oc) - max(bc - b, oc) for b, c, bc, cc in rows]
        md = st.median(d)
        spread = 1.4826 * st.median(abs(x - md) for x in d)
        noise = 3.0 * 1.2533 * spread / math.sqrt(n)
        margin = max(20e3, 0.01 * st.median(r[1] for r in rows))
        bound, line = margin + noise, margin + 3.0 * spread
        net = sum(x > line for x in d) - sum(x < -line for x in d)
        need = max(3, 0.25 * n)
        r1, r2 = md / bound, net / need
        key = (build, label.split(":")[0])
        worst[key] = max(worst.get(key, -9), r1, r2)
        print(f"| {build} | {label} | {rnd} | {case} | {n} | "
              f"{st.median(r[1] for r in rows) / 1e3:.1f} | {oc / 1e3:.1f} | "
              f"{md / 1e3:.1f} | {bound / 1e3:.1f} | {r1:.2f} | {net} | "
              f"{need:.1f} | {r2:.2f} |")
print()
print("largest ratio (a finding at 1.00) per build and kind of evaluation:")
for (build, kind), w in sorted(worst.items()):
    print(f"  {build} {kind}: {w:.2f}")
EOF
