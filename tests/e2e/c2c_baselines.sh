# Every c2c task's baseline, evaluated as a candidate against itself with
# its held-out cases, must compile and be correct (the task's baseline
# agrees with its trusted reference on every visible and held-out case),
# and its quick A/A speedup must be near 1.
. "$(dirname "$0")/lib.sh"

n=0
for dir in "$ROOT"/tasks/c2c/*/; do
	id=c2c/$(basename "$dir")
	rm -rf "$T/ws" && cp -R "$dir" "$T/ws"
	out=$("$ARENA" --store "$STORE" eval "$id" --workspace "$T/ws" --held-out --quick 2>&1) ||
		fail "$id: arena eval failed: $out"
	st=$(printf '%s\n' "$out" | awk '/^status:/ {print $2}')
	sp=$(printf '%s\n' "$out" | awk '/^speedup_ratio:/ {print $2}')
	[ "$st" = ok ] || fail "$id: baseline status '$st': $(printf '%s\n' "$out" | grep -E 'error_message: [^n]' | head -n 2)"
	ho=$(printf '%s\n' "$out" | awk '/^held_out:/ {f = 1; next}
		f && /^  (evaluated|correct):/ {printf "%s ", $2} f && /^[^ ]/ {exit}')
	[ "$ho" = "true true " ] || fail "$id: held-out cases not evaluated and correct ($ho)"
	awk -v s="$sp" 'BEGIN { exit !(s > 0.7 && s < 1.4) }' || fail "$id: quick A/A speedup $sp"
	note "$id ok, quick A/A $sp"
	n=$((n + 1))
done
[ $n -ge 8 ] || fail "only $n c2c tasks"
echo ok
