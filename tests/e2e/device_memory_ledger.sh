# The device memory ledger (engine/src/eval/gpu_memory.c, docs/gpu.md
# section 5), on the fake GPU runner: two evaluations of one emulated
# device (two stores) whose runners' memory does not fit the device
# together are never both holding it: the second waits, before it starts
# a runner, until the first has reaped its runners and given the memory
# back (read from both timing.tsv files on the machine's monotonic clock),
# and both answer ok.  With room for both, the second is granted while the
# first holds its memory, and neither waits.  No entry is left in the
# ledger afterwards.  A device too small for every runner's batch of sets
# gets smaller batches.  `arena doctor` reports the ledger.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/locks_lib.sh"
fake_gpu_device
ws=$T/ws
mkdir -p "$ws"
cp "$fake/task/fakeheavy/kernel.cu" "$ws/"
mkdir -p "$T/tasks/task"
cp -R "$fake/task/fakeheavy" "$T/tasks/task/"
export ARENA_TASKS_DIR=$T/tasks
task=task/fakeheavy

asked_mib() {	# NAME: the MiB its grant mark says it asked for
	sed -n 's/^# [0-9.]* ms: device memory granted: \([0-9]*\) MiB asked.*/\1/p' \
		"$T/$1/timing.tsv" | head -n 1
}

# pair TAG [B_MARK]: A, then B once A holds its memory; with B_MARK, A
# is stopped (SIGSTOP) from its grant until B shows that mark, so that
# A cannot finish before B asks however loaded the machine is.  Both
# must end ok.
pair() {
	eval_bg "A$1" "$T/store-a$1" $task --workspace "$ws" --no-cache --quick --seed 1
	apid=$last_pid
	wait_mark "A$1" "device memory granted" "$apid" 60 ||
		fail "A$1 was never granted memory: $(tail -n 5 "$T/A$1.out")"
	[ -n "${2:-}" ] && kill -STOP "$apid"
	eval_bg "B$1" "$T/store-b$1" $task --workspace "$ws" --no-cache --quick --seed 2
	bpid=$last_pid
	if [ -n "${2:-}" ]; then
		wait_mark "B$1" "$2" "$bpid" 60 ||
			fail "B$1 never showed '$2': $(grep 'device memory' "$T/B$1/timing.tsv")"
		kill -CONT "$apid"
	fi
	wait "$apid" || fail "evaluation A$1 failed: $(tail -n 5 "$T/A$1.out")"
	wait "$bpid" || fail "evaluation B$1 failed: $(tail -n 5 "$T/B$1.out")"
	apid= bpid=
	for e in "A$1" "B$1"; do
		grep -q '^status: ok' "$T/$e.out" || fail "$e: $(grep -m1 '^status' "$T/$e.out")"
	done
}

# Room for one evaluation at a time: A's ask alone, less 1 MiB, doubled.
eval_bg probe "$T/store-probe" $task --workspace "$ws" --no-cache --quick --seed 3
wait "$last_pid" || fail "the probe evaluation failed: $(tail -n 5 "$T/probe.out")"
need=$(asked_mib probe)
[ -n "$need" ] && [ "$need" -gt 512 ] ||
	fail "no grant mark of a plausible size: $(grep -m2 'device memory' "$T/probe/timing.tsv")"
export ARENA_GPU_MEMORY_MIB=$((need * 2 - 1))
pair 1 "waiting for device memory"
has_mark B1 "waiting for device memory: $need MiB asked; $need MiB held by 1 other evaluation" ||
	fail "B1 did not wait for A1's memory: $(grep 'device memory' "$T/B1/timing.tsv")"
given=$(mark_ms A1 "device memory given back" last)
granted=$(mark_ms B1 "device memory granted after waiting" first)
[ -n "$given" ] && [ -n "$granted" ] ||
	fail "marks missing: A1 gave back at '$given', B1 granted at '$granted'"
awk -v g="$given" -v b="$granted" 'BEGIN { exit !(b >= g) }' ||
	fail "B1 was granted memory at $granted ms, before A1 gave it back at $given ms"
note "one at a time: A1 gave $need MiB back at $given ms, B1 granted at $granted ms (monotonic clock)"

# Room for both: nobody waits for memory.
export ARENA_GPU_MEMORY_MIB=$((need * 2 + 1))
pair 2 "device memory granted"
has_mark B2 "device memory granted: $need MiB asked; $need MiB held by 1 other evaluation" ||
	fail "B2 was not granted beside A2: $(grep 'device memory' "$T/B2/timing.tsv")"
for e in A2 B2; do
	has_mark "$e" "waiting for device memory" &&
		fail "$e waited for memory with room for both: $(grep 'device memory' "$T/$e/timing.tsv")"
done
note "room for two: B2 granted beside A2, neither waited"

left=$(find "$LOCKS" -path '*.mem/e-*' | wc -l)
[ "$left" = 0 ] || fail "entries left in the ledger: $(find "$LOCKS" -path '*.mem/*')"

# A device too small for every runner's batch gets smaller batches, and
# the evaluation still answers: fakepoly's tiny_batched (8 KiB sets) takes
# 256 calls a sample with room, fewer on a device of 1729 MiB, where a
# quick evaluation's three processes (baseline, candidate, keeper: a 512
# MiB context and a 64 MiB flush buffer each) leave 1 MiB for two
# runners' sets.  (Batches aim at 100 ms here, so that the calls'
# speed on a loaded machine does not bound them first.)
cp -R "$fake/task/fakepoly" "$T/tasks/task/"
mkdir -p "$T/wspoly"
cp "$fake/task/fakepoly/kernel.cu" "$T/wspoly/"
calls() {	# NAME: calls per sample of tiny_batched
	sed -n 's/^# [0-9.]* ms: case tiny_batched: \([0-9]*\) calls per sample.*/\1/p' \
		"$T/$1/timing.tsv" | head -n 1
}
unset ARENA_GPU_MEMORY_MIB
export ARENA_GPU_BATCH_TARGET_US=100000
"$ARENA" --store "$T/store-p1" eval task/fakepoly --workspace "$T/wspoly" \
	--no-cache --quick --logs "$T/roomy" >"$T/roomy.out" 2>&1 ||
	fail "fakepoly: $(tail -n 5 "$T/roomy.out")"
ARENA_GPU_MEMORY_MIB=1729 "$ARENA" --store "$T/store-p2" eval task/fakepoly \
	--workspace "$T/wspoly" --no-cache --quick --logs "$T/tight" \
	>"$T/tight.out" 2>&1 || fail "fakepoly on 1729 MiB: $(tail -n 5 "$T/tight.out")"
grep -q '^status: ok' "$T/tight.out" || fail "fakepoly on 1729 MiB: $(grep -m1 '^status' "$T/tight.out")"
roomy=$(calls roomy) tight=$(calls tight)
[ "$roomy" = 256 ] && [ -n "$tight" ] && [ "$tight" -ge 2 ] && [ "$tight" -lt 64 ] ||
	fail "tiny_batched: $roomy calls a sample with room, $tight on 1729 MiB"
note "batches by the device's memory: $roomy calls a sample with room, $tight on 1729 MiB"
unset ARENA_GPU_BATCH_TARGET_US

# arena doctor says what evaluations may hold and what the ledger holds.
ARENA_GPU_MEMORY_MIB=$((need * 2 + 1)) "$ARENA" --store "$T/store-doctor" doctor >"$T/doctor.out" 2>&1
grep -q "device memory for evaluations: $((need * 2 + 1)) MiB; 0 MiB held now by 0 evaluations, 0 waiting ($LOCKS/gpu-" "$T/doctor.out" ||
	fail "doctor's ledger line: $(grep -A3 'cuda:0' "$T/doctor.out")"
echo ok
