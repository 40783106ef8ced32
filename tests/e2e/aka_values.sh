#!/bin/sh
# tests/e2e/aka_values.sh - every kind of value arena's AKA recorder
# keeps from a harness's call (engine/runner/python/aka_calls.py) comes
# back from the shim (aka_shim.py) as the launcher got it, and what it
# cannot keep is refused by name (docs/aka.md, "infra_error").  Triton
# does not install here: its scalar type is a stand-in with the contract
# of triton.language.core.dtype in Triton 3.6 (a name such as 'fp16';
# equal and hashed by that name; dtype(name) builds one), installed as
# triton.language before either module runs.
. "$(dirname "$0")/lib.sh"

PY=${ARENA_PYTHON:-/usr/bin/python3}
[ -x "$PY" ] || PY=python3
"$PY" -c 'import torch' 2>/dev/null || { echo "skip: $PY has no torch"; exit 77; }
PYDIR=$ROOT/engine/runner/python
"$PY" - "$PYDIR" > "$T/out" 2>&1 <<'PY' || fail "$(cat "$T/out")"
import importlib.util, sys, types
sys.path.insert(0, sys.argv[1])

core = types.ModuleType("triton.language.core")
exec('''
class dtype:
    def __init__(self, name):
        self.name = name
    def __eq__(self, other):
        return isinstance(other, dtype) and self.name == other.name
    def __hash__(self):
        return hash((self.name,))
class pointer_type(dtype):
    pass
''', core.__dict__)
tl = types.ModuleType("triton.language")
tl.core, tl.dtype = core, core.dtype
tl.float16, tl.bfloat16 = core.dtype("fp16"), core.dtype("bf16")
triton = types.ModuleType("triton")
triton.language = tl
sys.modules.update({"triton": triton, "triton.language": tl,
                    "triton.language.core": core})

import torch
from aka_calls import Program, Unsupported
spec = importlib.util.spec_from_file_location(
    "shim", sys.argv[1] + "/aka_shim.py")
shim = importlib.util.module_from_spec(spec)
spec.loader.exec_module(shim)

p = Program("case")
bound = shim._Bound.__new__(shim._Bound)  # value() of scalars reads no state
values = [3, 2.5, True, None, "rowwise", torch.float16, tl.float16,
          [tl.bfloat16, 1], (tl.float16, "x"), {"acc": tl.float16}]
for v in values:
    enc = p.encode(v)
    got = bound.value(enc, [])
    assert got == v and type(got) is type(v), (v, enc, got)
    print("ok", repr(v), enc)
assert p.encode(tl.float16) == {"tdt": "fp16"}
# A pointer type is a Triton type the launcher never gets as a constexpr
# scalar: refused by name, not recorded as a dtype.
for bad in (core.pointer_type("fp16"), object()):
    try:
        p.encode(bad)
    except Unsupported as e:
        print("refused", e)
    else:
        raise AssertionError("recorded %r" % (bad,))
PY
grep -q "'tdt': 'fp16'" "$T/out" || fail "no Triton dtype recorded: $(cat "$T/out")"
grep -q "refused an argument of type pointer_type" "$T/out" || fail "pointer_type not refused: $(cat "$T/out")"
note "$(grep -c '^ok ' "$T/out") kinds of value recorded and replayed, Triton's scalar types among them"
echo "PASS aka_values"
