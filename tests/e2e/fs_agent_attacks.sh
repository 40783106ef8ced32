# Agent-level attacks of issue 10 through a real mount: the run of
# attacks_lib.sh created by writing its config to runs/new, so that every
# agent gets its workspace through the mount (the view an agent of `arena
# mount` gets); each attack must end as it does through `arena run`.
. "$(dirname "$0")/fs_lib.sh"
. "$(dirname "$0")/attacks_lib.sh"
plant
trap 'rm -rf "$P"; fs_cleanup' EXIT
fs_mount
attacks_config "$T/run.yaml"
run=$(new_run "$T/run.yaml")
wait_status "$run" done 900
attacks_check "$STORE/runs/$run"
# The agents were given the mount's view of their workspace.
grep -q "\"workspace\":\"$MNT/runs/$run/tasks/c2c_gemm__r2/workspace\"" \
	"$STORE/runs/$run/tasks/c2c_gemm__r2/logs/trace.jsonl" ||
	fail "the agents did not work through the mount"
echo ok
