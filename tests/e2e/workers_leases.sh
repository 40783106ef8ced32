# Workers in separate processes share a run through the store's leases
# (`arena worker`, what Slurm array elements run): concurrent workers
# evaluate every attempt exactly once and the last one marks the run done;
# a worker killed with kill -9 is taken over at once by a worker on the
# same host; a lease held by a live worker elsewhere is left alone until
# it expires; a cancelled run starts no worker, and a cancel stops a
# worker's agent.  The runs are created by
# `arena slurm` with a stand-in sbatch that records its arguments (the
# real Slurm is tests/e2e/slurm.sh).
. "$(dirname "$0")/lib.sh"

cat > "$T/sbatch" <<SB
#!/bin/sh
echo "\$*" >> "$T/sbatch.log"
echo \$\$
SB
chmod +x "$T/sbatch"
submit() {	# config -> run id on stdout
	"$ARENA" --store "$STORE" slurm "$1" --sbatch "$T/sbatch" \
		--time 5 > "$T/submit.log" 2>&1 ||
		{ cat "$T/submit.log"; fail "arena slurm $1 failed"; }
	latest_run
}
# eval_start lines per task across the given logs.
starts() { cat "$@" | awk '$2 == "eval_start" { print $3 }' | sort | uniq -c; }

# 1. The submission: scripts written, an array of one element per attempt
#    and a job after it.
write_config "$T/three.yaml" "{template: noop}" "[c2c/gemm, c2c/dot, c2c/transpose]"
run=$(submit "$T/three.yaml")
dir=$(run_dir_of "$run")/slurm
grep -q -- "--array=0-2 " "$T/sbatch.log" || fail "no 3-element array: $(cat "$T/sbatch.log")"
grep -q -- "--dependency=afterany:" "$T/sbatch.log" || fail "no job after the array"
grep -q "worker $run --index \"\$SLURM_ARRAY_TASK_ID\"" "$dir/element.sh" ||
	fail "element.sh does not run one indexed worker: $(cat "$dir/element.sh")"
grep -q "report $run" "$dir/aggregate.sh" || fail "aggregate.sh writes no report"
"$ARENA" --store "$STORE" status "$run" | grep -q "created done=0 total=3" ||
	fail "the submitted run should wait, created: $("$ARENA" --store "$STORE" status "$run")"
note "arena slurm wrote the scripts and submitted 3 elements + 1 job"

# 2. Three workers at once (one of them an array element): each attempt
#    evaluated once, and the run ends done with three rows.
"$ARENA" --store "$STORE" worker "$run" > "$T/w1.log" 2>&1 &
p1=$!
"$ARENA" --store "$STORE" worker "$run" > "$T/w2.log" 2>&1 &
p2=$!
"$ARENA" --store "$STORE" worker "$run" --index 1 > "$T/w3.log" 2>&1 ||
	fail "worker --index 1 failed: $(cat "$T/w3.log")"
wait $p1 || fail "worker 1 failed: $(cat "$T/w1.log")"
wait $p2 || fail "worker 2 failed: $(cat "$T/w2.log")"
counts=$(starts "$T/w1.log" "$T/w2.log" "$T/w3.log")
[ "$(printf '%s\n' "$counts" | awk '$1 == 1' | wc -l)" = 3 ] ||
	fail "every attempt should be evaluated exactly once: $counts"
grep -q "one attempt" "$T/w3.log" || fail "worker --index did not say it runs one attempt"
"$ARENA" --store "$STORE" status "$run" | grep -q "done done=3 total=3" ||
	fail "run not done: $("$ARENA" --store "$STORE" status "$run")"
[ "$(tail -n +2 "$(run_dir_of "$run")/summary.csv" | wc -l)" = 3 ] ||
	fail "summary.csv should have 3 rows"
# A worker on a finished run finds nothing to do.
"$ARENA" --store "$STORE" worker "$run" > "$T/w4.log" 2>&1 || fail "idle worker failed"
grep -q eval_start "$T/w4.log" && fail "a finished attempt was evaluated again"
"$ARENA" --store "$STORE" worker "$run" --index 3 > "$T/w5.log" 2>&1 &&
	fail "--index 3 of a 3-attempt run was accepted"
grep -q "has 3 attempts (0-2); there is no attempt 3" "$T/w5.log" ||
	fail "unclear --index error: $(cat "$T/w5.log")"
note "3 concurrent workers: each attempt once; $(echo $counts | tr -s ' ')"

# 3. kill -9 of a worker while its agent runs: a worker started right
#    after takes the attempt over without waiting for the lease to end.
cat > "$T/agent.sh" <<AGENT
#!/bin/sh
echo "\$ARENA_TASK_ID" >> "$T/agent_starts.log"
sleep 3
AGENT
write_config "$T/slow.yaml" "{template: command, command: [sh, $T/agent.sh], options: {sandbox: off}}" "[c2c/gemm]"
run=$(submit "$T/slow.yaml")
"$ARENA" --store "$STORE" worker "$run" --lease-seconds 600 > "$T/k1.log" 2>&1 &
pid=$!
for i in $(seq 1 300); do
	[ -s "$T/agent_starts.log" ] && break
	sleep 0.1
done
[ -s "$T/agent_starts.log" ] || fail "the agent never started"
kill -9 $pid
wait $pid 2>/dev/null
# Its lease is live for 10 more minutes, but its process is gone.
st=$("$ARENA" --store "$STORE" status "$run")
echo "$st" | grep -q "workers=" && fail "a killed worker still counted: $st"
echo "$st" | grep -q "no executor" || fail "status should say nothing executes the run: $st"
t0=$(date +%s)
"$ARENA" --store "$STORE" worker "$run" > "$T/k2.log" 2>&1 || fail "takeover worker failed"
took=$(($(date +%s) - t0))
[ "$took" -lt 120 ] || fail "the takeover waited ${took}s (a 600 s lease of a dead process)"
[ "$(wc -l < "$T/agent_starts.log")" = 2 ] || fail "the agent should have run twice"
"$ARENA" --store "$STORE" status "$run" | grep -q "done done=1 total=1" ||
	fail "run not done after the takeover"
note "killed worker taken over at once (${took}s, lease 600 s)"

# 4. A live lease of a worker on another machine is left alone until it
#    expires; then the attempt is run.
write_config "$T/one.yaml" "{template: noop}" "[c2c/dot]"
run=$(submit "$T/one.yaml")
python3 - "$STORE/arena.db" "$run" <<'PY' || fail "could not plant a lease"
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1])
db.execute("INSERT INTO leases VALUES(?, 'c2c/dot', 1, 'elsewhere:1:x', ?)",
           (sys.argv[2], time.time() + 4))
db.commit()
PY
"$ARENA" --store "$STORE" status "$run" | grep -q "workers=1" ||
	fail "the live foreign lease should count as a worker"
"$ARENA" --store "$STORE" worker "$run" > "$T/e1.log" 2>&1 || fail "worker failed"
grep -q eval_start "$T/e1.log" && fail "an attempt leased elsewhere was run"
grep -q "held by other workers" "$T/e1.log" || fail "the worker did not say why it stopped"
"$ARENA" --store "$STORE" status "$run" | grep -q "running done=0" ||
	fail "run should still be running: $("$ARENA" --store "$STORE" status "$run")"
sleep 5
"$ARENA" --store "$STORE" worker "$run" > "$T/e2.log" 2>&1 || fail "worker failed"
grep -q "eval_start *c2c/dot" "$T/e2.log" || fail "the expired lease was not taken"
"$ARENA" --store "$STORE" status "$run" | grep -q "done done=1 total=1" || fail "run not done"
note "a foreign live lease waited for, then taken once expired"

# 5. A cancelled run starts no worker.
run=$(submit "$T/one.yaml")
"$ARENA" --store "$STORE" cancel "$run" > /dev/null || fail "cancel failed"
"$ARENA" --store "$STORE" worker "$run" > "$T/c.log" 2>&1 || fail "worker failed"
grep -q "cancelled before this worker started" "$T/c.log" || fail "$(cat "$T/c.log")"
grep -q eval_start "$T/c.log" && fail "a cancelled run was evaluated"
note "cancelled run: no worker started"

# 6. A cancel while only workers hold a run (no executor holds its lock,
#    so the run goes straight to cancelled): the working agent is stopped
#    within seconds, its attempt not evaluated, no further attempt begun.
write_config "$T/long.yaml" \
	'{template: command, command: [sh, -c, "sleep 600"], timeout_seconds: 900}' \
	"[c2c/dot, c2c/saxpy]"
run=$(submit "$T/long.yaml")
"$ARENA" --store "$STORE" worker "$run" > "$T/k.log" 2>&1 &
pk=$!
for _ in $(seq 100); do
	grep -q agent_start "$T/k.log" && break
	sleep 0.1
done
grep -q agent_start "$T/k.log" || fail "the worker started no agent: $(cat "$T/k.log")"
"$ARENA" --store "$STORE" cancel "$run" > /dev/null || fail "cancel failed"
for _ in $(seq 150); do
	kill -0 $pk 2>/dev/null || break
	sleep 0.1
done
if kill -0 $pk 2>/dev/null; then
	kill $pk
	fail "the worker still works 15 s after the cancel: $(cat "$T/k.log")"
fi
wait $pk
grep -q "agent_end .*its run was cancelled" "$T/k.log" || fail "$(cat "$T/k.log")"
[ "$(grep -c agent_start "$T/k.log")" = 1 ] || fail "a second attempt began: $(cat "$T/k.log")"
grep -q eval_start "$T/k.log" && fail "the cancelled attempt was evaluated"
"$ARENA" --store "$STORE" status "$run" | grep -q "^$run cancelled" ||
	fail "run not cancelled: $("$ARENA" --store "$STORE" status "$run")"
note "a cancel stops a worker's agent"
echo "workers_leases: ok"
