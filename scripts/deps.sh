#!/bin/sh
# scripts/deps.sh - the one place that knows which Debian 12 packages arena
# needs; installs those that are missing.
#
#   scripts/deps.sh core        building and running arena (make quickstart)
#   scripts/deps.sh [test]      core plus every part the test suites use, then
#                               the agent CLIs (make test, make deps)
#   scripts/deps.sh slurm       the Slurm daemons only (tests/slurm/cluster.sh)
#   scripts/deps.sh list [SET]  print SET's packages, one a line
#
# When everything is there it prints one line and runs no apt-get (one
# dpkg-query, so it is cheap to call every time).  Otherwise it runs
# apt-get update once, then installs all that is missing in one apt-get
# call; if that fails (a registry unreachable, a package gone), it installs
# part by part, and a part that cannot be installed is skipped with one line
# naming it: the tests that need it skip (exit 77) and the Makefile does not
# build what would not compile without it.  Only a failed core part is an
# error (exit 1), since arena itself cannot build without it.
#
# No installed package may start a daemon (munge and slurm's postinst
# would): a policy-rc.d that forbids it is in place while apt-get runs,
# unless the machine has its own.  Needs root (or sudo).
#
# Not from here: the CUDA toolkit (nvcc; the Makefile and the tests use it
# where it is installed, e.g. /usr/local/cuda, and skip its builds where it
# is not), and Node.js >= 20 for the agent CLIs (Debian 12's nodejs is 18:
# where no newer one is installed, scripts/install-agents.sh says so and the
# real-CLI tests skip).

# part name | packages | what skips without it
parts() {
	cat <<'EOF'
core|gcc g++ make pkg-config libfuse3-dev fuse3 libyaml-dev libcjson-dev libsqlite3-dev bubblewrap|everything
cmocka|libcmocka-dev|the unit tests (tests/unit/*.c)
clang|clang libclang-rt-14-dev|make fuzz (libFuzzer)
hip|hipcc libamdhip64-dev|the HIP compile checks (e2e/gpu_builds.sh)
python|python3|the tree checks (tests/tree/*.py) and tests/gpu's scripts
torch|python3-numpy python3-torch python3-venv python3-pytest libtorch-dev pybind11-dev python3-dev|the Python kernel runner's tests (python3-venv: python_run.sh's venv check; python3-pytest: AKA's rocmbench-style files import it, aka_run.sh; libtorch-dev, pybind11-dev, python3-dev: the PyTorch extension of AKA's gpumode fixture, test_aka_eval and aka_run.sh)
chromium|chromium|the headless-browser report test
pandas|python3-pandas|reading summary.csv and episodes with pandas in the dtype tests (they fall back to the csv module)
microhttpd|libmicrohttpd-dev|arena serve and its tests
slurm|slurmctld slurmd slurm-client munge|the Slurm tests (e2e/slurm.sh)
EOF
}

set_parts() {	# SET -> the part names it holds
	case $1 in
	core) echo core ;;
	test) parts | cut -d'|' -f1 ;;
	slurm) echo slurm ;;
	*) echo "deps: unknown set '$1' (core, test, slurm)" >&2; exit 2 ;;
	esac
}

part_field() {	# PART FIELD
	parts | awk -F'|' -v p="$1" -v f="$2" '$1 == p { print $f }'
}

set_pkgs() {	# SET -> its packages
	for p in $(set_parts "$1"); do part_field "$p" 2; done | tr ' ' '\n'
}

cd "$(dirname "$0")/.." || exit 1
set=${1:-test}
if [ "$set" = list ]; then
	set_pkgs "${2:-test}"
	exit 0
fi
parts_wanted=$(set_parts "$set") || exit 2

# Installed packages among those wanted, in one dpkg-query call.
# shellcheck disable=SC2046 # one word per package
installed=$(dpkg-query -W -f='${Package} ${Status}\n' $(set_pkgs "$set") 2>/dev/null |
	awk '/ install ok installed$/ { print $1 }')
missing_of() {	# PART -> its packages that are not installed
	for _p in $(part_field "$1" 2); do
		echo "$installed" | grep -qx "$_p" || printf '%s ' "$_p"
	done
}

missing=""
for p in $parts_wanted; do missing="$missing$(missing_of "$p")"; done

rc=0
if [ -z "$missing" ]; then
	echo "deps: all present ($(echo "$parts_wanted" | tr '\n' ' ' | sed 's/ $//'))"
elif ! command -v apt-get >/dev/null 2>&1; then
	echo "deps: apt-get is not here; install by hand: $missing"
	for p in $parts_wanted; do
		[ -n "$(missing_of "$p")" ] && echo "deps: skipped $p: $(part_field "$p" 3) will skip"
		[ "$p" = core ] && [ -n "$(missing_of core)" ] && rc=1
	done
else
	SUDO=""
	[ "$(id -u)" = 0 ] || SUDO=sudo
	log=$(mktemp "${TMPDIR:-/tmp}/arena-deps.XXXXXX")
	policy=""
	if [ "$(id -u)" = 0 ] && [ ! -e /usr/sbin/policy-rc.d ]; then
		printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d &&
			chmod 755 /usr/sbin/policy-rc.d && policy=1
	fi
	trap '[ -z "$policy" ] || rm -f /usr/sbin/policy-rc.d; rm -f "$log"' EXIT
	trap 'exit 143' INT TERM HUP
	export DEBIAN_FRONTEND=noninteractive
	# Wait for another apt-get or dpkg (a parallel job) instead of failing.
	apt="$SUDO apt-get -q -o DPkg::Lock::Timeout=600 -o Acquire::http::Timeout=30"
	start=$(date +%s)
	echo "deps: installing ${missing% }"
	$apt update >"$log" 2>&1 ||
		echo "deps: apt-get update failed ($(tail -n 1 "$log")); trying with the package lists there are"
	# shellcheck disable=SC2086 # one word per package
	if ! $apt install -y --no-install-recommends $missing >"$log" 2>&1; then
		echo "deps: installing all at once failed ($(grep '^E:' "$log" | head -n 1)); now part by part"
		for p in $parts_wanted; do
			m=$(missing_of "$p" | sed "s/ $//")
			[ -n "$m" ] || continue
			# shellcheck disable=SC2086
			$apt install -y --no-install-recommends $m >"$log" 2>&1 && continue
			echo "deps: skipped $p ($m): $(grep '^E:' "$log" | head -n 1); $(part_field "$p" 3) will skip"
			[ "$p" = core ] && rc=1
		done
	fi
	echo "deps: done in $(( $(date +%s) - start )) s"
fi

# The agent CLIs from npm (their own script knows the versions).
if [ "$set" = test ]; then
	out=$(scripts/install-agents.sh 2>&1)
	if [ $? -ne 0 ]; then
		# npm's last lines point at its log; the reason is before them.
		why=$(echo "$out" | grep -v 'A complete log\|error code\|error errno' |
			grep -m 1 -i 'error\|missing\|needed') || why=$(echo "$out" | tail -n 1)
		echo "deps: skipped the agent CLIs ($why); the real-CLI tests (e2e/agents_real_*) will skip"
	elif echo "$out" | grep -q 'npm install'; then
		echo "$out"
	else
		echo "deps: agent CLIs present ($(echo "$out" | sed -n 's|^install-agents: .*/\([a-z-]*@[0-9.]*\) already in.*|\1|p' | tr '\n' ' ' | sed 's/ $//'))"
	fi
fi
exit $rc
