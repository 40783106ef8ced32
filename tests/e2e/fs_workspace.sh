# A workspace through the mount behaves like the real directory for an
# editor, a compiler, git and an agent: an editor-style save (temp file
# renamed over the original) is evaluated once by `cat score` (visible
# cases; the attempt is not finished, so nothing final changes); git
# init/add/commit works; and every documented operation works or fails
# with its documented errno (xattrs ENOTSUP, device nodes EPERM), with
# every change landing in the real directory.
. "$(dirname "$0")/fs_lib.sh"
fs_mount

sleep_config "$T/sleep.yaml" 1
run=$(new_run "$T/sleep.yaml")
wait_executor_running "$run"
echo cancel > "$MNT/runs/$run/control"
wait_status "$run" cancelled 30
W="$MNT/runs/$run/tasks/c2c_dot/workspace"
R="$STORE/runs/$run/tasks/c2c_dot/workspace"
# The daemon logs one line per evaluation it starts.
evals() { grep -c ': evaluation started' "$T/mount.log"; }

# Editor-style save, then score evaluates exactly once.
n0=$(evals)
cp "$W/kernel.c" "$T/kernel.c"
printf '\n/* tuned by hand */\n' >> "$T/kernel.c"
cp "$T/kernel.c" "$W/.kernel.c.swp" || fail "write the temp file"
mv -f "$W/.kernel.c.swp" "$W/kernel.c" || fail "rename over kernel.c"
cmp -s "$T/kernel.c" "$R/kernel.c" || fail "the save did not reach the real file"
[ ! -e "$R/.kernel.c.swp" ] || fail "the temp file is still there"
s1=$(cat "$W/../score") || fail "cat score failed"
echo "$s1" | grep -Eq '^[0-9]+\.[0-9]{4}$' || fail "score is '$s1'"
[ "$(evals)" = $((n0 + 1)) ] || fail "the save was not evaluated once"
grep -q '^pass_compilation: true' "$W/../task_result.yaml" || fail "the saved kernel did not compile"
[ "$(evals)" = $((n0 + 1)) ] || fail "unchanged sources evaluated again"
grep -q 'held_out: true' "$W/../task_result.yaml" && fail "an unfinished attempt was evaluated on held-out cases"
grep -q "progress: 0/1 done" "$MNT/runs/$run/status" || fail "score finished the attempt: $(cat "$MNT/runs/$run/status")"
echo 'int broken(' >> "$W/kernel.c"
[ "$(cat "$W/../score")" = "0.0000" ] || fail "a broken kernel does not score 0"
[ "$(evals)" = $((n0 + 2)) ] || fail "an edit was not evaluated"
cp "$T/kernel.c" "$W/kernel.c"

# git inside the workspace
(cd "$W" && git init -q && git add -A &&
	git -c user.email=t@t -c user.name=t commit -qm "start" &&
	echo '/* more */' >> kernel.c && git diff --stat | grep -q kernel.c &&
	git -c user.email=t@t -c user.name=t commit -qam "more" &&
	[ -z "$(git status --porcelain)" ] && [ "$(git log --oneline | wc -l)" = 2 ]) ||
	fail "git in the workspace"
[ -d "$R/.git" ] || fail "the repository is not in the real workspace"

# File operations
cd "$W" || fail "cd into the workspace"
echo one > a.txt && echo two >> a.txt || fail "create/append"
[ "$(cat "$R/a.txt")" = "one
two" ] || fail "content"
truncate -s 3 a.txt && [ "$(cat a.txt)" = one ] || fail "truncate"
echo other > b.txt && mv -f b.txt a.txt && [ "$(cat a.txt)" = other ] || fail "rename over"
mkdir -p d/e && rmdir d/e && rmdir d || fail "mkdir/rmdir"
mkdir -p d2/x && expect_err "Directory not empty" rmdir d2 && rm -r d2 ||
	fail "rmdir of a non-empty directory"
ln -s a.txt link && [ "$(readlink link)" = a.txt ] && [ "$(cat link)" = other ] ||
	fail "symlink/readlink"
[ "$(readlink "$R/link")" = a.txt ] || fail "symlink not real"
ln a.txt hard && [ "$(stat -c %h a.txt)" = 2 ] || fail "hard link"
chmod 600 a.txt && [ "$(stat -c %a "$R/a.txt")" = 600 ] || fail "chmod"
touch -d '2001-02-03 04:05:06' a.txt &&
	[ "$(stat -c %Y a.txt)" = "$(stat -c %Y "$R/a.txt")" ] &&
	[ "$(date -d @"$(stat -c %Y a.txt)" +%Y)" = 2001 ] || fail "utimens"
touch -h -d '2002-01-01' link || fail "utimens of a symlink"
mkfifo fifo && [ -p "$R/fifo" ] || fail "mkfifo"
expect_err "Operation not permitted" mknod dev c 1 3
cp a.txt c.txt && cmp -s a.txt c.txt || fail "cp (copy_file_range) within the workspace"
stat -f . > /dev/null || fail "statfs"
rm a.txt hard link c.txt fifo && [ ! -e "$R/a.txt" ] || fail "unlink"
python3 - "$W" <<'PY' || fail "fsync, mmap, xattr, O_EXCL, rename flags"
import errno, mmap, os, sys
w = sys.argv[1]
p = os.path.join(w, "m.bin")
with open(p, "wb") as f:
    f.write(b"\0" * 8192)
    f.flush()
    os.fsync(f.fileno())
    os.fdatasync(f.fileno())
with open(p, "r+b") as f:
    m = mmap.mmap(f.fileno(), 8192)
    m[0:5] = b"hello"
    m.flush()
    m.close()
with open(p, "rb") as f:
    m = mmap.mmap(f.fileno(), 8192, prot=mmap.PROT_READ)
    assert m[0:5] == b"hello", "mmap read"
    m.close()
try:
    os.setxattr(p, "user.x", b"1")
    sys.exit("setxattr succeeded")
except OSError as e:
    assert e.errno in (errno.ENOTSUP, errno.EOPNOTSUPP), e
try:
    os.open(p, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    sys.exit("O_EXCL on an existing file succeeded")
except FileExistsError:
    pass
os.remove(p)
PY
[ ! -e "$R/m.bin" ] || fail "m.bin left behind"
cd "$T" || exit 1

# Changes made behind the mount (directly in the store) are seen through
# it within moments, although the kernel keeps workspace entries and
# attributes for an hour: inotify reports them (fsv_watch.c).  Each is
# first cached through the mount, then changed natively.
seen_within() {	# seconds, command...: retries until the command succeeds
	t=$1; shift
	for _ in $(seq $((t * 20))); do "$@" && return 0; sleep 0.05; done
	return 1
}
echo native > "$R/native.txt"
[ "$(cat "$W/native.txt")" = native ] || fail "a natively created file is not visible"
ls "$W" > /dev/null; stat "$W/absent.txt" 2>/dev/null
echo nativf > "$R/native.txt"		# same size, new content
seen_within 2 sh -c '[ "$(cat "$1")" = nativf ]' - "$W/native.txt" ||
	fail "a native same-size change is not seen"
echo "changed behind the mount" > "$R/native.txt"
seen_within 2 sh -c '[ "$(cat "$1")" = "changed behind the mount" ]' - "$W/native.txt" ||
	fail "a native change is not seen"
touch "$R/listed.txt" "$R/absent.txt"
seen_within 2 sh -c 'ls "$1" | grep -qx listed.txt' - "$W" || fail "a native file is not listed"
seen_within 2 test -e "$W/absent.txt" || fail "a negative entry outlived a native create"
rm "$R/listed.txt"
seen_within 2 sh -c '! ls "$1" | grep -qx listed.txt && ! test -e "$1/listed.txt"' - "$W" ||
	fail "a native removal is not seen"
chmod 600 "$R/native.txt"
seen_within 2 sh -c '[ "$(stat -c %a "$1")" = 600 ]' - "$W/native.txt" || fail "a native chmod is not seen"
mkdir "$R/sub" && echo deep > "$R/sub/f"
seen_within 2 sh -c '[ "$(cat "$1/sub/f")" = deep ]' - "$W" || fail "a native subdirectory is not seen"
rm -rf "$R/sub" "$R/native.txt" "$R/absent.txt"

fs_umount
wait_executors 30
echo ok
