/*
 * fsv_pass.c - workspaces (read-write) and task packages (read-only) as
 * pass-through subtrees of real directories.
 *
 * The pattern is libfuse's passthrough_ll.c: every node holds an O_PATH
 * descriptor of its real object and every operation is an *at() call
 * relative to it (or a re-open through /proc/self/fd), so no path is ever
 * rebuilt and a rename behind the mount cannot make the daemon operate on
 * the wrong file.  Open files keep the real descriptor in fi->fh.
 *
 * What an editor, a compiler, git and an agent need is implemented:
 * lookup, getattr, setattr (chmod, chown, truncate, utimens), readlink,
 * mknod (regular files, fifos, sockets; no devices), mkdir, symlink, link,
 * unlink, rmdir, rename (with RENAME_NOREPLACE and RENAME_EXCHANGE; not
 * RENAME_WHITEOUT, which would make a device node),
 * create, open, read, write (zero-copy where libfuse can splice), flush,
 * release, fsync, opendir, readdir, readdirplus, fsyncdir, statfs,
 * fallocate, lseek and copy_file_range.  Extended attributes are not
 * implemented, so the kernel answers ENOTSUP; locks are kept by the kernel.
 *
 * Every node belongs to a root (fsv_root.c).  Under the task packages and
 * under the workspace of a done attempt (finished is final) every change
 * is refused with EROFS and no write permission bit is shown; the task
 * packages also hide held_out.yaml (held-out cases are never visible to
 * agents, DESIGN.md §3).  Renames and hard links between two roots are
 * EXDEV: a file of a finished workspace never becomes writable through a
 * live one.
 *
 * Timeouts: entries and attributes of pass-through nodes are cached for
 * fs->ws_timeout seconds (--ws-timeout, default one hour) where an inotify
 * watch reports changes made behind the mount (fsv_watch.c), and for
 * FSV_UNWATCHED_TIMEOUT at most elsewhere.  Where the watch reports
 * changes, files keep their page cache across opens and writes, and the
 * kernel drops it only when the daemon tells it to (a change of the bytes
 * the mount did not make, fsv_watch_wrote); elsewhere every open drops
 * it.  Only O_RDWR descriptors (the ones that can carry a shared writable
 * mmap) send FLUSH at close.
 * Files created through the mount by another user than the daemon's
 * belong to that user (fchownat after creation), as on a local file
 * system.
 */
#include "fsv.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/statvfs.h>
#include <unistd.h>

struct pass_dir {
	DIR *dp;
	struct dirent *entry;
};

static bool hidden(const struct fsv_node *dir, const char *name)
{
	return dir->root->readonly && strcmp(name, "held_out.yaml") == 0;
}

static void proc_path(char *buf, size_t n, int fd)
{
	snprintf(buf, n, "/proc/self/fd/%d", fd);
}

/* Hides the write bits of a node under a read-only root.  Whether a
 * workspace became final is learnt here (rate-limited by
 * fsv_root_writable) by every reply that carries attributes: a lookup's
 * are kept by the kernel for --ws-timeout, so the first lookup of a
 * finished workspace must not show the bits it had while live. */
static void mask_attr(struct fsv *fs, const struct fsv_node *n, struct stat *st)
{
	if (fsv_root_writable(fs, n->root))
		st->st_mode &= ~(mode_t)0222;
}

static bool watched(const struct fsv_node *dir)
{
	return dir && dir->wd >= 0;
}

/* Fills e for name in the real directory of parent (or for the path name
 * when parent is NULL: a root) and takes a lookup reference on its node.
 * Returns 0 or an errno. */
static int entry_at(struct fsv *fs, struct fsv_node *parent, const char *name,
		    struct fsv_root *root, struct fuse_entry_param *e)
{
	struct fsv_node *n;
	int fd;

	memset(e, 0, sizeof(*e));
	fd = openat(parent ? parent->fd : AT_FDCWD, name,
		    O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno;
	if (fstatat(fd, "", &e->attr, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW)) {
		int err = errno;
		close(fd);
		return err;
	}
	n = fsv_node_pass(fs, fd, &e->attr, root, watched(parent));
	fsv_watch_told(fs, n, &e->attr);
	mask_attr(fs, n, &e->attr);
	e->ino = n->ino;
	e->attr_timeout = fsv_pass_timeout(fs, n->covered);
	/* A root's own name lives in the synthetic tree, which never
	 * renames it: as stable as the root itself. */
	e->entry_timeout = fsv_pass_timeout(fs, parent ? watched(parent)
						       : n->covered);
	return 0;
}

int fsv_pass_entry(struct fsv *fs, const char *real_path,
		   struct fsv_root *root, struct fuse_entry_param *e)
{
	int rc = entry_at(fs, NULL, real_path, root, e);

	if (!rc && !S_ISDIR(e->attr.st_mode)) {
		fsv_node_forget(fs, e->ino, 1);
		memset(e, 0, sizeof(*e));
		return ENOENT;
	}
	return rc;
}

static int check_writable(struct fsv *fs, const struct fsv_node *n)
{
	if (n->kind != FSV_PASS)
		return EROFS;
	return fsv_root_writable(fs, n->root);
}

/* Gives a new entry to the caller when the daemon creates as root on
 * behalf of another user. */
static void own_by_caller(fuse_req_t req, int dirfd, const char *name)
{
	const struct fuse_ctx *ctx = fuse_req_ctx(req);

	if (geteuid() == 0 && ctx->uid != 0)
		if (fchownat(dirfd, name, ctx->uid, ctx->gid,
			     AT_SYMLINK_NOFOLLOW) != 0)
			fsv_log("chown of a new entry failed: %s",
				strerror(errno));
}

static void reply_entry_or_err(fuse_req_t req, struct fsv_node *parent,
			       const char *name)
{
	struct fuse_entry_param e;
	int rc = entry_at(fsv_of(req), parent, name, parent->root, &e);

	if (rc)
		fuse_reply_err(req, rc);
	else if (fuse_reply_entry(req, &e) != 0)
		fsv_node_forget(fsv_of(req), e.ino, 1);
}

/* A name that does not exist: cached like existing names (git looks for
 * .gitignore in every directory), unless timeouts are off.  Names created
 * through the mount replace the negative entry at once. */
static void reply_absent(fuse_req_t req, const struct fsv_node *parent)
{
	struct fuse_entry_param e;
	double t = fsv_pass_timeout(fsv_of(req), watched(parent));

	if (t <= 0) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	memset(&e, 0, sizeof(e));
	e.entry_timeout = t;
	fuse_reply_entry(req, &e);
}

/* ---- names ----------------------------------------------------------- */

void fsv_pass_lookup(fuse_req_t req, struct fsv_node *parent,
		     const char *name)
{
	struct fuse_entry_param e;
	int rc;

	if (!strcmp(name, ".") || !strcmp(name, "..") || hidden(parent, name)) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	rc = entry_at(fsv_of(req), parent, name, parent->root, &e);
	if (rc == ENOENT)
		reply_absent(req, parent);
	else if (rc)
		fuse_reply_err(req, rc);
	else if (fuse_reply_entry(req, &e) != 0)
		fsv_node_forget(fsv_of(req), e.ino, 1);
}

void fsv_pass_mknod(fuse_req_t req, struct fsv_node *parent,
		    const char *name, mode_t mode, dev_t rdev,
		    const char *link)
{
	struct fsv *fs = fsv_of(req);
	int rc = check_writable(fs, parent);

	(void)rdev;
	if (!rc) {
		fsv_watch_expect(fs, parent, name, IN_CREATE);
		if (link)
			rc = symlinkat(link, parent->fd, name);
		else if (S_ISDIR(mode))
			rc = mkdirat(parent->fd, name, mode & 07777);
		else if (S_ISREG(mode) || S_ISFIFO(mode) || S_ISSOCK(mode))
			rc = mknodat(parent->fd, name, mode, 0);
		else
			rc = -1, errno = EPERM;	/* no device nodes */
		rc = rc ? errno : 0;
		if (rc)
			fsv_watch_unexpect(fs, parent, name, IN_CREATE);
	}
	if (rc) {
		fuse_reply_err(req, rc);
		return;
	}
	own_by_caller(req, parent->fd, name);
	reply_entry_or_err(req, parent, name);
}

void fsv_pass_link(fuse_req_t req, struct fsv_node *n,
		   struct fsv_node *newparent, const char *name)
{
	struct fsv *fs = fsv_of(req);
	struct fuse_entry_param e;
	char proc[64];
	int rc;

	if (n->kind != FSV_PASS || newparent->kind != FSV_PASS ||
	    n->root != newparent->root) {
		fuse_reply_err(req, EXDEV);
		return;
	}
	rc = check_writable(fs, n);
	if (rc) {
		fuse_reply_err(req, rc);
		return;
	}
	proc_path(proc, sizeof(proc), n->fd);
	memset(&e, 0, sizeof(e));
	struct stat before;
	bool exact = fstatat(n->fd, "", &before, AT_EMPTY_PATH) == 0 &&
		     S_ISREG(before.st_mode) &&
		     fsv_watch_pages_exact(fs, n, &before);
	fsv_watch_expect(fs, newparent, name, IN_CREATE);
	if (linkat(AT_FDCWD, proc, newparent->fd, name, AT_SYMLINK_FOLLOW)) {
		rc = errno;
		fsv_watch_unexpect(fs, newparent, name, IN_CREATE);
		fuse_reply_err(req, rc);
		return;
	}
	if (fstatat(n->fd, "", &e.attr, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW)) {
		fuse_reply_err(req, errno);
		return;
	}
	fsv_node_ref(fs, n);
	if (exact)
		fsv_watch_wrote(fs, n, -1, &e.attr);
	fsv_watch_told(fs, n, &e.attr);
	mask_attr(fs, n, &e.attr);
	e.ino = n->ino;
	e.attr_timeout = fsv_pass_timeout(fs, n->covered);
	e.entry_timeout = fsv_pass_timeout(fs, watched(newparent));
	if (fuse_reply_entry(req, &e) != 0)
		fsv_node_forget(fs, n->ino, 1);
}

void fsv_pass_unlink(fuse_req_t req, struct fsv_node *parent,
		     const char *name, int flags)
{
	struct fsv *fs = fsv_of(req);
	int rc = check_writable(fs, parent);

	if (!rc) {
		fsv_watch_expect(fs, parent, name, IN_DELETE);
		if (unlinkat(parent->fd, name, flags) != 0) {
			rc = errno;
			fsv_watch_unexpect(fs, parent, name, IN_DELETE);
		}
	}
	fuse_reply_err(req, rc);
}

void fsv_pass_rename(fuse_req_t req, struct fsv_node *parent,
		     const char *name, struct fsv_node *newparent,
		     const char *newname, unsigned int flags)
{
	int rc;

	if (parent->kind != FSV_PASS || newparent->kind != FSV_PASS ||
	    parent->root != newparent->root) {
		fuse_reply_err(req, EXDEV);
		return;
	}
	/* RENAME_WHITEOUT leaves a character device (0, 0) in the old
	 * name's place: a device node, which workspaces never hold (mknod
	 * of one is EPERM).  EINVAL is what a file system without
	 * whiteouts answers. */
	if (flags & ~(unsigned)(RENAME_NOREPLACE | RENAME_EXCHANGE)) {
		fuse_reply_err(req, EINVAL);
		return;
	}
	struct fsv *fs = fsv_of(req);
	rc = check_writable(fs, parent);
	if (rc) {
		fuse_reply_err(req, rc);
		return;
	}
	/* A plain rename moves name away and newname in; an exchange
	 * moves both ways. */
	uint32_t from = IN_MOVED_FROM, to = IN_MOVED_TO;
	if (flags & RENAME_EXCHANGE)
		from = to = IN_MOVED_FROM | IN_MOVED_TO;
	struct stat st_from, st_to;
	bool exact_from = fsv_watch_exact_at(fs, parent, name, &st_from);
	bool exact_to = (flags & RENAME_EXCHANGE) &&
			fsv_watch_exact_at(fs, newparent, newname, &st_to);
	fsv_watch_expect(fs, parent, name, from);
	fsv_watch_expect(fs, newparent, newname, to);
	if (renameat2(parent->fd, name, newparent->fd, newname, flags) != 0) {
		rc = errno;
		fsv_watch_unexpect(fs, parent, name, from);
		fsv_watch_unexpect(fs, newparent, newname, to);
	} else {
		if (exact_from)
			fsv_watch_wrote_at(fs, newparent, newname, &st_from);
		if (exact_to)
			fsv_watch_wrote_at(fs, parent, name, &st_to);
	}
	fuse_reply_err(req, rc);
}

/* ---- attributes ------------------------------------------------------ */

void fsv_pass_getattr(fuse_req_t req, struct fsv_node *n)
{
	struct fsv *fs = fsv_of(req);
	struct stat st;

	if (fstatat(n->fd, "", &st, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW)) {
		fuse_reply_err(req, errno);
		return;
	}
	fsv_watch_told(fs, n, &st);
	mask_attr(fs, n, &st);
	fuse_reply_attr(req, &st, fsv_pass_timeout(fs, n->covered));
}

static int set_times(struct fsv_node *n, const struct stat *attr, int valid,
		     struct fuse_file_info *fi)
{
	struct timespec tv[2] = {
		{ .tv_nsec = UTIME_OMIT }, { .tv_nsec = UTIME_OMIT },
	};
	char proc[64];

	if (valid & FUSE_SET_ATTR_ATIME_NOW)
		tv[0].tv_nsec = UTIME_NOW;
	else if (valid & FUSE_SET_ATTR_ATIME)
		tv[0] = attr->st_atim;
	if (valid & FUSE_SET_ATTR_MTIME_NOW)
		tv[1].tv_nsec = UTIME_NOW;
	else if (valid & FUSE_SET_ATTR_MTIME)
		tv[1] = attr->st_mtim;
	if (fi)
		return futimens((int)fi->fh, tv);
	proc_path(proc, sizeof(proc), n->fd);
	/* A symlink's O_PATH descriptor cannot be re-opened: set its own
	 * times relative to the descriptor instead. */
	return utimensat(n->fd, "", tv, AT_EMPTY_PATH) == 0
		       ? 0 : utimensat(AT_FDCWD, proc, tv, 0);
}

static int apply_setattr(struct fsv_node *n, const struct stat *attr,
			 int valid, struct fuse_file_info *fi)
{
	char proc[64];

	proc_path(proc, sizeof(proc), n->fd);
	if (valid & FUSE_SET_ATTR_MODE) {
		if (fi ? fchmod((int)fi->fh, attr->st_mode)
		       : chmod(proc, attr->st_mode))
			return errno;
	}
	if (valid & (FUSE_SET_ATTR_UID | FUSE_SET_ATTR_GID)) {
		uid_t uid = valid & FUSE_SET_ATTR_UID ? attr->st_uid
						      : (uid_t)-1;
		gid_t gid = valid & FUSE_SET_ATTR_GID ? attr->st_gid
						      : (gid_t)-1;
		if (fchownat(n->fd, "", uid, gid,
			     AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW))
			return errno;
	}
	if (valid & FUSE_SET_ATTR_SIZE) {
		if (fi ? ftruncate((int)fi->fh, attr->st_size)
		       : truncate(proc, attr->st_size))
			return errno;
	}
	if (valid & (FUSE_SET_ATTR_ATIME | FUSE_SET_ATTR_MTIME)) {
		if (set_times(n, attr, valid, fi))
			return errno;
	}
	return 0;
}

void fsv_pass_setattr(fuse_req_t req, struct fsv_node *n, struct stat *attr,
		      int valid, struct fuse_file_info *fi)
{
	struct fsv *fs = fsv_of(req);
	struct stat st;
	int rc = check_writable(fs, n);
	/* Whether the kernel's pages are the file's bytes now: then they
	 * still are after this change (the kernel truncates its own pages),
	 * and the IN_ATTRIB it causes must not drop them. */
	bool pages_exact = false;

	if (!rc && fstatat(n->fd, "", &st, AT_EMPTY_PATH) == 0 &&
	    S_ISREG(st.st_mode))
		pages_exact = fsv_watch_pages_exact(fs, n, &st);
	if (!rc)
		rc = apply_setattr(n, attr, valid, fi);
	if (!rc && pages_exact && fstatat(n->fd, "", &st, AT_EMPTY_PATH) == 0)
		fsv_watch_wrote(fs, n, -1, &st);
	if (rc)
		fuse_reply_err(req, rc);
	else
		fsv_pass_getattr(req, n);
}

void fsv_pass_readlink(fuse_req_t req, struct fsv_node *n)
{
	char buf[PATH_MAX + 1];
	ssize_t r = readlinkat(n->fd, "", buf, sizeof(buf));

	if (r < 0) {
		fuse_reply_err(req, errno);
		return;
	}
	if ((size_t)r >= sizeof(buf)) {
		fuse_reply_err(req, ENAMETOOLONG);
		return;
	}
	buf[r] = '\0';
	fuse_reply_readlink(req, buf);
}

void fsv_pass_statfs(fuse_req_t req, struct fsv_node *n)
{
	struct statvfs sv;
	int rc = n->kind == FSV_PASS ? fstatvfs(n->fd, &sv)
				     : statvfs(fsv_of(req)->store_dir, &sv);

	if (rc)
		fuse_reply_err(req, errno);
	else
		fuse_reply_statfs(req, &sv);
}

/* ---- files ----------------------------------------------------------- */

static void set_cache(struct fsv *fs, const struct fsv_node *n,
		      struct fuse_file_info *fi)
{
	fi->direct_io = 0;
	/* The kernel drops a file's pages only when the daemon tells it
	 * (fsv_watch.c): where nothing would tell it, every open starts
	 * afresh (close-to-open consistency). */
	fi->keep_cache = fsv_watch_keeps_pages(fs, n);
	/* FLUSH at close has nothing to do for the daemon (every write
	 * already reached the real file), but for a descriptor that can
	 * carry a shared writable mmap (O_RDWR) the kernel writes the
	 * mapping's dirty pages back before it sends FLUSH, and skips that
	 * too under noflush: only such descriptors keep it. */
	fi->noflush = (fi->flags & O_ACCMODE) != O_RDWR;
}

void fsv_pass_open(fuse_req_t req, struct fsv_node *n,
		   struct fuse_file_info *fi)
{
	char proc[64];
	int fd;

	if ((fi->flags & O_ACCMODE) != O_RDONLY || (fi->flags & O_TRUNC)) {
		int rc = check_writable(fsv_of(req), n);
		if (rc) {
			fuse_reply_err(req, rc);
			return;
		}
	}
	proc_path(proc, sizeof(proc), n->fd);
	fd = open(proc, (fi->flags & ~O_NOFOLLOW) | O_CLOEXEC);
	if (fd < 0) {
		fuse_reply_err(req, errno);
		return;
	}
	fi->fh = (uint64_t)fd;
	if (fi->flags & O_TRUNC)
		fsv_watch_wrote(fsv_of(req), n, fd, NULL);
	set_cache(fsv_of(req), n, fi);
	if (fuse_reply_open(req, fi) != 0)
		close(fd);
}

void fsv_pass_create(fuse_req_t req, struct fsv_node *parent,
		     const char *name, mode_t mode, struct fuse_file_info *fi)
{
	struct fsv *fs = fsv_of(req);
	struct fuse_entry_param e;
	int fd, rc = check_writable(fs, parent);

	if (rc) {
		fuse_reply_err(req, rc);
		return;
	}
	struct stat before;
	bool creating = fstatat(parent->fd, name, &before,
				AT_SYMLINK_NOFOLLOW) != 0 && errno == ENOENT;
	if (creating)
		fsv_watch_expect(fs, parent, name, IN_CREATE);
	fd = openat(parent->fd, name,
		    ((fi->flags | O_CREAT) & ~O_NOFOLLOW) | O_CLOEXEC, mode);
	if (fd < 0) {
		rc = errno;
		if (creating)
			fsv_watch_unexpect(fs, parent, name, IN_CREATE);
		fuse_reply_err(req, rc);
		return;
	}
	own_by_caller(req, parent->fd, name);
	rc = entry_at(fs, parent, name, parent->root, &e);
	if (rc) {
		close(fd);
		fuse_reply_err(req, rc);
		return;
	}
	fi->fh = (uint64_t)fd;
	struct fsv_node *n = fsv_node_get(fs, e.ino);
	if (n && (fi->flags & O_TRUNC))
		fsv_watch_wrote(fs, n, fd, NULL);
	if (n)
		set_cache(fs, n, fi);
	if (fuse_reply_create(req, &e, fi) != 0) {
		close(fd);
		fsv_node_forget(fs, e.ino, 1);
	}
}

void fsv_pass_read(fuse_req_t req, size_t size, off_t off,
		   struct fuse_file_info *fi)
{
	struct fuse_bufvec buf = FUSE_BUFVEC_INIT(size);

	buf.buf[0].flags = FUSE_BUF_IS_FD | FUSE_BUF_FD_SEEK;
	buf.buf[0].fd = (int)fi->fh;
	buf.buf[0].pos = off;
	fuse_reply_data(req, &buf, FUSE_BUF_SPLICE_MOVE);
}

void fsv_pass_write_buf(fuse_req_t req, struct fsv_node *n,
			struct fuse_bufvec *in, off_t off,
			struct fuse_file_info *fi)
{
	struct fuse_bufvec out = FUSE_BUFVEC_INIT(fuse_buf_size(in));
	ssize_t r;
	/* A descriptor opened before the attempt became final writes no
	 * more after it. */
	int rc = check_writable(fsv_of(req), n);

	if (rc) {
		fuse_reply_err(req, rc);
		return;
	}
	out.buf[0].flags = FUSE_BUF_IS_FD | FUSE_BUF_FD_SEEK;
	out.buf[0].fd = (int)fi->fh;
	out.buf[0].pos = off;
	r = fuse_buf_copy(&out, in, 0);
	if (r < 0) {
		fuse_reply_err(req, (int)-r);
		return;
	}
	fsv_watch_wrote(fsv_of(req), n, (int)fi->fh, NULL);
	fuse_reply_write(req, (size_t)r);
}

void fsv_pass_flush(fuse_req_t req, struct fuse_file_info *fi)
{
	int fd = dup((int)fi->fh);

	fuse_reply_err(req, fd < 0 ? errno : close(fd) ? errno : 0);
}

void fsv_pass_release(fuse_req_t req, struct fuse_file_info *fi)
{
	close((int)fi->fh);
	fuse_reply_err(req, 0);
}

void fsv_pass_fsync(fuse_req_t req, int datasync, struct fuse_file_info *fi)
{
	int fd = (int)fi->fh;
	int rc = datasync ? fdatasync(fd) : fsync(fd);

	fuse_reply_err(req, rc ? errno : 0);
}

void fsv_pass_fallocate(fuse_req_t req, struct fsv_node *n, int mode,
			off_t off, off_t len, struct fuse_file_info *fi)
{
	int rc = check_writable(fsv_of(req), n);

	if (!rc && fallocate((int)fi->fh, mode, off, len) != 0)
		rc = errno;
	if (!rc)
		fsv_watch_wrote(fsv_of(req), n, (int)fi->fh, NULL);
	fuse_reply_err(req, rc);
}

void fsv_pass_lseek(fuse_req_t req, off_t off, int whence,
		    struct fuse_file_info *fi)
{
	off_t r = lseek((int)fi->fh, off, whence);

	if (r < 0)
		fuse_reply_err(req, errno);
	else
		fuse_reply_lseek(req, r);
}

void fsv_pass_copy_file_range(fuse_req_t req, struct fsv_node *out_node,
			      off_t off_in, struct fuse_file_info *fi_in,
			      off_t off_out, struct fuse_file_info *fi_out,
			      size_t len, int flags)
{
	ssize_t r;
	int rc = check_writable(fsv_of(req), out_node);

	if (rc) {
		fuse_reply_err(req, rc);
		return;
	}
	r = copy_file_range((int)fi_in->fh, &off_in, (int)fi_out->fh, &off_out,
			    len, (unsigned)flags);
	if (r < 0) {
		fuse_reply_err(req, errno);
		return;
	}
	fsv_watch_wrote(fsv_of(req), out_node, (int)fi_out->fh, NULL);
	fuse_reply_write(req, (size_t)r);
}

/* ---- directories ----------------------------------------------------- */

static bool is_dot(const char *name)
{
	return name[0] == '.' &&
	       (name[1] == '\0' || (name[1] == '.' && name[2] == '\0'));
}

/* Adds the entry d->entry to the reply buffer; returns its size (larger
 * than rem when it did not fit), or 0 with *err set. */
static size_t add_entry(fuse_req_t req, struct fsv_node *n,
			struct pass_dir *d, char *p, size_t rem, bool plus,
			int *err)
{
	const char *name = d->entry->d_name;
	off_t next = d->entry->d_off;

	if (!plus) {
		struct stat st = { .st_ino = d->entry->d_ino,
				   .st_mode = (mode_t)d->entry->d_type << 12 };
		return fuse_add_direntry(req, p, rem, name, &st, next);
	}
	struct fuse_entry_param e;
	if (is_dot(name)) {
		memset(&e, 0, sizeof(e));
		e.attr.st_ino = d->entry->d_ino;
		e.attr.st_mode = (mode_t)d->entry->d_type << 12;
	} else {
		*err = entry_at(fsv_of(req), n, name, n->root, &e);
		if (*err)
			return 0;
	}
	size_t sz = fuse_add_direntry_plus(req, p, rem, name, &e, next);
	if (sz > rem && e.ino)
		fsv_node_forget(fsv_of(req), e.ino, 1);
	return sz;
}

void fsv_pass_readdir(fuse_req_t req, struct fsv_node *n, size_t size,
		      off_t off, bool plus)
{
	struct pass_dir dir = { 0 }, *d = &dir;
	char *buf, *p;
	size_t rem = size;
	int err = 0;
	int fd = openat(n->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0 || !(d->dp = fdopendir(fd))) {
		err = errno;
		if (fd >= 0)
			close(fd);
		fuse_reply_err(req, err);
		return;
	}
	/* off is a d_off cookie this directory handed out before (0 at the
	 * start); the file system resumes from it on a fresh descriptor. */
	if (off)
		seekdir(d->dp, off);
	buf = p = xcalloc(1, size);
	for (;;) {
		errno = 0;
		d->entry = readdir(d->dp);
		if (!d->entry) {
			err = errno;
			break;
		}
		if (hidden(n, d->entry->d_name))
			continue;
		size_t sz = add_entry(req, n, d, p, rem, plus, &err);
		if (err || sz > rem)
			break;
		p += sz;
		rem -= sz;
	}
	/* An error after entries were added cannot be reported without
	 * losing their lookup references: return what was collected. */
	if (err && rem == size)
		fuse_reply_err(req, err);
	else
		fuse_reply_buf(req, buf, size - rem);
	free(buf);
	closedir(d->dp);
}

void fsv_pass_fsyncdir(fuse_req_t req, struct fsv_node *n, int datasync)
{
	int fd = openat(n->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int rc = fd < 0 ? -1 : datasync ? fdatasync(fd) : fsync(fd);

	fuse_reply_err(req, rc ? errno : 0);
	if (fd >= 0)
		close(fd);
}
