# The Python runner's zygote stays a process it may copy: a module whose
# import starts a thread (Triton's, on the H200 with Triton 3.6, refused
# every copy: docs/python.md) is tried in a probe child first and left to
# each runner to import; a module that starts none is imported into the
# zygote; a module that is not installed is skipped.  Runs
# engine/runner/python/zygote.py's import_unless_threaded on modules made
# here, in a fresh interpreter.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
mkdir -p "$T/mods/threaded" "$T/mods/plain"
cat >"$T/mods/threaded/__init__.py" <<'PY'
import threading
import time
threading.Thread(target=time.sleep, args=(30,), daemon=True).start()
PY
echo 'VALUE = 7' >"$T/mods/plain/__init__.py"
PYTHONPATH="$T/mods:$ROOT/engine/runner/python" python3 - >"$T/out" 2>&1 <<'PY' ||
import os
import sys
import zygote

def threads():
    return len(os.listdir("/proc/self/task"))

w = zygote.ThreadWatch()
w.left = zygote.LEFT_TO_RUNNERS
zygote.import_unless_threaded("threaded", w)
assert "threaded" not in sys.modules, "the threaded module was imported"
assert threads() == 1, "the zygote has %d threads" % threads()
assert zygote.LEFT_TO_RUNNERS == ["threaded"], zygote.LEFT_TO_RUNNERS
zygote.import_unless_threaded("plain", w)
assert sys.modules["plain"].VALUE == 7, "the plain module was not imported"
zygote.import_unless_threaded("not_installed_anywhere", w)
assert "not_installed_anywhere" not in sys.modules
assert zygote.LEFT_TO_RUNNERS == ["threaded"], zygote.LEFT_TO_RUNNERS
assert threads() == 1, "the zygote has %d threads" % threads()
print("ok")
PY
	fail "import_unless_threaded: $(cat "$T/out")"
grep -qx ok "$T/out" || fail "no verdict: $(cat "$T/out")"
echo ok
