# `arena compare A B` pairs two runs task by task: a noop run against an
# autotune run on transpose (whose tunable tiles give several-fold
# speedups) must show the task as a win for B and the runs as comparable.
. "$(dirname "$0")/lib.sh"

write_config "$T/a.yaml" "{template: noop}" "[c2c/transpose]"
write_config "$T/b.yaml" "{template: autotune}" "[c2c/transpose]"
"$ARENA" --store "$STORE" run "$T/a.yaml" --run-suffix a > "$T/a.log" 2>&1 || { cat "$T/a.log"; fail "run a"; }
"$ARENA" --store "$STORE" run "$T/b.yaml" --run-suffix b > "$T/b.log" 2>&1 || { cat "$T/b.log"; fail "run b"; }
a=$(ls -1 "$STORE/runs" | grep '_a$'); b=$(ls -1 "$STORE/runs" | grep '_b$')
"$ARENA" --store "$STORE" compare "$a" "$b" > "$T/cmp.txt" || fail "compare failed"
cat "$T/cmp.txt"
grep -q 'c2c/transpose' "$T/cmp.txt" || fail "task missing from the comparison"
grep -q '^c2c/transpose .* win$' "$T/cmp.txt" || fail "transpose is not a win for B"
"$ARENA" --store "$STORE" compare "$a" run_20000101_000000 > /dev/null 2>&1 && fail "comparison with a missing run succeeded"
echo ok
