#!/bin/sh
# tests/bench/fs_pjdfstest.sh - pjdfstest (POSIX file-system conformance)
# in a live workspace through the mount, natively first, and a verdict on
# every file that fails in the workspace: is its first failure the one
# departure docs/fs-semantics.md states (no block or character device
# nodes in a workspace, `mknod` gives EPERM), so that the file's later
# failures are only the steps that needed that node?
#
#   B=build sh tests/bench/fs_pjdfstest.sh PJDFSTEST_DIR [TEST...]
#
# PJDFSTEST_DIR is a pjdfstest checkout with its `pjdfstest` binary built
# (pjdfstest is not a Debian package; docs/benchmarks.md, "Peer suites on
# a workspace", says how it was built; none of its code is in this
# repository).  TEST... narrows it to some test files (paths under its
# tests/).  Runs as root (pjdfstest changes owners); needs prove(1).
# Prints prove's summary for both runs, then one line per failing file of
# the workspace run and the count of files whose first failure is not a
# device node.  Exit 1 when there is such a file.  Logs in $T (kept when
# KEEP=1).
E2E_DIR=$(dirname "$0")/../e2e
. "$E2E_DIR/fs_lib.sh"
PJD=${1:?usage: fs_pjdfstest.sh PJDFSTEST_DIR [TEST...]}
shift
PJD=$(cd "$PJD" && pwd)
[ -x "$PJD/pjdfstest" ] || fail "$PJD/pjdfstest is not built"
command -v prove >/dev/null || fail "prove(1) is missing (perl)"
if [ $# -gt 0 ]; then
	tests=""
	for t in "$@"; do tests="$tests $PJD/tests/$t"; done
else
	tests="$PJD/tests"
fi

# Natively, on the file system of $T.
mkdir -p "$T/native"
(cd "$T/native" && prove -v -r $tests) > "$T/native.log" 2>&1
note "native: $(grep -E '^(Files=|Result)' "$T/native.log" | tr '\n' ' ')"

# In a workspace of a run whose agent waits (a deadline far beyond the
# suite), so that the workspace stays writable throughout.
fs_mount
write_config "$T/wait.yaml" \
	'{template: command, command: [sleep, "3000"], timeout_seconds: 4000}' \
	"[c2c/dot]"
run=$(new_run "$T/wait.yaml")
wait_executor_running "$run"
W="$MNT/runs/$run/tasks/c2c_dot/workspace/pjd"
mkdir -p "$W"
(cd "$W" && prove -v -r $tests) > "$T/workspace.log" 2>&1
note "workspace: $(grep -E '^(Files=|Result)' "$T/workspace.log" | tr '\n' ' ')"
echo cancel > "$MNT/runs/$run/control"
wait_status "$run" cancelled 60
fs_umount

# Per failing file: its first failed test (a TODO test is not a failure).
awk '
/^\/.*\.t \.+/ { file = $1; sub(/.*\/tests\//, "", file); first = ""; next }
/^not ok/ && !/# TODO/ && file != "" && !(file in seen) {
	seen[file] = 1
	dev = ($0 ~ /mknod [^ ]+ [bc] /) ? "device node" : "OTHER"
	n[dev]++
	printf "%-22s %-11s %s\n", file, dev, substr($0, 1, 160)
}
END {
	printf "files failing in the workspace: %d whose first failure is a device node, %d other\n",
		n["device node"] + 0, n["OTHER"] + 0
	exit n["OTHER"] > 0
}' "$T/workspace.log" || rc=1
[ "${KEEP:-0}" = 1 ] && { trap - EXIT; note "logs kept in $T"; }
exit ${rc:-0}
