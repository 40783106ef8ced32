#!/bin/sh
# tests/gpu/confine.sh - the evaluator's confinement (arena/confine.h) with
# a real GPU driver: the candidate's nvcc/hipcc and the GPU runners run in
# namespaces of their own on an allow-list root (device nodes, /sys and
# the driver's library directories from ldconfig bound in).  Prints
# whether it was on, and what it costs.  Needs a GPU (ARENA_DEVICE,
# default cuda:0); takes well under a minute.  Writes $OUT/confine.txt;
# exit 0 when:
#   1. an honest candidate is accepted with ARENA_SANDBOX=on (an evaluation
#      that cannot be confined fails instead) and says sandboxed: true;
#   2. peek_secrets (host code of a GPU kernel that looks for the task's
#      held-out cases and reference, the store, the catalogue, the
#      controller's command line and /tmp) finds nothing: accepted;
#   3. the same probe unconfined (ARENA_SANDBOX=off) does find something
#      (returns 9x: the probe works, so 2 means something).
. "$(dirname "$0")/lib.sh"
TABLE=$OUT/confine.txt
: > "$TABLE"
here=$ROOT/tests/gpu/adversarial
S=$(mktemp -d /tmp/arena-confine.XXXXXX)
secret=$(mktemp /tmp/arena-confine-secret.XXXXXX)
trap 'rm -rf "$S" "$secret"' EXIT
fail=0

say "confinement on $DEVICE ($(date -u +%FT%TZ), $(uname -r), uid $(id -u))"
# The nodes the GPU profile binds (base/confine.c add_gpu); a confined
# runner that runs the honest candidate below proves the ones it needs are
# there.
say "device nodes bound: $(ls -d /dev/nvidia* /dev/kfd /dev/dri 2>/dev/null | tr '\n' ' ')"
"$ARENA" doctor 2>&1 | sed -n '/^sandbox/,/^missing/p' | sed 's/^/  /' |
	tee -a "$TABLE"

# run NAME SANDBOX CANDIDATE [eval options...]: one evaluation; prints
# status, sandboxed, seconds and the first message line.
run() {
	name=$1 sb=$2 cand=$3
	shift 3
	t0=$(now)
	out=$(ARENA_SANDBOX=$sb "$ARENA" --store "$S/store" --tasks-dir "$here" \
		eval task/vecpoly_hip --workspace "$here/candidates/$cand" \
		--no-cache --quick --logs "$S/logs-$name" "$@" 2>&1)
	t=$(elapsed "$t0")
	status=$(printf '%s\n' "$out" | field status)
	sandboxed=$(printf '%s\n' "$out" | field sandboxed)
	why=$(printf '%s\n' "$out" | grep -E "^(compilation_error_message|correctness_error_message|speedup_calculation_error_message): [^n]" |
		head -n 1 | cut -c1-200)
	say "$name | ARENA_SANDBOX=$sb | $status | sandboxed: $sandboxed | ${t}s | ${why:-"-"}"
}

# On a failure: what the compiler and the runners said.
show_logs() {
	for f in "$S/logs-$1"/*; do
		[ -f "$f" ] || continue
		echo "---- $f"
		tail -n 15 "$f"
	done | sed 's/^/      /' | tee -a "$TABLE"
	printf '%s\n' "$out" | sed 's/^/      /' | head -40 | tee -a "$TABLE"
}

run honest on optimized
if [ "$status" = ok ] && [ "$sandboxed" = true ]; then
	on=1
else
	on=0; fail=1
	show_logs honest
fi
honest_t=$t

set -- -D "SECRET_TASK=\"$here/task/vecpoly_hip\"" \
	-D "SECRET_STORE=\"$S/store\"" -D "SECRET_TASKS=\"$here\"" \
	-D "SECRET_TMP=\"$secret\""
run peek auto peek_secrets "$@"
if [ "$status" != ok ] || [ "$sandboxed" != true ]; then
	fail=1
	show_logs peek
fi

run peek_unconfined off peek_secrets "$@"
if [ "$status" = ok ]; then
	say "  the probe found nothing even unconfined: it proves nothing here"
	fail=1
fi

run honest_unconfined off optimized
say "cost of the confinement: ${honest_t}s confined vs ${t}s unconfined (one quick evaluation each, compile included)"
if [ $on = 1 ] && [ $fail = 0 ]; then
	say "confinement: ON on $DEVICE (candidate compiler and GPU runners confined; the probe found nothing)"
else
	say "confinement: FAILED on $DEVICE (see above)"
fi
exit $fail
