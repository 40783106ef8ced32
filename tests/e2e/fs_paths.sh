# Every synthetic path of docs/fs-semantics.md answers as documented, with
# the documented errno: README, tasks/ (read-only, held-out hidden),
# runs/new (EINVAL with the CLI's words, EFBIG, runs/errors), runs/latest,
# the run's files, control (EINVAL, cancel), tasks/<task>/, compare/, and
# ENOENT / EROFS / EXDEV where nothing may exist or change, and EIO from
# score when no evaluation can take place.  No evaluation runs here: the
# run's agent sleeps, the run is cancelled and the runner is missing.
. "$(dirname "$0")/fs_lib.sh"
# No runner: any evaluation fails to take place (the EIO case of score).
export ARENA_RUNNER=/nonexistent/arena-runner
fs_mount

# README and the root
grep -q "runs/new" "$MNT/README" || fail "README does not explain runs/new"
expect_err "Read-only file system" sh -c "echo x > '$MNT/README'"
expect_err "No such file or directory" cat "$MNT/nope"
expect_err "Read-only file system" mkdir "$MNT/x"
expect_err "Read-only file system" touch "$MNT/runs/x"

# tasks/: the task packages, read-only, held-out cases hidden
ls "$MNT/tasks/c2c" | grep -qx saxpy || fail "tasks/c2c does not list saxpy"
cmp -s "$MNT/tasks/c2c/saxpy/config.yaml" "$ROOT/tasks/c2c/saxpy/config.yaml" ||
	fail "tasks/c2c/saxpy/config.yaml differs from the package"
[ -f "$ROOT/tasks/c2c/saxpy/held_out.yaml" ] || fail "fixture: saxpy has no held_out.yaml"
ls -a "$MNT/tasks/c2c/saxpy" | grep -q held_out && fail "held_out.yaml is listed"
expect_err "No such file or directory" cat "$MNT/tasks/c2c/saxpy/held_out.yaml"
expect_err "Read-only file system" sh -c "echo x >> '$MNT/tasks/c2c/saxpy/kernel.c'"
expect_err "Read-only file system" rm "$MNT/tasks/c2c/saxpy/kernel.c"
expect_err "Read-only file system" touch "$MNT/tasks/c2c/saxpy/new.c"
ls -l "$MNT/tasks/c2c/saxpy/kernel.c" | grep -q '^-r--r--r--' ||
	fail "task files show write bits: $(ls -l "$MNT/tasks/c2c/saxpy/kernel.c")"

# runs/: empty store
[ "$(ls "$MNT/runs" | tr '\n' ' ')" = "errors new " ] || fail "runs lists: $(ls "$MNT/runs")"
[ -z "$(cat "$MNT/runs/new")" ] || fail "runs/new is not empty before any write"
expect_err "No such file or directory" stat "$MNT/runs/latest"
expect_err "No such file or directory" ls "$MNT/runs/run_20000101_000000"
expect_err "No such file or directory" ls "$MNT/runs/not-a-run"

# runs/new: an invalid config fails the close with EINVAL and is explained
# in the words `arena run` prints
printf 'agent: {template: gpt_wizard}\ntasks: [c2c/saxpy]\n' > "$T/bad.yaml"
expect_err "Invalid argument" cp "$T/bad.yaml" "$MNT/runs/new"
cli=$("$ARENA" --store "$STORE" run "$T/bad.yaml" 2>&1) && fail "the CLI accepted bad.yaml"
cli_words=$(echo "$cli" | sed "s|^arena: $T/bad.yaml: ||")
fs_words=$(sed 's|^runs/new: ||' "$MNT/runs/new")
[ "$cli_words" = "$fs_words" ] || fail "runs/new says '$fs_words', the CLI says '$cli_words'"
grep -q "unknown agent 'gpt_wizard'" "$MNT/runs/errors" || fail "runs/errors: $(cat "$MNT/runs/errors")"
head -c 300000 /dev/zero | tr '\0' 'a' > "$T/big.yaml"
expect_err "File too large" cp "$T/big.yaml" "$MNT/runs/new"
grep -q "at most 262144 bytes" "$MNT/runs/new" || fail "EFBIG not explained: $(cat "$MNT/runs/new")"
[ -z "$(ls -A "$STORE/runs")" ] || fail "a refused config created a run"
for i in $(seq 70); do cp "$T/bad.yaml" "$MNT/runs/new" 2>/dev/null; done
[ "$(wc -l < "$MNT/runs/errors")" -le 64 ] || fail "runs/errors is not bounded"

# A valid config: the run id comes back from runs/new, runs/latest points
# to it, and the run directory has every documented file.
sleep_config "$T/sleep.yaml" 3 "[c2c/saxpy, c2c/dot]"
run=$(new_run "$T/sleep.yaml")
store_run_id() { echo "$1" | grep -Eq '^run_[0-9]{8}_[0-9]{6}'; }
store_run_id "$run" || fail "runs/new gave '$run'"
wait_executor_running "$run"
echo cancel > "$MNT/runs/$run/control" || fail "cancel failed"
[ "$(readlink "$MNT/runs/latest")" = "$run" ] || fail "latest -> $(readlink "$MNT/runs/latest")"
[ "$(ls "$MNT/runs/$run" | tr '\n' ' ')" = \
  "config.yaml control events report.html report.txt status summary.csv summary.json tasks " ] ||
	fail "run lists: $(ls "$MNT/runs/$run")"
cmp -s "$MNT/runs/$run/config.yaml" "$T/sleep.yaml" || fail "config.yaml differs"
grep -q "^run: $run\$" "$MNT/runs/$run/status" || fail "status: $(cat "$MNT/runs/$run/status")"
head -n 1 "$MNT/runs/$run/summary.csv" | grep -q '^Task Name,' || fail "summary.csv header"
python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$MNT/runs/$run/summary.json" ||
	fail "summary.json is not JSON"
grep -q "$run" "$MNT/runs/$run/report.txt" || fail "report.txt does not name the run"
head -n 1 "$MNT/runs/$run/report.html" | grep -q '<!DOCTYPE html>' || fail "report.html"
grep -q '<svg' "$MNT/runs/$run/report.html" || fail "report.html has no chart"
ext=$(grep -o 'https\{0,1\}://[^"]*' "$MNT/runs/$run/report.html" | grep -v '^http://www.w3.org/2000/svg$')
[ -z "$ext" ] || fail "report.html refers to $ext"
grep -q " created " "$MNT/runs/$run/events" || fail "events: $(cat "$MNT/runs/$run/events")"
for f in config.yaml status summary.csv summary.json report.txt report.html events; do
	expect_err "Read-only file system" sh -c "echo x > '$MNT/runs/$run/$f'"
done
expect_err "Read-only file system" rm "$MNT/runs/$run/status"
expect_err "Read-only file system" mv "$MNT/runs/$run/status" "$MNT/runs/$run/s2"
expect_err "Operation not permitted" chmod 600 "$MNT/runs/$run/control"

# control
expect_err "Invalid argument" sh -c "/bin/echo frobnicate > '$MNT/runs/$run/control'"
expect_err "Invalid argument" sh -c "/usr/bin/printf 'cancel\nbogus\n' > '$MNT/runs/$run/control'"
grep -q "^status: " "$MNT/runs/$run/control" || fail "control does not read back its status"
wait_status "$run" cancelled 30
grep -q " cancel " "$MNT/runs/$run/events" || fail "no cancel event"

# tasks/ of the run and a task directory
[ "$(ls "$MNT/runs/$run/tasks" | tr '\n' ' ')" = "c2c_dot c2c_saxpy " ] ||
	fail "run tasks: $(ls "$MNT/runs/$run/tasks")"
[ "$(ls "$MNT/runs/$run/tasks/c2c_dot" | tr '\n' ' ')" = "score task_result.yaml workspace " ] ||
	fail "task dir: $(ls "$MNT/runs/$run/tasks/c2c_dot")"
expect_err "No such file or directory" ls "$MNT/runs/$run/tasks/c2c_nope"
expect_err "No such file or directory" ls "$MNT/runs/$run/tasks/c2c_dot/baseline"
expect_err "Read-only file system" rmdir "$MNT/runs/$run/tasks/c2c_dot/workspace"
expect_err "Read-only file system" sh -c "echo 1 > '$MNT/runs/$run/tasks/c2c_dot/score'"
cmp -s "$MNT/runs/$run/tasks/c2c_dot/workspace/kernel.c" \
	"$STORE/runs/$run/tasks/c2c_dot/workspace/kernel.c" || fail "workspace is not the real one"
# a move out of the workspace crosses into the synthetic tree
mv "$MNT/runs/$run/tasks/c2c_dot/workspace/TASK.md" "$MNT/runs/$run/tasks/c2c_dot/" 2>/dev/null &&
	fail "moved a file out of the workspace"
[ -f "$STORE/runs/$run/tasks/c2c_dot/workspace/TASK.md" ] || fail "the failed move lost TASK.md"
python3 - "$MNT/runs/$run/tasks/c2c_dot/workspace/TASK.md" "$MNT/runs/$run/tasks/c2c_dot/x" <<'PY' ||
import errno, os, sys
try:
    os.rename(sys.argv[1], sys.argv[2])
except OSError as e:
    sys.exit(0 if e.errno == errno.EXDEV else 1)
sys.exit(1)
PY
	fail "rename out of a workspace is not EXDEV"

# score when the evaluation cannot take place: EIO, reason in events
expect_err "Input/output error" cat "$MNT/runs/$run/tasks/c2c_dot/score"
grep ' error ' "$MNT/runs/$run/events" | grep -q 'runner' ||
	fail "the reason is not in events: $(cat "$MNT/runs/$run/events")"

# compare/
ls "$MNT/compare" | grep -qx "$run" || fail "compare does not list $run"
grep -q "^comparable: yes" "$MNT/compare/$run/$run/report.txt" ||
	fail "a run compared with itself: $(cat "$MNT/compare/$run/$run/report.txt")"
expect_err "No such file or directory" cat "$MNT/compare/$run/run_20000101_000000/report.txt"
expect_err "No such file or directory" ls "$MNT/compare/nope"
expect_err "Read-only file system" sh -c "echo x > '$MNT/compare/$run/$run/report.txt'"

# Hostile input never takes the daemon down.
head -c 65536 /dev/urandom > "$T/garbage"
expect_err "Invalid argument" cp "$T/garbage" "$MNT/runs/new"
printf 'cancel\0resume\n' > "$T/nul"
expect_err "Invalid argument" cp "$T/nul" "$MNT/runs/$run/control"
expect_err "No such file or directory" ls "$MNT/runs/$(printf 'run_20260101_000000\nx')"
expect_err "No such file or directory" cat "$MNT/compare/../../etc/passwd"
expect_err "File name too long" ls "$MNT/runs/$(head -c 300 /dev/zero | tr '\0' x)"
python3 - "$MNT/runs/new" <<'PY' || fail "writes at odd offsets"
import errno, os, sys
fd = os.open(sys.argv[1], os.O_WRONLY)
os.pwrite(fd, b"x", 100)			# a hole before it: NULs
try:
    os.pwrite(fd, b"x", 1 << 40)
    sys.exit("a write at 1 TiB succeeded")
except OSError as e:
    assert e.errno == errno.EFBIG, e
try:
    os.close(fd)
    sys.exit("close succeeded")
except OSError as e:
    assert e.errno == errno.EFBIG, e
PY
kill -0 "$FS_PID" || fail "the daemon died"
[ -e "$MNT/README" ] || fail "the mount stopped answering"

wait_executors 30
fs_umount
echo ok
