#!/bin/sh
# tests/fresh/debootstrap.sh - checks the README's promise from a fresh
# state: a Debian 12 tree made by debootstrap (variant minbase: no compiler,
# no pkg-config, none of arena's packages), with only git and make added,
# a clone of this repository's HEAD commit, and then CI's command, .ci/run
# (`make test` with CI=true), run there as root.  The log and the time are
# in DIR; the last lines printed are the test runner's summary.
#
#   tests/fresh/debootstrap.sh [DIR]      (default /var/tmp/arena-fresh)
#
# Environment (optional):
#   FRESH_QUICKSTART=1  run `make quickstart` first, as a new user following
#                       the README would, and time it too
#   FRESH_MACHINE=0     a bare Debian 12: do not lend the tree the two tools
#                       this project's machines (and CI's) come with and
#                       Debian 12 does not have: the CUDA toolkit at
#                       /usr/local/cuda and Node.js >= 20 (read-only binds
#                       of the host's; default 1 where the host has them),
#                       nor the CA file in the host's NODE_EXTRA_CA_CERTS
#                       (where the host's network needs one for npm)
#
# Not a chroot: the tree is entered with unshare (new mount, PID, IPC and
# UTS namespaces) and pivot_root, with a /proc of its own, so that the FUSE
# mounts, the bubblewrap sandbox inside it and the Slurm daemons of the
# tests work as on a machine.  (In a chroot the root is not a mount point,
# and bwrap's own pivot_root fails; entering with bwrap instead leaves a
# /proc with read-only overmounts, which keeps the sandbox's user namespace
# from mounting its own.)  /dev (with /dev/fuse), /sys and the network are
# the host's.  Every process of the tree ends with it.  Needs root,
# debootstrap (apt-get installs it when missing), util-linux, and Debian's
# mirror.  Not part of `make test`: it takes tens of minutes
# (docs/fresh-machine.md has a measured run).
set -eu

[ "$(id -u)" = 0 ] || { echo "debootstrap.sh: needs root" >&2; exit 1; }
repo=$(cd "$(dirname "$0")/../.." && pwd)
dir=${1:-/var/tmp/arena-fresh}
root=$dir/root
mirror=${FRESH_MIRROR:-http://deb.debian.org/debian}

say() { echo "fresh: $*"; }
now() { date +%s; }

command -v debootstrap >/dev/null 2>&1 || {
	say "installing debootstrap on the host"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
		-o DPkg::Lock::Timeout=600 debootstrap >/dev/null
}

mkdir -p "$dir/debs"
rm -rf "$root"
t0=$(now)
say "debootstrap bookworm (minbase) into $root"
debootstrap --variant=minbase --cache-dir="$dir/debs" bookworm "$root" "$mirror" \
	> "$dir/debootstrap.log" 2>&1 || { tail -n 20 "$dir/debootstrap.log"; exit 1; }
cp /etc/resolv.conf "$root/etc/resolv.conf"
git -C "$repo" bundle create "$root/arena.bundle" HEAD 2>/dev/null
commit=$(git -C "$repo" rev-parse --short HEAD)
say "tree ready in $(( $(now) - t0 )) s; HEAD is $commit (uncommitted changes are not in it)"

# What this project's machines come with and Debian 12 does not (see
# above): "HOST_PATH TREE_PATH" lines, bound read-only into the tree.
lend=""
env_lend=""
if [ "${FRESH_MACHINE:-1}" = 1 ]; then
	if [ -d /usr/local/cuda ]; then
		lend="$lend$(readlink -f /usr/local/cuda) /usr/local/cuda
"
		say "lending the host's CUDA toolkit (/usr/local/cuda)"
		# and the variables the machine sets for it
		for v in CUDA_HOME LIBRARY_PATH; do
			eval "val=\${$v:-}"
			[ -z "$val" ] || env_lend="$env_lend $v=$val"
		done
	fi
	if node_v=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null) &&
		[ "$node_v" -ge 20 ] && [ -d /usr/lib/node_modules/npm ]; then
		lend="$lend$(readlink -f "$(command -v node)") /usr/bin/node
/usr/lib/node_modules/npm /usr/lib/node_modules/npm
"
		ln -s ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/bin/npm"
		ln -s ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/bin/npx"
		say "lending the host's Node.js $(node --version) and npm"
	fi
	# Where the host's network needs its own CA for HTTPS (npm), the
	# host says so with NODE_EXTRA_CA_CERTS; the tree gets the same file,
	# at a path of its own (not over a file that ca-certificates writes).
	if [ -f "${NODE_EXTRA_CA_CERTS:-}" ]; then
		lend="$lend$NODE_EXTRA_CA_CERTS /etc/fresh-extra-ca.crt
"
		env_lend="$env_lend NODE_EXTRA_CA_CERTS=/etc/fresh-extra-ca.crt"
		say "lending the host's NODE_EXTRA_CA_CERTS"
	fi
fi
export lend root

# in_tree CMD: runs the shell command CMD as root inside the tree, in new
# namespaces (the mounts below vanish with them).
in_tree() {
	unshare --mount --pid --ipc --uts --fork --kill-child --propagation private \
		sh -c '
		set -e
		mount --bind "$root" "$root"
		mount --rbind /dev "$root/dev"
		mount --rbind /sys "$root/sys"
		mount -t proc proc "$root/proc"
		mount -t tmpfs tmpfs "$root/run"
		echo "$lend" | while read -r from to; do
			[ -n "$from" ] || continue
			if [ -d "$from" ]; then mkdir -p "$root$to"; else
				mkdir -p "$(dirname "$root$to")"; [ -e "$root$to" ] || : > "$root$to"; fi
			mount --bind "$from" "$root$to"
			mount -o remount,bind,ro "$root$to"
		done
		hostname fresh
		cd "$root"
		mkdir -p .oldroot
		pivot_root . .oldroot
		umount -l /.oldroot
		rmdir /.oldroot
		exec "$@"' in-tree \
		env -i HOME=/root LANG=C.UTF-8 TERM=dumb $env_lend \
		PATH=/usr/local/bin:/usr/local/sbin:/usr/bin:/usr/sbin:/bin:/sbin \
		sh -c "$1"
}

t0=$(now)
in_tree 'export DEBIAN_FRONTEND=noninteractive; apt-get update -q &&
	apt-get install -y -q --no-install-recommends git make' > "$dir/git-make.log" 2>&1 ||
	{ tail -n 20 "$dir/git-make.log"; exit 1; }
in_tree 'git clone -q /arena.bundle /root/arena' > "$dir/clone.log" 2>&1 ||
	{ cat "$dir/clone.log"; exit 1; }
say "git and make installed, repository cloned, in $(( $(now) - t0 )) s"
in_tree 'for p in gcc pkg-config libcmocka-dev clang hipcc; do
	dpkg-query -W -f="\${Status}" $p 2>/dev/null | grep -q "ok installed" && echo "  $p is installed"; done;
	echo "  $(dpkg-query -W -f="\${Package}\n" | wc -l) packages in the tree"'

if [ "${FRESH_QUICKSTART:-0}" = 1 ]; then
	t0=$(now)
	say "make quickstart (log: $dir/quickstart.log)"
	rc=0
	in_tree 'cd /root/arena && make quickstart' > "$dir/quickstart.log" 2>&1 || rc=$?
	say "make quickstart: exit $rc in $(( $(now) - t0 )) s"
	[ $rc = 0 ] || { tail -n 30 "$dir/quickstart.log"; exit 1; }
fi

t0=$(now)
say "CI's command, .ci/run = make test (log: $dir/make-test.log)"
rc=0
in_tree 'cd /root/arena && sh .ci/run' > "$dir/make-test.log" 2>&1 || rc=$?
secs=$(( $(now) - t0 ))
grep -E '^(deps: |install-agents: |SKIP |FAIL )' "$dir/make-test.log" || true
tail -n 2 "$dir/make-test.log"
say "make test: exit $rc in $secs s ($((secs / 60)) min $((secs % 60)) s) at $commit"
exit $rc
