#!/bin/sh
# scripts/deps.sh - installs the Debian packages arena needs that are
# missing (`make deps`).  Runs apt-get only when something is missing, so it
# is cheap to call every time; needs root (or sudo) for the install.
set -e
pkgs="gcc make pkg-config libfuse3-dev fuse3 libyaml-dev libcjson-dev \
libsqlite3-dev libcmocka-dev bubblewrap clang hipcc libamdhip64-dev"
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
