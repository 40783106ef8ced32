# tests/e2e/lib.sh - helpers for end-to-end tests (sourced).
# Each test gets a private store and scratch directory under $T, removed on
# exit (kept, and named on stderr, with ARENA_E2E_KEEP=1: to read a
# failure's store); ARENA is the binary under test; fail() prints and
# exits 1.
set -u
B=${B:-build}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
ARENA="$ROOT/$B/arena"
T=$(mktemp -d /tmp/arena-e2e.XXXXXX)
STORE="$T/store"
export ARENA_TASKS_DIR="${ARENA_TASKS_DIR:-$ROOT/tasks}"
trap 'if [ -n "${ARENA_E2E_KEEP:-}" ]; then echo "kept $T" >&2; else rm -rf "$T"; fi' EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }
note() { echo "-- $*"; }

# A run config with a small timing budget so tests stay fast: one block
# of 6 pairs a case (a noop stays within 0.8-1.25 of the baseline).  A
# host call costs the controller a sweep of twice the LLC besides the
# kernel, so the number of calls, not the budget, sets an evaluation's
# time; tests that check timing statistics set their own.
# usage: write_config FILE AGENT_YAML TASKS_YAML [EXTRA_YAML]
write_config() {
	cat > "$1" <<CFG
agent: $2
tasks: $3
device: host
timing: {case_budget_s: 0.2, blocks: 1, min_pairs: 6, max_pairs: 30}
${4:-}
CFG
}

# Column N (1-based) of summary.csv rows whose first column is TASK.
csv_field() {	# file task column
	awk -F, -v t="$2" -v c="$3" '$1 == t { print $c }' "$1"
}

run_dir_of() {	# run id
	echo "$STORE/runs/$1"
}

# The id of the newest run in $STORE.
latest_run() { ls -1 "$STORE/runs" | sort | tail -n 1; }
