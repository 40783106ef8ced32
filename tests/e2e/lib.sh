# tests/e2e/lib.sh - helpers for end-to-end tests (sourced).
# Each test gets a private store and scratch directory under $T, removed on
# exit; ARENA is the binary under test; fail() prints and exits 1.
set -u
B=${B:-build}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
ARENA="$ROOT/$B/arena"
T=$(mktemp -d /tmp/arena-e2e.XXXXXX)
STORE="$T/store"
export ARENA_TASKS_DIR="${ARENA_TASKS_DIR:-$ROOT/tasks}"
trap 'rm -rf "$T"' EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }
note() { echo "-- $*"; }

# A run config with a small timing budget so tests stay fast.
# usage: write_config FILE AGENT_YAML TASKS_YAML [EXTRA_YAML]
write_config() {
	cat > "$1" <<CFG
agent: $2
tasks: $3
device: host
timing: {case_budget_s: 0.4, blocks: 2, min_pairs: 6, max_pairs: 60}
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
