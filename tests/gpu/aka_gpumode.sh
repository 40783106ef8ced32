#!/bin/sh
# tests/gpu/aka_gpumode.sh - AgentKernelArena's gpumode task folders
# (hip2hip, torch2hip; docs/aka.md) on a GPU.  For each task:
#   aa    its kernel as shipped against itself (`arena eval --aa --quick`):
#         prepared from its module and functional twin, its .hip file
#         built by nvcc as a PyTorch extension through arena's HIP
#         portability layer, loaded by the Python runner;
#   ref   (hip2hip folders that ship hip/<name>_ref.hip) that other kernel
#         as the candidate: a second real kernel's verdict and speedup.
# One line per evaluation in $OUT/gpumode.tsv (task, kind, status,
# speedup, interval, seconds, message), a summary in $OUT/gpumode.txt,
# the evaluations' logs in $OUT/gpumode-logs.tgz.  Needs a checkout made
# with scripts/aka-fetch.sh (tasks/hip2hip, tasks/torch2hip), carried.
#
# usage: tests/gpu/aka_gpumode.sh [--deadline S] [--jobs N] [TASK...]
#   TASK   ids under the checkout's tasks/ (default: a mix of eight)
. "$(dirname "$0")/lib.sh"
deadline=300
jobs=3
while [ $# -gt 0 ]; do
	case $1 in
	--deadline) deadline=$2; shift 2 ;;
	--jobs) jobs=$2; shift 2 ;;
	-*) echo "unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
AKA_DIR=${AKA_DIR:-$ROOT/.aka/AgentKernelArena}
set -- ${*:-hip2hip/gpumode/GELU hip2hip/gpumode/SiLU \
	hip2hip/gpumode/layer_normalization hip2hip/gpumode/SoftmaxModule \
	hip2hip/gpumode/MultiHeadAttention hip2hip/gpumode/Feedforward \
	torch2hip/gpumode/10024_Feedforward torch2hip/gpumode/1001_NormalAttention_dot}
t_end=$(($(date +%s) + deadline))
# Work outside $OUT: the device tool brings back eight files at most.
W=${TMPDIR:-/tmp}/arena-gpumode
rm -rf "$W"
mkdir -p "$W/logs" "$W/ws"
TSV=$OUT/gpumode.tsv
SUMMARY=$OUT/gpumode.txt
printf 'task\tkind\tstatus\tspeedup\tinterval\tseconds\tmessage\n' > "$TSV"
note() { printf '%s\n' "$*" | tee -a "$SUMMARY"; }
: > "$SUMMARY"
note "# aka_gpumode.sh on $DEVICE, arena ${ARENA_COMMIT:-?}, $(date -u +%FT%TZ), deadline $deadline s"
if [ ! -d "$AKA_DIR/tasks/hip2hip" ]; then
	note "FAIL: no AgentKernelArena checkout with tasks/hip2hip at $AKA_DIR"
	exit 2
fi

safe() { echo "$1" | tr '/' '_'; }
# one TASK KIND [WORKSPACE]: one evaluation, its line appended to the TSV.
one() {
	n=$((t_end - $(date +%s)))
	[ "$n" -gt 10 ] || return 0
	logs=$W/logs/$(safe "$1")-$2
	t0=$(now)
	if [ "$2" = aa ]; then
		timeout -k 5 "$n" "$ARENA" --store "$STORE" \
			--tasks-dir "$AKA_DIR/tasks" eval "$1" --aa --quick \
			--logs "$logs" > "$logs.yaml" 2> "$logs.err"
	else
		timeout -k 5 "$n" "$ARENA" --store "$STORE" \
			--tasks-dir "$AKA_DIR/tasks" eval "$1" --workspace "$3" \
			--quick --no-cache --logs "$logs" > "$logs.yaml" \
			2> "$logs.err"
	fi
	rc=$?
	secs=$(elapsed "$t0")
	st=$(field status < "$logs.yaml")
	msg=$(field correctness_error_message < "$logs.yaml")
	[ -n "$msg" ] && [ "$msg" != null ] ||
		msg=$(field compilation_error_message < "$logs.yaml")
	[ "$rc" -eq 0 ] || msg="exit $rc: $(tail -n 2 "$logs.err" | tr '\n' ' ')"
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "${st:--}" \
		"$(field speedup_ratio < "$logs.yaml")" \
		"$(field speedup_ci < "$logs.yaml")" "$secs" \
		"$(echo "$msg" | tr '\t\n' '  ' | cut -c1-300)" >> "$TSV"
}

running=0
for id in "$@"; do
	one "$id" aa &
	running=$((running + 1))
	ref=$(ls "$AKA_DIR/tasks/$id"/hip/*_ref.hip 2>/dev/null | head -n 1)
	if [ -n "$ref" ]; then
		ws=$W/ws/$(safe "$id")
		cp -r "$AKA_DIR/tasks/$id" "$ws"
		main=$(echo "$ref" | sed 's/_ref\.hip$/.hip/')
		cp "$ref" "$ws/hip/$(basename "$main")"
		one "$id" ref "$ws" &
		running=$((running + 1))
	fi
	if [ $running -ge "$jobs" ]; then wait; running=0; fi
done
wait

note "$(awk -F'\t' 'NR > 1 { n++; s[$3]++ } END { printf "%d evaluations:", n; for (k in s) printf " %s %d", k, s[k]; print "" }' "$TSV")"
# (column(1) is not on every GPU machine: bsdextrautils)
if command -v column >/dev/null 2>&1; then
	column -t -s "$(printf '\t')" "$TSV"
else
	tr '\t' '|' < "$TSV"
fi | cut -c1-240 | tee -a "$SUMMARY"
tar -czf "$OUT/gpumode-logs.tgz" -C "$W" logs 2>/dev/null
exit 0
