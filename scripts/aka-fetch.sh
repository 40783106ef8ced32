#!/bin/sh
# scripts/aka-fetch.sh - a working copy of AgentKernelArena (AKA) for
# arena's compatibility tests, made from a local git mirror: no network.
#
#   scripts/aka-fetch.sh [MIRROR] [DEST] [PATH...]
#
# MIRROR  a git directory of github.com/AMD-AGI/AgentKernelArena (bare is
#         fine; default: $AKA_MIRROR, else /work/.mirror/AMD-AGI+AgentKernelArena/repo)
# DEST    where the checkout goes (default: .aka/AgentKernelArena, which
#         .gitignore excludes: no file of AKA is part of this repository)
# PATH    only the files at or below these paths of the checkout (default:
#         all); tests/gpu/aka.sh needs tasks/triton2triton,
#         tasks/instruction2triton and src (AKA's helper materialization),
#         about 9 MB instead of 28
#
# Every file of the mirror's HEAD whose object is present is written (a
# partial mirror lacks some large data files, e.g. .pt tensors of hip2hip
# tasks: they are listed in DEST/.aka-missing and skipped).  The copy is
# what tests/gpu/aka.sh carries to a GPU machine: at d6f7c8a4 the whole
# checkout is 18 MB of files, the paths named above 4.2 MB (the working
# tree, build/ and carried folders travel within 64 MiB together).
set -eu
mirror=${1:-${AKA_MIRROR:-/work/.mirror/AMD-AGI+AgentKernelArena/repo}}
dest=${2:-.aka/AgentKernelArena}
[ $# -gt 2 ] && shift 2 || set --
if ! git --git-dir="$mirror" rev-parse --verify -q HEAD >/dev/null; then
	echo "aka-fetch: $mirror is not a git directory with a HEAD" >&2
	exit 2
fi
rm -rf "$dest.tmp"
mkdir -p "$dest.tmp"
python3 - "$mirror" "$dest.tmp" "$@" <<'PY'
import os, subprocess, sys
mirror, dest = sys.argv[1], sys.argv[2]
only = [p.strip("/") for p in sys.argv[3:]]
git = ["git", "--git-dir=" + mirror]
tree = subprocess.run(git + ["ls-tree", "-r", "-z", "HEAD"], check=True,
                      capture_output=True).stdout.split(b"\0")
entries = []
for e in tree:
    if not e:
        continue
    meta, path = e.split(b"\t", 1)
    mode, kind, sha = meta.split()
    p = path.decode()
    if only and not any(p == o or p.startswith(o + "/") for o in only):
        continue
    if kind == b"blob":
        entries.append((mode.decode(), sha.decode(), path.decode()))
cat = subprocess.Popen(git + ["cat-file", "--batch"], stdin=subprocess.PIPE,
                       stdout=subprocess.PIPE)
missing, written, nbytes = [], 0, 0
for mode, sha, path in entries:
    if os.path.isabs(path) or ".." in path.split("/"):
        missing.append(path)
        continue
    cat.stdin.write((sha + "\n").encode())
    cat.stdin.flush()
    head = cat.stdout.readline().split()
    if len(head) < 2 or head[1] == b"missing":
        missing.append(path)
        continue
    data = cat.stdout.read(int(head[2]))
    cat.stdout.read(1)
    out = os.path.join(dest, path)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    if mode == "120000":
        missing.append(path)	# symlinks are not copied
        continue
    with open(out, "wb") as f:
        f.write(data)
    if mode == "100755":
        os.chmod(out, 0o755)
    written += 1
    nbytes += len(data)
cat.stdin.close()
cat.wait()
head = subprocess.run(git + ["rev-parse", "HEAD"], check=True,
                      capture_output=True, text=True).stdout.strip()
with open(os.path.join(dest, ".aka-commit"), "w") as f:
    f.write(head + "\n")
with open(os.path.join(dest, ".aka-missing"), "w") as f:
    f.write("".join(p + "\n" for p in missing))
print("aka-fetch: %d files, %.1f MB from %s at %s (%d absent, listed in "
      ".aka-missing)" % (written, nbytes / 1e6, mirror, head[:8], len(missing)))
PY
rm -rf "$dest"
mv "$dest.tmp" "$dest"
