# Agent-level attacks of issue 10 through `arena run` (tests/e2e/
# attacks_lib.sh says which and what each must get): an agent that edits
# the baseline, one that leaves processes writing its workspace (in and
# out of the sandbox), one that looks for secrets everywhere, one that
# writes 2 GiB.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/attacks_lib.sh"
plant
trap 'rm -rf "$T" "$P"' EXIT
[ -n "${KEEP:-}" ] && trap 'rm -rf "$P"; echo "kept $T"' EXIT
attacks_config "$T/run.yaml"
"$ARENA" --store "$STORE" run "$T/run.yaml" > "$T/run.log" 2>&1 ||
	{ cat "$T/run.log"; fail "arena run failed"; }
grep -E "agent_end|eval_end" "$T/run.log" | cut -c1-160
attacks_check "$STORE/runs/$(latest_run)"
echo ok
