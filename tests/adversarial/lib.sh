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

# check_nogain CANDIDATE PHRASE [eval options...]: rejected mentioning
# PHRASE, or accepted with a speedup of at most 1.05 - for cheats whose
# gain the evaluator takes back whether or not a check can also name
# them under the noise of the moment (a host claim shaved by 45 us: the
# speedup is the controller's CPU accounting either way).
check_nogain() {
	cand=$1 phrase=$2
	shift 2
	out=$("$ARENA" --store "$ADV_STORE" --tasks-dir "$ADV_TASKS" eval \
		"$ADV_TASK" --workspace "$ADV_CANDIDATES/$cand" --no-cache "$@" 2>&1)
	status=$(printf '%s\n' "$out" | sed -n 's/^status: //p')
	sp=$(printf '%s\n' "$out" | sed -n 's/^speedup_ratio: //p')
	if { [ "$status" = rejected ] &&
		printf '%s\n' "$out" | grep -qF -- "$phrase"; } ||
		{ [ "$status" = ok ] &&
			awk -v s="$sp" 'BEGIN { exit !(s <= 1.05) }'; }; then
		echo "ok    $cand: $status, speedup $sp (named or no gain)"
	else
		echo "FAIL  $cand: expected rejected mentioning \"$phrase\" or ok at most 1.05, got '$status' $sp"
		printf '%s\n' "$out" | sed 's/^/      /' | head -60
		fail=1
	fi
}
