# tests/bench/why.awk - why an `arena eval` answer (task_result.yaml) is
# not ok: every error message that is not null, then the integrity list.
# Used by tests/bench/py_latency.sh and tests/gpu/py_repeat.sh.
/^[a-z_]*error_message: / && !/: null$/ { print; next }
/^integrity:/ { p = 1; print; next }
p && /^[^ -]/ { p = 0 }
p
