# tests/bench/busy_loops.sh - CPU load for the benchmarks that measure the
# evaluator on a crowded machine (sourced).
#   start_busy_loops N   N shell busy loops; their pids in $busy_pids
#   stop_busy_loops      kills them (safe to call twice)
start_busy_loops() {
	busy_pids=
	i=0
	while [ "$i" -lt "$1" ]; do
		sh -c 'while :; do :; done' &
		busy_pids="$busy_pids $!"
		i=$((i + 1))
	done
}

stop_busy_loops() {
	for p in ${busy_pids:-}; do
		kill "$p" 2>/dev/null
	done
	busy_pids=
}
