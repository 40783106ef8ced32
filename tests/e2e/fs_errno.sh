# Walks the errno tables of docs/fs-semantics.md on a real mount: every row
# below is a row of those tables (the path, what is done to it, the errno
# the page promises), checked with the system call itself (Python's os
# module), as root and, for the mode checks, as an unprivileged user.
# The last rows kill the daemon: a reader waiting on score gets
# ECONNABORTED, later calls ENOTCONN.
. "$(dirname "$0")/fs_lib.sh"
fs_mount
sleep_config "$T/sleep.yaml" 1
run=$(new_run "$T/sleep.yaml")
wait_executor_running "$run"
echo cancel > "$MNT/runs/$run/control"
wait_status "$run" cancelled 30
cheap_config "$T/done.yaml"
done_run=$(new_run "$T/done.yaml")
wait_status "$done_run" done 180
head -c 300000 /dev/zero | tr '\0' 'a' > "$T/big.yaml"

python3 - "$MNT" "$run" "$done_run" "$T" <<'PY' || fail "errno table"
import ctypes, errno, mmap, os, sys
mnt, run, done_run, t = sys.argv[1:]
R = f"{mnt}/runs/{run}"
W = f"{R}/tasks/c2c_dot/workspace"
F = f"{mnt}/runs/{done_run}/tasks/c2c_dot/workspace"
bad = []

def expect(row, want, fn, *args):
    try:
        fn(*args)
        got = 0
    except OSError as e:
        got = e.errno
    ok = got == want
    print(f"{'ok ' if ok else 'BAD'} {row}: {errno.errorcode.get(got, got)}"
          f"{'' if ok else ' (want ' + errno.errorcode[want] + ')'}")
    if not ok:
        bad.append(row)

def write(path, data=b"x", flags=os.O_WRONLY):
    fd = os.open(path, flags, 0o644)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)

def close_empty(path):
    os.close(os.open(path, os.O_WRONLY | os.O_TRUNC))

def copy_in(src, dst):
    fd = os.open(dst, os.O_WRONLY | os.O_TRUNC)
    try:
        with open(src, "rb") as f:
            os.write(fd, f.read())
    finally:
        os.close(fd)

def seek_data(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        os.lseek(fd, 0, os.SEEK_DATA)
    finally:
        os.close(fd)

def renameat2(old, new, flags):
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.renameat2(-100, os.fsencode(old), -100, os.fsencode(new), flags):
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))

def map_shared(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        mmap.mmap(fd, 0, flags=mmap.MAP_SHARED, prot=mmap.PROT_READ)
    finally:
        os.close(fd)

def nonblock(path):
    os.close(os.open(path, os.O_RDONLY | os.O_NONBLOCK))

def write_after_commit(path):
    fd = os.open(path, os.O_RDWR)
    try:
        os.write(fd, b"agent: {template: noop}\ntasks: [c2c/dot]\n"
                 b"device: host\n")
        os.lseek(fd, 0, os.SEEK_SET)
        os.read(fd, 100)             # commits: the run exists now
        os.write(fd, b"more")
    finally:
        os.close(fd)

# Errors common to all paths
expect("ENOENT unknown name", errno.ENOENT, os.stat, f"{mnt}/nope")
expect("ENOENT unknown run", errno.ENOENT, os.stat, f"{mnt}/runs/run_19990101_000000")
expect("EROFS write README (root)", errno.EROFS, write, f"{mnt}/README")
expect("EROFS O_RDONLY|O_TRUNC open of a read-only file (root)", errno.EROFS,
       os.open, f"{R}/status", os.O_RDONLY | os.O_TRUNC)
expect("EROFS create in /runs", errno.EROFS, write, f"{mnt}/runs/x", b"x",
       os.O_WRONLY | os.O_CREAT)
expect("EROFS mkdir in a run", errno.EROFS, os.mkdir, f"{R}/d")
expect("EROFS unlink runs/new", errno.EROFS, os.unlink, f"{mnt}/runs/new")
expect("EROFS chmod of a read-only synthetic file (root)", errno.EROFS,
       os.chmod, f"{R}/status", 0o600)
expect("EPERM chmod of runs/new (root)", errno.EPERM, os.chmod,
       f"{mnt}/runs/new", 0o600)
expect("EPERM chown of control (root)", errno.EPERM, os.chown,
       f"{R}/control", 1, 1)
expect("EISDIR open a directory for writing", errno.EISDIR, write, f"{mnt}/runs")
expect("ENOTDIR a file as a directory", errno.ENOTDIR, os.stat, f"{mnt}/README/x")
expect("EINVAL readlink of a non-link", errno.EINVAL, os.readlink, f"{mnt}/README")
expect("EINVAL SEEK_DATA on a synthetic file", errno.EINVAL, seek_data, f"{mnt}/README")
expect("ENODEV shared mmap of a synthetic file", errno.ENODEV, map_shared,
       f"{mnt}/README")
# runs/new
expect("EINVAL bad config", errno.EINVAL, write, f"{mnt}/runs/new", b"agent: [\n")
expect("EFBIG config over 256 KiB", errno.EFBIG, copy_in, f"{t}/big.yaml", f"{mnt}/runs/new")
expect("EBUSY write after the descriptor launched a run", errno.EBUSY,
       write_after_commit, f"{mnt}/runs/new")
# (last of the runs/new rows: cat runs/new is checked after this script)
expect("EINVAL empty config", errno.EINVAL, close_empty, f"{mnt}/runs/new")
# control
expect("EINVAL unknown control command", errno.EINVAL, write, f"{R}/control", b"explode\n")
expect("EINVAL empty control write", errno.EINVAL, write, f"{R}/control", b"\n")
# score
expect("EAGAIN O_NONBLOCK score that would evaluate", errno.EAGAIN, nonblock,
       f"{R}/tasks/c2c_dot/score")
expect("EROFS write score (root)", errno.EROFS, write, f"{R}/tasks/c2c_dot/score")
# workspaces
expect("ENOTSUP setxattr in a workspace", errno.ENOTSUP, os.setxattr,
       f"{W}/kernel.c", "user.x", b"1")
expect("EPERM mknod of a device", errno.EPERM, os.mknod, f"{W}/dev",
       0o600 | 0o020000, os.makedev(1, 3))
expect("EOPNOTSUPP O_TMPFILE in a workspace", errno.EOPNOTSUPP, os.open, W,
       os.O_TMPFILE | os.O_WRONLY, 0o600)
expect("EINVAL rename with RENAME_WHITEOUT (it would make a device node)",
       errno.EINVAL, renameat2, f"{W}/kernel.c", f"{W}/kernel2.c", 4)
expect("EXDEV rename out of a workspace", errno.EXDEV, os.rename,
       f"{W}/kernel.c", f"{R}/tasks/c2c_dot/kernel.c")
expect("EXDEV hard link between two workspaces", errno.EXDEV, os.link,
       f"{F}/kernel.c", f"{W}/stolen.c")
expect("EROFS remove the workspace itself", errno.EROFS, os.rmdir, W)
expect("EROFS write in a finished workspace", errno.EROFS, write,
       f"{F}/kernel.c", b"x", os.O_WRONLY | os.O_APPEND)
expect("EROFS create in a finished workspace", errno.EROFS, write,
       f"{F}/new.c", b"x", os.O_WRONLY | os.O_CREAT)
expect("EROFS write in the task packages", errno.EROFS, write,
       f"{mnt}/tasks/c2c/dot/config.yaml", b"x", os.O_WRONLY | os.O_APPEND)
expect("ENOENT held_out.yaml in the task packages", errno.ENOENT, os.stat,
       f"{mnt}/tasks/c2c/dot/held_out.yaml")

# The same as an unprivileged user: the modes answer first.
pid = os.fork()
if pid == 0:
    os.setgroups([])
    os.setgid(65534)
    os.setuid(65534)
    bad.clear()
    expect("EACCES write README (non-root)", errno.EACCES, write, f"{mnt}/README")
    expect("EACCES write status (non-root)", errno.EACCES, write, f"{R}/status")
    expect("EACCES chmod of a synthetic file (non-root)", errno.EACCES,
           os.chmod, f"{mnt}/README", 0o600)
    os._exit(1 if bad else 0)
_, st = os.waitpid(pid, 0)
if st:
    bad.append("unprivileged rows")
if bad:
    sys.exit("rows that do not match the docs: " + ", ".join(bad))
PY
grep -q 'config is empty' "$MNT/runs/new" || fail "cat runs/new does not explain the empty config: $(cat "$MNT/runs/new")"
grep -q 'config is empty' "$MNT/runs/errors" || fail "runs/errors does not list the empty config"
# A shell redirection's intermediate close of the descriptor commits
# nothing: `echo cfg > runs/new` launches one run and logs no error.
n=$(grep -c . "$MNT/runs/errors")
cheap_config "$T/echo.yaml"
sh -c "cat '$T/echo.yaml' > '$MNT/runs/new'" || fail "a redirection into runs/new failed"
grep -q '^run_' "$MNT/runs/new" || fail "the redirection launched nothing: $(cat "$MNT/runs/new")"
[ "$(grep -c . "$MNT/runs/errors")" = "$n" ] || fail "a redirection logged an error: $(tail -n 1 "$MNT/runs/errors")"

# The daemon dies under a reader: ECONNABORTED for it, ENOTCONN after.
echo '/* new */' >> "$MNT/runs/$run/tasks/c2c_dot/workspace/kernel.c"
python3 - "$MNT/runs/$run/tasks/c2c_dot/score" > "$T/reader.out" 2>&1 <<'PY' &
import errno, sys
try:
    open(sys.argv[1]).read()
    print("read")
except OSError as e:
    print(errno.errorcode[e.errno])
PY
reader=$!
for _ in $(seq 100); do
	pgrep -f -- "--store $STORE .*--eval-worker" > /dev/null && break
	sleep 0.05
done
kill -9 "$FS_PID"
wait "$reader"
FS_PID=
[ "$(cat "$T/reader.out")" = ECONNABORTED ] || fail "a reader under a dying daemon got: $(cat "$T/reader.out")"
expect_err "Transport endpoint is not connected" ls "$MNT"
echo ok
