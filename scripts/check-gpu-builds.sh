#!/bin/sh
# check-gpu-builds.sh - compiles every GPU task without a GPU.
#
# For every task under tasks/ whose language is hip or cuda it builds, as
# shared objects the way the evaluator does:
#   - the editable sources (the kernel), once with no -D and once per value
#     of every tunable (the full cross product of the task's tunables; the
#     plain build is left out when it is one of those, i.e. when the source's
#     own "#define NAME value" default is a listed value of its only
#     tunable),
#   - the baseline.files of the config when it has them (the implementation
#     an initial_state: unimplemented task is timed against; docs/tasks.md),
#   - the reference when it is a GPU source (language hip or cuda).
# HIP sources are built twice:
#   hipcc  hipcc --offload-arch=$HIP_ARCH -O2 -shared -fPIC -I engine/include
#   nvcc   nvcc -x cu -arch=$CUDA_ARCH -O2 -shared -Xcompiler -fPIC
#               -I engine/include/arena/hip_nvidia -I engine/include
#          (through arena's HIP-on-NVIDIA portability header,
#          docs/hip-portability.md)
# CUDA sources once, with nvcc -arch=$CUDA_ARCH.  Task compile_flags are
# added to every build, and the task directory is on the include path.
#
# Prints one line per build (PASS/FAIL/SKIP compiler task what) and a
# summary "gpu-builds: N passed, N failed[, N skipped]".  Exits 1 if any build
# failed, 77 if neither hipcc nor nvcc is installed (nothing was checked),
# 2 on a usage error.  A missing compiler skips only its own builds.
#
# usage: scripts/check-gpu-builds.sh [-j JOBS] [-n] [-q] [-v] [SELECTOR...]
#   SELECTOR  a path under the tasks root (hip2hip, hip2hip/gelu); default:
#             every task
#   -j JOBS   parallel builds (default $JOBS or 2)
#   -v        print the compiler output of passing builds too
#   -n        print the planned compiler commands and exit
#   -q        quick: one build per source and compiler, the plain one (no
#             -D, what the evaluator builds for a baseline); no tunables
# Environment: HIPCC, NVCC (compiler commands; "none" disables one; by
# default hipcc and nvcc from PATH, /opt/rocm/bin, $CUDA_HOME/bin and
# /usr/local/cuda/bin), HIP_ARCH (default gfx90a),
# CUDA_ARCH (default sm_90), ARENA_TASKS_DIR (default tasks/ of this tree),
# JOBS.
#
# config.yaml is read with a small awk reader that understands the forms
# docs/tasks.md shows: one-line flow lists and maps ("editable:
# [kernel.hip]", "tunables: {BLOCK: [64, 128]}") and simple block forms
# ("editable:" followed by "  - kernel.hip" lines, "tunables:" followed by
# "  BLOCK: [64, 128]").  A GPU task it cannot read is a failure, never a
# silent skip.
set -u

root=$(cd "$(dirname "$0")/.." && pwd)
jobs=${JOBS:-2}
verbose=0
dry_run=0
quick=0
while [ $# -gt 0 ]; do
	case $1 in
	-j) [ $# -ge 2 ] || { echo "check-gpu-builds: -j needs a number" >&2; exit 2; }
	    jobs=$2; shift 2 ;;
	-j*) jobs=${1#-j}; shift ;;
	-v) verbose=1; shift ;;
	-n) dry_run=1; shift ;;
	-q) quick=1; shift ;;
	-h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	--) shift; break ;;
	-*) echo "check-gpu-builds: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
case $jobs in ''|*[!0-9]*|0) echo "check-gpu-builds: -j needs a positive number" >&2; exit 2 ;; esac

tasks_root=${ARENA_TASKS_DIR:-$root/tasks}
inc=$root/engine/include
shim=$root/engine/include/arena/hip_nvidia
hip_arch=${HIP_ARCH:-gfx90a}
cuda_arch=${CUDA_ARCH:-sm_90}

find_tool() {	# name, fallbacks...: prints the first runnable one
	for t in "$@"; do
		[ -n "$t" ] || continue
		p=$(command -v "$t" 2>/dev/null) && { echo "$p"; return 0; }
	done
	return 1
}
if [ "${HIPCC:-}" = none ]; then hipcc=
else hipcc=$(find_tool "${HIPCC:-}" hipcc /opt/rocm/bin/hipcc) || hipcc=; fi
if [ "${NVCC:-}" = none ]; then nvcc=
else nvcc=$(find_tool "${NVCC:-}" nvcc ${CUDA_HOME:+"$CUDA_HOME/bin/nvcc"} \
	/usr/local/cuda/bin/nvcc) || nvcc=; fi
if [ -z "$hipcc" ] && [ -z "$nvcc" ]; then
	echo "gpu-builds: skipped: neither hipcc nor nvcc is installed"
	exit 77
fi
echo "gpu-builds: hipcc ${hipcc:-(not found: its builds are skipped)}" \
     "(--offload-arch=$hip_arch)"
echo "gpu-builds: nvcc  ${nvcc:-(not found: its builds are skipped)}" \
     "(-arch=$cuda_arch)"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/arena-gpu-builds.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
# hipcc leaves an empty <stem>-XXXXXX directory in $TMPDIR per compile.
mkdir "$tmp/tmp" && export TMPDIR="$tmp/tmp"
trap 'exit 130' INT TERM

# ---- reading config.yaml ----------------------------------------------------
# Prints "key<TAB>value" lines: language, editable (one per file),
# ref_file, ref_language, baseline (one per baseline.files entry), flag (one
# per compile flag), tunable ("NAME v1 v2 ...").
read_config() {
	awk '
	function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }
	function unquote(s) { s = trim(s); if (s ~ /^".*"$/ || s ~ /^'"'"'.*'"'"'$/) s = substr(s, 2, length(s) - 2); return s }
	function strip_comment(s) { sub(/[ \t]+#.*$/, "", s); return s }
	function emit_list(key, body,   n, i, parts) {
		n = split(body, parts, ",")
		for (i = 1; i <= n; i++) if (trim(parts[i]) != "") print key "\t" unquote(parts[i])
	}
	function emit_tunables(body,   name, vals) {
		while (match(body, /[A-Za-z_][A-Za-z0-9_]*[ \t]*:[ \t]*\[[^]]*\]/)) {
			item = substr(body, RSTART, RLENGTH); body = substr(body, RSTART + RLENGTH)
			name = item; sub(/[ \t]*:.*/, "", name)
			vals = item; sub(/^[^[]*\[/, "", vals); sub(/\].*$/, "", vals)
			gsub(/[ \t]*,[ \t]*/, " ", vals); print "tunable\t" name " " trim(vals)
		}
	}
	function emit_baseline(body,   v) {
		if (match(body, /files[ \t]*:[ \t]*\[[^]]*\]/)) { v = substr(body, RSTART, RLENGTH); sub(/^[^[]*\[/, "", v); sub(/\]$/, "", v); emit_list("baseline", v) }
	}
	function emit_ref(body,   f, l) {
		if (match(body, /file[ \t]*:[ \t]*[^,}]+/)) { f = substr(body, RSTART, RLENGTH); sub(/^file[ \t]*:/, "", f); print "ref_file\t" unquote(f) }
		if (match(body, /language[ \t]*:[ \t]*[^,}]+/)) { l = substr(body, RSTART, RLENGTH); sub(/^language[ \t]*:/, "", l); print "ref_language\t" unquote(l) }
	}
	/^[A-Za-z_]+[ \t]*:/ {
		line = strip_comment($0); key = line; sub(/[ \t]*:.*/, "", key)
		val = line; sub(/^[^:]*:[ \t]*/, "", val); val = trim(val)
		block = ""
		if (key == "language") print "language\t" unquote(val)
		else if (key == "editable" || key == "compile_flags") {
			k = key == "editable" ? "editable" : "flag"
			if (val ~ /^\[/) { gsub(/^\[|\]$/, "", val); emit_list(k, val) }
			else if (val == "") block = k
		} else if (key == "reference") {
			if (val ~ /^\{/) emit_ref(val); else if (val == "") block = "ref"
		} else if (key == "baseline") {
			if (val ~ /^\{/) emit_baseline(val); else if (val == "") block = "baseline"
		} else if (key == "tunables") {
			if (val ~ /^\{/) emit_tunables(val); else if (val == "") block = "tunables"
		}
		next
	}
	block != "" && /^[ \t]+/ {
		line = trim(strip_comment($0))
		if (block == "editable" || block == "flag") { if (line ~ /^- /) { sub(/^- /, "", line); print block "\t" unquote(line) } }
		else if (block == "ref") emit_ref(line)
		else if (block == "baseline") emit_baseline(line)
		else if (block == "tunables") emit_tunables(line)
		next
	}
	' "$1"
}

# ---- planning the builds ----------------------------------------------------
n_jobs=0
add_job() {	# compiler-label, task, what, defines, language, dir, sources...
	label=$1 task=$2 what=$3 defs=$4 lang=$5 dir=$6
	shift 6
	n_jobs=$((n_jobs + 1))
	j=$tmp/job$(printf '%04d' $n_jobs)
	out=$j.so
	case $label in
	hipcc) set -- "$hipcc" --offload-arch="$hip_arch" -O2 -shared -fPIC \
		-I"$inc" -I"$dir" $flags $defs -o "$out" "$@" ;;
	nvcc-hip) set -- "$nvcc" -x cu -arch="$cuda_arch" -O2 -shared \
		-Xcompiler -fPIC -I"$shim" -I"$inc" -I"$dir" $flags $defs \
		-o "$out" "$@" ;;
	nvcc) set -- "$nvcc" -arch="$cuda_arch" -O2 -shared -Xcompiler -fPIC \
		-I"$inc" -I"$dir" $flags $defs -o "$out" "$@" ;;
	esac
	desc="$label $task $what${defs:+ $defs}"
	{
		echo "desc='$desc'"
		echo "show='$*'"
		echo "run() {"
		for a in "$@"; do printf " '%s'" "$a"; done
		echo
		echo "}"
	} > "$j.job"
}

add_source_builds() {	# task, what, language, dir, defines, sources...
	t=$1 w=$2 l=$3 d=$4 df=$5
	shift 5
	case $l in
	hip)	if [ -n "$hipcc" ]; then add_job hipcc "$t" "$w" "$df" "$l" "$d" "$@"
		else skipped=$((skipped + 1)); echo "SKIP hipcc $t $w${df:+ $df} (no hipcc)"; fi
		if [ -n "$nvcc" ]; then add_job nvcc-hip "$t" "$w" "$df" "$l" "$d" "$@"
		else skipped=$((skipped + 1)); echo "SKIP nvcc-hip $t $w${df:+ $df} (no nvcc)"; fi ;;
	cuda)	if [ -n "$nvcc" ]; then add_job nvcc "$t" "$w" "$df" "$l" "$d" "$@"
		else skipped=$((skipped + 1)); echo "SKIP nvcc $t $w${df:+ $df} (no nvcc)"; fi ;;
	esac
}

# Cross product of the tunables: prints one line of -D flags per build.
define_sets() {	# file with "NAME v1 v2 ..." lines
	awk '
	{ name[NR] = $1; nv[NR] = NF - 1; for (i = 2; i <= NF; i++) val[NR, i - 1] = $i }
	END {
		if (NR == 0) exit
		for (k = 1; k <= NR; k++) idx[k] = 1
		for (;;) {
			line = ""
			for (k = 1; k <= NR; k++) line = line (k > 1 ? " " : "") "-D" name[k] "=" val[k, idx[k]]
			print line
			k = NR
			while (k >= 1 && idx[k] == nv[k]) { idx[k] = 1; k-- }
			if (k < 1) break
			idx[k]++
		}
	}' "$1"
}

skipped=0
failed_plan=0
[ $# -gt 0 ] || set -- .
configs=$tmp/configs
: > "$configs"
for sel in "$@"; do
	sel=${sel%/}
	case $sel in .|./|'') d=$tasks_root ;; *) d=$tasks_root/${sel#./} ;; esac
	if [ ! -d "$d" ]; then
		echo "FAIL plan $sel: no such directory under $tasks_root"
		failed_plan=$((failed_plan + 1))
		continue
	fi
	find "$d" -name .git -prune -o -name config.yaml -print >> "$configs"
done

for cfg in $(sort -u "$configs"); do
	dir=$(dirname "$cfg")
	task=${dir#"$tasks_root"/}
	info=$tmp/info
	read_config "$cfg" > "$info"
	lang=$(awk -F'\t' '$1 == "language" { print $2; exit }' "$info")
	case $lang in hip|cuda) ;; *) continue ;; esac
	ref=$(awk -F'\t' '$1 == "ref_file" { print $2; exit }' "$info")
	reflang=$(awk -F'\t' '$1 == "ref_language" { print $2; exit }' "$info")
	flags=$(awk -F'\t' '$1 == "flag" { printf "%s ", $2 }' "$info")
	srcs=
	for f in $(awk -F'\t' '$1 == "editable" { print $2 }' "$info"); do
		case $f in *.h|*.hpp|*.cuh|*.inc) continue ;; esac
		srcs="$srcs $dir/$f"
	done
	if [ -z "$srcs" ]; then
		echo "FAIL plan $task: no editable source found in config.yaml"
		failed_plan=$((failed_plan + 1))
		continue
	fi
	awk -F'\t' '$1 == "tunable" { print $2 }' "$info" > "$tmp/tunables"
	ntun=$(wc -l < "$tmp/tunables")
	# The plain build, unless its default is one of the -D builds.
	plain=1
	if [ "$ntun" -eq 1 ]; then
		# shellcheck disable=SC2046
		set -- $(cat "$tmp/tunables")
		name=$1; shift
		def=$(cat $srcs | awk -v n="$name" '$1 == "#define" && $2 == n { print $3; exit }')
		for v in "$@"; do [ "$v" = "$def" ] && plain=0; done
	fi
	# shellcheck disable=SC2086
	[ $plain -eq 1 ] && add_source_builds "$task" kernel "$lang" "$dir" "" $srcs
	define_sets "$tmp/tunables" > "$tmp/sets"
	if [ $quick -eq 1 ]; then
		: > "$tmp/sets"
		# shellcheck disable=SC2086
		[ $plain -eq 0 ] && add_source_builds "$task" kernel "$lang" "$dir" "" $srcs
	fi
	while IFS= read -r defs; do
		# shellcheck disable=SC2086
		add_source_builds "$task" kernel "$lang" "$dir" "$defs" $srcs
	done < "$tmp/sets"
	bsrcs=
	for f in $(awk -F'\t' '$1 == "baseline" { print $2 }' "$info"); do
		case $f in *.h|*.hpp|*.cuh|*.inc) continue ;; esac
		bsrcs="$bsrcs $dir/$f"
	done
	# shellcheck disable=SC2086
	[ -n "$bsrcs" ] && add_source_builds "$task" baseline "$lang" "$dir" "" $bsrcs
	case ${reflang:-c} in
	hip|cuda)
		flags_save=$flags
		add_source_builds "$task" "reference" "$reflang" "$dir" "" "$dir/$ref"
		flags=$flags_save ;;
	esac
done

if [ $dry_run -eq 1 ]; then
	for j in "$tmp"/job*.job; do
		[ -f "$j" ] || continue
		# shellcheck disable=SC1090,SC2154
		( . "$j"; printf '%s\n    %s\n' "$desc" "$show" )
	done
	exit 0
fi

# ---- running them -----------------------------------------------------------
start=$(date +%s)
results=$tmp/results
: > "$results"
cat > "$tmp/run1.sh" <<'EOF'
# runs one job file: prints PASS/FAIL line (and output on failure)
. "$1"
t0=$(date +%s.%N 2>/dev/null || date +%s)
run > "$1.log" 2>&1
rc=$?
t1=$(date +%s.%N 2>/dev/null || date +%s)
secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
if [ $rc -eq 0 ]; then
	line="PASS $desc (${secs}s)"
	[ "$VERBOSE" = 1 ] && [ -s "$1.log" ] && line="$line
$(sed 's/^/    /' "$1.log")"
else
	line="FAIL $desc (exit $rc, ${secs}s)
    $show
$(head -n 40 "$1.log" | sed 's/^/    /')"
fi
printf '%s\n' "$line"
EOF
if [ $n_jobs -gt 0 ]; then
	# shellcheck disable=SC2011
	ls "$tmp"/job*.job | VERBOSE=$verbose xargs -n 1 -P "$jobs" sh "$tmp/run1.sh" |
		tee "$results"
fi
secs=$(( $(date +%s) - start ))
passed=$(grep -c '^PASS ' "$results")
failed=$(( $(grep -c '^FAIL ' "$results") + failed_plan ))
summary="gpu-builds: $passed passed, $failed failed"
[ $skipped -gt 0 ] && summary="$summary, $skipped skipped"
echo "$summary (${secs}s, $jobs parallel)"
[ $failed -eq 0 ]
