# The CPU PyTorch family (tasks/torch2torch) end to end: each task's honest
# optimized candidate (tests/python/honest/torch2torch) is correct on the
# visible and held-out cases through `arena eval --quick --held-out`, which
# also checks each task's baseline against its reference.  Speedups are
# not asserted: CI's machine is shared (docs/python.md has what they were).
# Skipped where python3 cannot import torch.
. "$(dirname "$0")/lib.sh"
PY=${ARENA_PYTHON:-/usr/bin/python3}
"$PY" -c 'import torch' >/dev/null 2>&1 || { echo "skip: $PY cannot import torch"; exit 77; }
for t in gelu_tanh layernorm softmax linear_relu; do
	"$ARENA" --store "$STORE" eval "torch2torch/$t" --quick --held-out \
		--workspace "$ROOT/tests/python/honest/torch2torch/$t" > "$T/$t.yaml" 2>&1 ||
		{ tail -n 20 "$T/$t.yaml"; fail "$t: arena eval failed"; }
	grep -q '^status: ok' "$T/$t.yaml" ||
		fail "$t: $(grep -E '^(status|.*error_message): ' "$T/$t.yaml" | tr '\n' ' ')"
	sed -n '/^held_out:/,/^[a-z]/p' "$T/$t.yaml" | grep -q '^  correct: true' ||
		fail "$t: held-out cases not correct"
	note "$t: ok, speedup $(sed -n 's/^speedup_ratio: //p' "$T/$t.yaml")"
done
echo ok
