# Finished is final, and held-out cases stay secret through the mount.  A
# probe agent writes a kernel that is right on the visible cases and
# returns the problem size as its error code on every other one (how an
# agent would smuggle a held-out size out through the result).  Once its
# attempt is done:
#   - the workspace is read-only through the mount (EROFS for writes,
#     creates, removals, renames, chmod; no write bits shown, also at
#     a fresh mount's first lookup);
#   - a native edit in the store changes neither score nor
#     task_result.yaml nor summary.csv, starts no evaluation, and `resume`
#     re-evaluates nothing;
#   - task_result.yaml and events through the mount name no held-out case
#     and carry no held-out size, while the store (the owner's view) has
#     both.
. "$(dirname "$0")/fs_lib.sh"
fs_mount

cat > "$T/probe.sh" <<'AGENT'
#!/bin/sh
cat > kernel.c <<'K'
#include "arena/kernel.h"
ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	int64_t n = params[0];
	const float *x = args[0].data, *y = args[1].data;
	double s = 0, *out = args[2].data;
	(void)nargs; (void)nparams; (void)stream;
	if (n != 131072 && n != 1048576 && n != 4194304)
		return (int)n;		/* a held-out case: leak its size */
	for (int64_t i = 0; i < n; i++)
		s += (double)x[i] * (double)y[i];
	out[0] = s;
	return 0;
}
K
AGENT
cheap_config "$T/cfg.yaml"
sed -i "s|^agent: .*|agent: {template: command, command: [sh, $T/probe.sh]}|" "$T/cfg.yaml"
run=$(new_run "$T/cfg.yaml")
wait_status "$run" done 180
D="$MNT/runs/$run/tasks/c2c_dot"
W="$D/workspace"
R="$STORE/runs/$run/tasks/c2c_dot"
# A fresh mount's first look at the finished workspace (lookups, which
# the kernel keeps for --ws-timeout) already shows no write bits.
fs_umount
fs_mount
stat -c %A "$W" "$W/kernel.c" | grep -q w &&
	fail "a final workspace shows write bits at first sight: $(stat -c '%A %n' "$W" "$W/kernel.c")"
held_ids=$(sed -n 's/.*id: *\([A-Za-z0-9_]*\).*/\1/p' "$ROOT/tasks/c2c/dot/held_out.yaml")
[ -n "$held_ids" ] || fail "no held-out ids found"

# The owner's view (the store) has the held-out cases and the leaked size:
# the probe works, so what follows is a real test of the mount.
grep -q 'held_out: true' "$R/task_result.yaml" || fail "the final evaluation had no held-out case"
grep -q '1000003' "$R/task_result.yaml" || fail "the probe did not get its size into the stored result"
"$ARENA" --store "$STORE" status "$run" > /dev/null || fail "arena status"

# Through the mount: none of it.
cp "$D/task_result.yaml" "$T/view.yaml" || fail "read task_result.yaml"
cat "$MNT/runs/$run/events" > "$T/events" || fail "read events"
for f in "$T/view.yaml" "$T/events"; do
	for id in $held_ids; do
		grep -q "$id" "$f" && fail "$(basename "$f") names held-out case $id: $(grep "$id" "$f")"
	done
	grep -q '1000003\|6000011' "$f" && fail "$(basename "$f") carries a held-out size"
done
grep -q 'held_out: true' "$T/view.yaml" && fail "the view lists a held-out case"
grep -q 'withheld' "$T/view.yaml" || fail "the held-out message was not replaced: $(cat "$T/view.yaml")"
grep -q 'id: small' "$T/view.yaml" || fail "visible cases are missing from the view: $(cat "$T/view.yaml")"

# Read-only through the mount.
expect_err "Read-only file system" sh -c "echo x >> '$W/kernel.c'"
expect_err "Read-only file system" touch "$W/new.c"
expect_err "Read-only file system" rm "$W/kernel.c"
expect_err "Read-only file system" mkdir "$W/d"
expect_err "Read-only file system" mv "$W/kernel.c" "$W/k2.c"
expect_err "Read-only file system" chmod 600 "$W/kernel.c"
expect_err "Read-only file system" truncate -s 0 "$W/kernel.c"
stat -c %A "$W/kernel.c" | grep -q w && fail "a final workspace shows write bits: $(stat -c %A "$W/kernel.c")"
[ -s "$R/workspace/kernel.c" ] || fail "the kernel was damaged"

# A native edit changes nothing final, and nothing re-evaluates it.
score=$(cat "$D/score")
csv=$(cat "$MNT/runs/$run/summary.csv")
evals0=$(grep -c ': evaluation started' "$T/mount.log")
starts0=$(grep -c ' eval_start ' "$MNT/runs/$run/events")
echo 'int broken(' >> "$R/workspace/kernel.c"
[ "$(cat "$D/score")" = "$score" ] || fail "the score changed after an edit"
cmp -s "$D/task_result.yaml" "$T/view.yaml" || fail "task_result.yaml changed after an edit"
echo resume > "$MNT/runs/$run/control" || fail "resume of a done run"
wait_executors 60
[ "$(cat "$MNT/runs/$run/summary.csv")" = "$csv" ] || fail "summary.csv changed"
[ "$(cat "$D/score")" = "$score" ] || fail "the score changed after resume"
[ "$(grep -c ': evaluation started' "$T/mount.log")" = "$evals0" ] || fail "the mount evaluated a final attempt"
[ "$(grep -c ' eval_start ' "$MNT/runs/$run/events")" = "$starts0" ] || fail "resume re-evaluated a final attempt"
fs_umount
echo ok
