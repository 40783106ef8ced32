#!/bin/sh
# tests/gpu/memory.sh - the device memory ledger on a real GPU (docs/gpu.md
# section 5, "Device memory: the ledger"): N default `arena eval`s of TASK
# started together, each with --logs, while nvidia-smi samples the
# device's used memory and every process's own every 0.5 s.  Says what each
# evaluation asked the ledger for and waited, the most the device held,
# and the most any one runner process held (its context plus its sets:
# what GPU_CONTEXT_BYTES and the sets estimate must cover).
#
# usage: OUT=DIR sh tests/gpu/memory.sh [N [TASK [TASKS_DIR]]]
#   default: 4 evaluations of task/vecpoly_hip from tests/gpu/adversarial
#   (its n32m case holds 8 sets of 256 MiB per runner).
#   ARENA_GPU_MEMORY_MIB may be set to make the ledger tighter.
# Writes $OUT/memory.txt and $OUT/memory.tgz (the evaluations' logs and
# the samples).
. "$(dirname "$0")/lib.sh"
n=${1:-4}
task=${2:-task/vecpoly_hip}
export ARENA_TASKS_DIR=${3:-$ROOT/tests/gpu/adversarial}
work=$(mktemp -d "${TMPDIR:-/tmp}/arena-gpu-memory.XXXXXX")
sum=$OUT/memory.txt
echo "# memory.sh on $DEVICE, $n x $task, $(date -u +%FT%TZ)," \
	"ARENA_GPU_MEMORY_MIB=${ARENA_GPU_MEMORY_MIB:-unset}" >"$sum"
command -v nvidia-smi >/dev/null || echo "(no nvidia-smi: no samples)" >>"$sum"

sample() {
	while :; do
		t=$(now)
		nvidia-smi --query-gpu=memory.used,memory.total \
			--format=csv,noheader,nounits 2>/dev/null |
			sed "s/^/$t gpu /" >>"$work/samples"
		nvidia-smi --query-compute-apps=pid,used_memory \
			--format=csv,noheader,nounits 2>/dev/null |
			sed "s/^/$t app /" >>"$work/samples"
		sleep 0.5
	done
}
: >"$work/samples"
sample &
sampler=$!

t0=$(now)
pids=
i=0
while [ $i -lt "$n" ]; do
	mkdir -p "$work/ws$i"
	cp -r "$ARENA_TASKS_DIR/$task/." "$work/ws$i/"
	k=$(ls "$work/ws$i"/kernel.* | head -n 1)
	# A comment in the kernel's language: distinct sources, no cache.
	case $k in
	*.py) echo "# memory.sh $i $t0" >>"$k" ;;
	*) echo "// memory.sh $i $t0" >>"$k" ;;
	esac
	timeout 500 "$ARENA" --store "$STORE.mem$i" eval "$task" \
		--workspace "$work/ws$i" --logs "$work/logs$i" --no-cache \
		>"$work/eval$i.yaml" 2>&1 &
	pids="$pids $!"
	i=$((i + 1))
done
wait $pids
kill "$sampler" 2>/dev/null
echo "wall $(elapsed "$t0") s for $n evaluations" >>"$sum"

i=0
while [ $i -lt "$n" ]; do
	echo "## evaluation $i: status $(field status <"$work/eval$i.yaml")," \
		"$(field speedup_ratio <"$work/eval$i.yaml")x" >>"$sum"
	grep -E "device memory|device lock taken" "$work/logs$i/timing.tsv" 2>/dev/null |
		head -n 6 >>"$sum"
	i=$((i + 1))
done
# (+ 0: nvidia-smi's numbers compared as numbers, not as strings.)
awk '$2 == "gpu" { sub(",", "", $3); if ($3 + 0 > m) m = $3 + 0; tot = $4 }
     END { if (tot) printf "device: most used %d MiB of %d MiB\n", m, tot }' \
	"$work/samples" >>"$sum"
awk '$2 == "app" { sub(",", "", $3); if ($4 + 0 > m[$3]) m[$3] = $4 + 0 }
     END { for (p in m) print m[p] }' "$work/samples" | sort -n |
	awk '{ v[NR] = $1 } END {
		if (NR) printf "runner processes: %d, MiB each: min %d, median %d, max %d\n",
			NR, v[1], v[int((NR + 1) / 2)], v[NR] }' >>"$sum"
cat "$sum"
tar -C "$work" -czf "$OUT/memory.tgz" . 2>/dev/null
rm -rf "$work"
