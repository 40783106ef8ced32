# tests/adversarial/lib.sh - the candidate check that run.sh and
# gpu_fake.sh share (sourced).  The caller sets ARENA, ADV_STORE (a store
# directory), ADV_TASKS (the tasks directory), ADV_TASK (the task id) and
# ADV_CANDIDATES (the candidates' directory); fail starts at 0.

# check CANDIDATE STATUS PHRASE [eval options...]: `arena eval` of the
# candidate must end with STATUS and mention PHRASE in its YAML output,
# where an apostrophe is written twice, so phrases avoid them.  PHRASE
# may list alternatives separated by |, any one of which will do (for
# cheats that more than one check can catch, whichever sees it first).
check() {
	cand=$1 want=$2 phrase=$3
	shift 3
	out=$("$ARENA" --store "$ADV_STORE" --tasks-dir "$ADV_TASKS" eval \
		"$ADV_TASK" --workspace "$ADV_CANDIDATES/$cand" --no-cache "$@" 2>&1)
	status=$(printf '%s\n' "$out" | sed -n 's/^status: //p')
	mentioned=false
	old_ifs=$IFS
	IFS='|'
	for p in $phrase; do
		printf '%s\n' "$out" | grep -qF -- "$p" && mentioned=true
	done
	IFS=$old_ifs
	if [ "$status" = "$want" ] && $mentioned
	then
		echo "ok    $cand: $status ($phrase)"
	else
		echo "FAIL  $cand: expected $want mentioning \"$phrase\", got '$status'"
		printf '%s\n' "$out" | sed 's/^/      /' | head -60
		fail=1
	fi
}
