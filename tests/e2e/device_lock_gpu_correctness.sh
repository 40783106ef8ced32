# GPU correctness holds the device lock exclusively (docs/gpu.md section
# 6, engine/src/eval/build.c start_correctness_runners), on the fake GPU
# runner: while evaluation A is in its correctness phase, and again while
# it is in its timing phase, another evaluation B of the same device
# (another store) takes no device lock at all - neither for its
# correctness nor to start its runners early - and blocks in flock() on
# the device's lock file (seen in /proc/locks) while A holds it.  A is held
# in each phase by stopping its controller (SIGSTOP) right after the mark
# that opens the phase.  Afterwards the exclusive holds of A and B, read
# from both timing.tsv files on the machine's monotonic clock, do not
# overlap (an evaluation holds the device several times: it lets it go
# while a correctness trial's host reference computes, so B may sample
# between A's trials), each trial's samples, each correctness check and
# each timed case lie inside one of their evaluation's own holds, and
# each evaluation did let the device go for its host references.  Were
# correctness to take the lock shared (LOCK_SH), B would take
# it beside A's correctness and the first part fails; timing is always
# exclusive, so the second part shows that no correctness (shared or
# not) overlaps another evaluation's timing.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/locks_lib.sh"
fake_gpu_device
export ARENA_TASKS_DIR=$T/tasks

# fakeheavy with calls of about 0.1 s (4x its own), so that each phase
# lasts a second or more and the test's polling does not miss it on a
# loaded machine; --quick keeps the timing to one block of a few pairs.
mkdir -p "$T/tasks/task"
cp -R "$fake/task/fakeheavy" "$T/tasks/task/fakeslow"
sed -i 's/^  - {id: n1024_k8192, n: 1024, k: 8192}$/  - {id: slow, n: 1024, k: 32768}/' \
	"$T/tasks/task/fakeslow/config.yaml"
grep -q "id: slow," "$T/tasks/task/fakeslow/config.yaml" || fail "fakeheavy's cases changed"
ws=$T/ws
mkdir -p "$ws"
cp "$fake/task/fakeheavy/kernel.cu" "$ws/"
run_pair() {	# tag stop_mark end_mark
	eval_bg "A$1" "$T/store-a$1" task/fakeslow --workspace "$ws" --no-cache \
		--quick --seed 1
	apid=$last_pid
	hold_and_probe "A$1" "B$1" "$2" "$3" "$LOCKS/gpu-*.lock" \
		"eval_bg B$1 \"\$T/store-b$1\" task/fakeslow --workspace \"\$ws\" --no-cache --quick --seed 2; bpid=\$last_pid"
	rc=$?
	[ $rc -eq 0 ] || fail "could not stop A$1 between '$2' and '$3'"
	wait "$apid" || fail "evaluation A$1 failed: $(tail -n 5 "$T/A$1.out")"
	wait "$bpid" || fail "evaluation B$1 failed: $(tail -n 5 "$T/B$1.out")"
	apid= bpid=
	note "A$1: $(grep -m1 '^status' "$T/A$1.out"), B$1: $(grep -m1 '^status' "$T/B$1.out")"
	exclusive_windows_disjoint "A$1" "B$1"
	for e in "A$1" "B$1"; do
		within_exclusive "$e" "case .* trial [0-9]+: sampled"
		within_exclusive "$e" "case .* trial [0-9]+: checked"
		within_exclusive "$e" "case .* timed"
		# The host reference of each correctness trial computes
		# with the device let go (and taken again before the next
		# trial's samples, as the marks above show).
		has_mark "$e" "device lock released for host work" ||
			fail "$e never let the device go while its host reference computed"
	done
}

# A held in its correctness phase: its runners are up, no case checked.
run_pair c "runners ready" "timing"
# A held in its timing phase.
run_pair t "timing" "done"
echo "ok"
