# fsx's operation mix in a workspace through the mount, against an
# in-memory model of the file (tests/helpers/fsx_lite.c): random reads,
# writes (also past the end), truncates, reads and writes through a shared
# mmap, renames with the descriptor kept open, and reopens, with the whole
# file compared with the model after every operation.  Three fixed seeds,
# so a failure is reproduced with `fsx_lite -S SEED -n OPS DIR`.  The same
# sequences on the native directory first: a failure there is the
# helper's, not the mount's.
. "$(dirname "$0")/fs_lib.sh"
FSX="$ROOT/$B/tests/helpers/fsx_lite"
[ -x "$FSX" ] || fail "$FSX is missing: build it with 'make $B/tests/helpers/fsx_lite' (make test does)"
fs_mount
sleep_config "$T/sleep.yaml" 1
run=$(new_run "$T/sleep.yaml")
wait_executor_running "$run"
echo cancel > "$MNT/runs/$run/control"
wait_status "$run" cancelled 30
W="$MNT/runs/$run/tasks/c2c_dot/workspace"
mkdir -p "$T/native"
for seed in 1 2 3; do
	"$FSX" -n 1500 -S $seed "$T/native" || fail "fsx_lite failed natively (seed $seed)"
	"$FSX" -n 1500 -S $seed "$W" || fail "fsx_lite failed in the workspace (seed $seed)"
done
# A longer run in the mode fsx itself uses (checks on reads only).
"$FSX" -q -n 20000 -S 4 "$W" || fail "fsx_lite -q failed in the workspace"
fs_umount
wait_executors 30
echo ok
