#!/bin/sh
# scripts/deps.sh - installs the Debian packages arena needs that are
# missing.  `scripts/deps.sh core` (used by `make quickstart`) installs what
# building and running arena needs; `scripts/deps.sh` (`make deps`, used by
# CI) adds the test and GPU-compile tools: cmocka, clang (libFuzzer) and
# hipcc (HIP tasks compiled for gfx90a).  Runs apt-get only when something
# is missing, so it is cheap to call every time; needs root (or sudo).
set -e
pkgs="gcc make pkg-config libfuse3-dev fuse3 libyaml-dev libcjson-dev \
libsqlite3-dev bubblewrap"
[ "${1:-all}" = core ] || pkgs="$pkgs libcmocka-dev clang hipcc libamdhip64-dev python3"
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing="$missing $p"
done
if [ -z "$missing" ]; then
	echo "deps: all present"
	exit 0
fi
echo "deps: installing$missing"
SUDO=""
[ "$(id -u)" = 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q >/dev/null
$SUDO apt-get install -y -q --no-install-recommends $missing >/dev/null
echo "deps: done"
