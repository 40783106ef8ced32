/*
 * fsv_main.c - `arena mount`: the daemon's life cycle and the operation
 * table.
 *
 * Start: open the store once to fail early with a message, clean up a
 * stale mount left by a daemon that died (stat gives ENOTCONN: detach it),
 * refuse a mount point that already carries an arena mount, mount with
 * default_permissions (the kernel checks modes; the daemon runs as root)
 * and allow_other when root, daemonize unless --foreground, and serve with
 * fuse_session_loop_mt().  Stop (SIGINT/SIGTERM/SIGHUP through
 * fuse_set_signal_handlers(), or an unmount): kill evaluation workers and
 * answer their waiting readers, stop the poll notifier, unmount, free.
 * Detached run executors are left running on purpose.
 *
 * Dispatch: every request names an inode; pass-through nodes (workspaces,
 * task packages) go to fsv_pass.c, synthetic nodes to fsv_tree.c and
 * fsv_files.c.  Requests naming an inode the table does not know (which
 * the kernel never sends) get ESTALE.  The engine is used through one
 * handle per thread (fsv_engine()), so threads never share a sqlite
 * connection and a busy store blocks only the thread that waits on it.
 */
#include "fsv.h"
#include "arena/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- context, engines, log ------------------------------------------- */

struct fsv *fsv_of(fuse_req_t req)
{
	return fuse_req_userdata(req);
}

static void engine_destroy(void *p)
{
	engine_close(p);
}

struct engine *fsv_engine(struct fsv *fs, int *errp)
{
	struct engine *e = pthread_getspecific(fs->engine_key);
	struct errbuf err;
	int rc;

	if (e)
		return e;
	errbuf_init(&err);
	rc = engine_open(fs->store_dir, fs->tasks_dir, &e, &err);
	if (rc) {
		fsv_log("cannot open the store: %s", errbuf_str(&err));
		*errp = rc < 0 ? -rc : EIO;
		return NULL;
	}
	pthread_setspecific(fs->engine_key, e);
	return e;
}

void fsv_log(const char *fmt, ...)
{
	char ts[32];
	va_list ap;

	time_stamp_iso(ts, now_wall());
	va_start(ap, fmt);
	flockfile(stderr);
	fprintf(stderr, "%s arena mount: ", ts);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	funlockfile(stderr);
	va_end(ap);
}

/* ---- dispatch helpers ------------------------------------------------ */

static struct fsv_node *node_or_reply(fuse_req_t req, fuse_ino_t ino)
{
	struct fsv_node *n = fsv_node_get(fsv_of(req), ino);

	if (!n)
		fuse_reply_err(req, ESTALE);
	return n;
}

static bool is_pass(const struct fsv_node *n)
{
	return n->kind == FSV_PASS;
}

/* ---- operations ------------------------------------------------------ */

static void op_init(void *userdata, struct fuse_conn_info *conn)
{
	struct fsv *fs = userdata;

	if (conn->capable & FUSE_CAP_ATOMIC_O_TRUNC)
		conn->want |= FUSE_CAP_ATOMIC_O_TRUNC;
	/* Writes must reach the real file before write() returns: a `cat
	 * score` right after a save evaluates what was saved. */
	conn->want &= ~FUSE_CAP_WRITEBACK_CACHE;
	if (fs->debug)
		fsv_log("protocol %u.%u, capable 0x%x, want 0x%x",
			conn->proto_major, conn->proto_minor, conn->capable,
			conn->want);
}

static void op_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct fsv_node *p = node_or_reply(req, parent);
	struct fuse_entry_param e;
	int rc;

	if (!p)
		return;
	if (is_pass(p)) {
		fsv_pass_lookup(req, p, name);
		return;
	}
	rc = fsv_tree_lookup(fsv_of(req), p, name, &e);
	if (rc) {
		fuse_reply_err(req, rc);
		return;
	}
	if (fuse_reply_entry(req, &e) != 0)
		fsv_node_forget(fsv_of(req), e.ino, 1);
}

static void op_forget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup)
{
	fsv_node_forget(fsv_of(req), ino, nlookup);
	fuse_reply_none(req);
}

static void op_forget_multi(fuse_req_t req, size_t count,
			    struct fuse_forget_data *forgets)
{
	for (size_t i = 0; i < count; i++)
		fsv_node_forget(fsv_of(req), forgets[i].ino,
				forgets[i].nlookup);
	fuse_reply_none(req);
}

static void op_getattr(fuse_req_t req, fuse_ino_t ino,
		       struct fuse_file_info *fi)
{
	struct fsv_node *n = node_or_reply(req, ino);
	struct stat st;
	double timeout;
	int rc;

	(void)fi;
	if (!n)
		return;
	if (is_pass(n)) {
		fsv_pass_getattr(req, n);
		return;
	}
	rc = fsv_tree_stat(fsv_of(req), n, &st, &timeout);
	if (rc)
		fuse_reply_err(req, rc);
	else
		fuse_reply_attr(req, &st, timeout);
}

static void op_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr,
		       int valid, struct fuse_file_info *fi)
{
	struct fsv_node *n = node_or_reply(req, ino);

	if (!n)
		return;
	if (is_pass(n)) {
		fsv_pass_setattr(req, n, attr, valid, fi);
		return;
	}
	/* Truncating or touching runs/new and control is what shells and
	 * editors do before writing: accepted and ignored.  Anything else on
	 * a synthetic file changes nothing the store holds. */
	if (!fsv_kind_writable(n->kind)) {
		fuse_reply_err(req, EROFS);
	} else if (valid & (FUSE_SET_ATTR_MODE | FUSE_SET_ATTR_UID |
			    FUSE_SET_ATTR_GID)) {
		fuse_reply_err(req, EPERM);
	} else {
		op_getattr(req, ino, NULL);
	}
}

static void op_readlink(fuse_req_t req, fuse_ino_t ino)
{
	struct fsv_node *n = node_or_reply(req, ino);
	char *target = NULL;
	int rc;

	if (!n)
		return;
	if (is_pass(n)) {
		fsv_pass_readlink(req, n);
		return;
	}
	rc = fsv_tree_readlink(fsv_of(req), n, &target);
	if (rc)
		fuse_reply_err(req, rc);
	else
		fuse_reply_readlink(req, target);
	free(target);
}

static void op_mknod(fuse_req_t req, fuse_ino_t parent, const char *name,
		     mode_t mode, dev_t rdev)
{
	struct fsv_node *p = node_or_reply(req, parent);

	if (p && is_pass(p))
		fsv_pass_mknod(req, p, name, mode, rdev, NULL);
	else if (p)
		fuse_reply_err(req, EROFS);
}

static void op_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name,
		     mode_t mode)
{
	op_mknod(req, parent, name, S_IFDIR | (mode & 07777), 0);
}

static void op_symlink(fuse_req_t req, const char *link, fuse_ino_t parent,
		       const char *name)
{
	struct fsv_node *p = node_or_reply(req, parent);

	if (p && is_pass(p))
		fsv_pass_mknod(req, p, name, S_IFLNK, 0, link);
	else if (p)
		fuse_reply_err(req, EROFS);
}

static void op_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent,
		    const char *name)
{
	struct fsv_node *n = node_or_reply(req, ino), *p;

	if (!n)
		return;
	p = node_or_reply(req, newparent);
	if (p)
		fsv_pass_link(req, n, p, name);
}

static void remove_entry(fuse_req_t req, fuse_ino_t parent, const char *name,
			 int flags)
{
	struct fsv_node *p = node_or_reply(req, parent);

	if (p && is_pass(p))
		fsv_pass_unlink(req, p, name, flags);
	else if (p)
		fuse_reply_err(req, EROFS);
}

static void op_unlink(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	remove_entry(req, parent, name, 0);
}

static void op_rmdir(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	remove_entry(req, parent, name, AT_REMOVEDIR);
}

static void op_rename(fuse_req_t req, fuse_ino_t parent, const char *name,
		      fuse_ino_t newparent, const char *newname,
		      unsigned int flags)
{
	struct fsv_node *p = node_or_reply(req, parent), *np;

	if (!p)
		return;
	np = node_or_reply(req, newparent);
	if (!np)
		return;
	if (!is_pass(p) && !is_pass(np))
		fuse_reply_err(req, EROFS);
	else
		fsv_pass_rename(req, p, name, np, newname, flags);
}

static void op_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct fsv_node *n = node_or_reply(req, ino);

	if (!n)
		return;
	if (is_pass(n))
		fsv_pass_open(req, n, fi);
	else
		fsv_file_open(req, n, fi);
}

static void op_create(fuse_req_t req, fuse_ino_t parent, const char *name,
		      mode_t mode, struct fuse_file_info *fi)
{
	struct fsv_node *p = node_or_reply(req, parent);

	if (p && is_pass(p))
		fsv_pass_create(req, p, name, mode, fi);
	else if (p)
		fuse_reply_err(req, EROFS);
}

static void op_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	struct fsv_node *n = node_or_reply(req, ino);

	if (!n)
		return;
	if (is_pass(n))
		fsv_pass_read(req, size, off, fi);
	else
		fsv_file_read(req, size, off, fi);
}

static void op_write_buf(fuse_req_t req, fuse_ino_t ino,
			 struct fuse_bufvec *in, off_t off,
			 struct fuse_file_info *fi)
{
	struct fsv_node *n = node_or_reply(req, ino);
	size_t size;

	if (!n)
		return;
	if (is_pass(n)) {
		fsv_pass_write_buf(req, in, off, fi);
		return;
	}
	/* Synthetic files take small writes: gather them into memory. */
	size = fuse_buf_size(in);
	char *mem = xmalloc(size + 1);
	struct fuse_bufvec dst = FUSE_BUFVEC_INIT(size);
	dst.buf[0].mem = mem;
	ssize_t got = fuse_buf_copy(&dst, in, 0);
	if (got < 0)
		fuse_reply_err(req, (int)-got);
	else
		fsv_file_write(req, n, mem, (size_t)got, off, fi);
	free(mem);
}

static void op_flush(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct fsv_node *n = node_or_reply(req, ino);

	if (!n)
		return;
	if (is_pass(n))
		fsv_pass_flush(req, fi);
	else
		fsv_file_flush(req, fi);
}

static void op_release(fuse_req_t req, fuse_ino_t ino,
		       struct fuse_file_info *fi)
{
	struct fsv_node *n = node_or_reply(req, ino);

	if (!n)
		return;
	if (is_pass(n))
		fsv_pass_release(req, fi);
	else
		fsv_file_release(req, fi);
}

static void op_fsync(fuse_req_t req, fuse_ino_t ino, int datasync,
		     struct fuse_file_info *fi)
{
	struct fsv_node *n = node_or_reply(req, ino);

	if (!n)
		return;
	if (is_pass(n))
		fsv_pass_fsync(req, datasync, fi);
	else
		fuse_reply_err(req, 0);
}

static void op_opendir(fuse_req_t req, fuse_ino_t ino,
		       struct fuse_file_info *fi)
{
	struct fsv_node *n = node_or_reply(req, ino);
	struct fsv_listing *l;
	int rc;

	if (!n)
		return;
	if (is_pass(n)) {
		fsv_pass_opendir(req, n, fi);
		return;
	}
	l = xcalloc(1, sizeof(*l));
	rc = fsv_tree_list(fsv_of(req), n, l);
	if (rc) {
		free(l);
		fuse_reply_err(req, rc);
		return;
	}
	fi->fh = (uint64_t)(uintptr_t)l;
	if (fuse_reply_open(req, fi) != 0) {
		fsv_listing_release(l);
		free(l);
	}
}

/* One synthetic entry for READDIRPLUS: a real lookup (it takes a lookup
 * reference), except for "." and "..". */
static size_t add_synth_plus(fuse_req_t req, struct fsv_node *dir,
			     const struct fsv_dirent *d, char *p, size_t rem,
			     off_t next)
{
	struct fuse_entry_param e;

	memset(&e, 0, sizeof(e));
	if (strcmp(d->name, ".") && strcmp(d->name, "..")) {
		if (fsv_tree_lookup(fsv_of(req), dir, d->name, &e) != 0)
			return 0;	/* vanished meanwhile: skip it */
	} else {
		e.attr.st_ino = d->ino;
		e.attr.st_mode = S_IFDIR;
	}
	size_t sz = fuse_add_direntry_plus(req, p, rem, d->name, &e, next);
	if (sz > rem && e.ino)
		fsv_node_forget(fsv_of(req), e.ino, 1);
	return sz;
}

static void synth_readdir(fuse_req_t req, struct fsv_node *dir, size_t size,
			  off_t off, struct fuse_file_info *fi, bool plus)
{
	struct fsv_listing *l = (struct fsv_listing *)(uintptr_t)fi->fh;
	char *buf = xcalloc(1, size), *p = buf;
	size_t rem = size;

	for (size_t i = off < 0 ? 0 : (size_t)off; i < l->n; i++) {
		const struct fsv_dirent *d = &l->v[i];
		size_t sz;
		if (plus) {
			sz = add_synth_plus(req, dir, d, p, rem,
					    (off_t)(i + 1));
			if (sz == 0)
				continue;
		} else {
			struct stat st = { .st_ino = d->ino,
					   .st_mode = (mode_t)d->type << 12 };
			sz = fuse_add_direntry(req, p, rem, d->name, &st,
					       (off_t)(i + 1));
		}
		if (sz > rem)
			break;
		p += sz;
		rem -= sz;
	}
	fuse_reply_buf(req, buf, size - rem);
	free(buf);
}

static void readdir_common(fuse_req_t req, fuse_ino_t ino, size_t size,
			   off_t off, struct fuse_file_info *fi, bool plus)
{
	struct fsv_node *n = node_or_reply(req, ino);

	if (!n)
		return;
	if (is_pass(n))
		fsv_pass_readdir(req, n, size, off, fi, plus);
	else
		synth_readdir(req, n, size, off, fi, plus);
}

static void op_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		       struct fuse_file_info *fi)
{
	readdir_common(req, ino, size, off, fi, false);
}

static void op_readdirplus(fuse_req_t req, fuse_ino_t ino, size_t size,
			   off_t off, struct fuse_file_info *fi)
{
	readdir_common(req, ino, size, off, fi, true);
}

static void op_releasedir(fuse_req_t req, fuse_ino_t ino,
			  struct fuse_file_info *fi)
{
	struct fsv_node *n = node_or_reply(req, ino);

	if (!n)
		return;
	if (is_pass(n)) {
		fsv_pass_releasedir(req, fi);
		return;
	}
	struct fsv_listing *l = (struct fsv_listing *)(uintptr_t)fi->fh;
	fsv_listing_release(l);
	free(l);
	fuse_reply_err(req, 0);
}

static void op_fsyncdir(fuse_req_t req, fuse_ino_t ino, int datasync,
			struct fuse_file_info *fi)
{
	struct fsv_node *n = node_or_reply(req, ino);

	if (!n)
		return;
	if (is_pass(n))
		fsv_pass_fsyncdir(req, datasync, fi);
	else
		fuse_reply_err(req, 0);
}

static void op_statfs(fuse_req_t req, fuse_ino_t ino)
{
	struct fsv_node *n = node_or_reply(req, ino);

	if (n)
		fsv_pass_statfs(req, n);
}

static void op_fallocate(fuse_req_t req, fuse_ino_t ino, int mode, off_t off,
			 off_t len, struct fuse_file_info *fi)
{
	struct fsv_node *n = node_or_reply(req, ino);

	if (n && is_pass(n))
		fsv_pass_fallocate(req, n, mode, off, len, fi);
	else if (n)
		fuse_reply_err(req, EOPNOTSUPP);
}

static void op_poll(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi,
		    struct fuse_pollhandle *ph)
{
	struct fsv_node *n = node_or_reply(req, ino);

	if (!n) {
		if (ph)
			fuse_pollhandle_destroy(ph);
		return;
	}
	if (!is_pass(n)) {
		fsv_file_poll(req, fi, ph);
		return;
	}
	if (ph)
		fuse_pollhandle_destroy(ph);
	fuse_reply_poll(req, POLLIN | POLLRDNORM | POLLOUT | POLLWRNORM);
}

static void op_lseek(fuse_req_t req, fuse_ino_t ino, off_t off, int whence,
		     struct fuse_file_info *fi)
{
	struct fsv_node *n = node_or_reply(req, ino);

	if (n && is_pass(n))
		fsv_pass_lseek(req, off, whence, fi);
	else if (n)
		fuse_reply_err(req, EINVAL);
}

static void op_copy_file_range(fuse_req_t req, fuse_ino_t ino_in, off_t off_in,
			       struct fuse_file_info *fi_in,
			       fuse_ino_t ino_out, off_t off_out,
			       struct fuse_file_info *fi_out, size_t len,
			       int flags)
{
	struct fsv_node *in = node_or_reply(req, ino_in), *out;

	if (!in)
		return;
	out = node_or_reply(req, ino_out);
	if (!out)
		return;
	/* EXDEV makes the kernel fall back to a plain copy. */
	if (!is_pass(in) || !is_pass(out))
		fuse_reply_err(req, EXDEV);
	else
		fsv_pass_copy_file_range(req, out, off_in, fi_in, off_out,
					 fi_out, len, flags);
}

static const struct fuse_lowlevel_ops ops = {
	.init = op_init,
	.lookup = op_lookup,
	.forget = op_forget,
	.forget_multi = op_forget_multi,
	.getattr = op_getattr,
	.setattr = op_setattr,
	.readlink = op_readlink,
	.mknod = op_mknod,
	.mkdir = op_mkdir,
	.symlink = op_symlink,
	.link = op_link,
	.unlink = op_unlink,
	.rmdir = op_rmdir,
	.rename = op_rename,
	.open = op_open,
	.create = op_create,
	.read = op_read,
	.write_buf = op_write_buf,
	.flush = op_flush,
	.release = op_release,
	.fsync = op_fsync,
	.opendir = op_opendir,
	.readdir = op_readdir,
	.readdirplus = op_readdirplus,
	.releasedir = op_releasedir,
	.fsyncdir = op_fsyncdir,
	.statfs = op_statfs,
	.fallocate = op_fallocate,
	.poll = op_poll,
	.lseek = op_lseek,
	.copy_file_range = op_copy_file_range,
};

/* ---- start-up -------------------------------------------------------- */

/* True when /proc/self/mountinfo lists an arena mount at path. */
static bool arena_mounted_at(const char *path)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[8192];
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		/* id parent major:minor root mount-point ... - fstype */
		char mnt[4096], *dash = strstr(line, " - ");
		if (sscanf(line, "%*s %*s %*s %*s %4095s", mnt) != 1 || !dash)
			continue;
		found = strcmp(mnt, path) == 0 &&
			str_starts_with(dash + 3, "fuse.arena ");
	}
	fclose(f);
	return found;
}

/* Detaches the stale mount a dead daemon left at mnt. */
static int unmount_stale(const char *mnt, struct errbuf *err)
{
	struct proc_result pr;
	char *argv[] = { (char *)"fusermount3", (char *)"-u", (char *)"-z",
			 (char *)mnt, NULL };

	fprintf(stderr, "arena: %s: a previous daemon died; detaching its "
		"stale mount\n", mnt);
	if (umount2(mnt, MNT_DETACH) == 0)
		return 0;
	if (proc_run_capture(argv, NULL, NULL, 10000, 4096, &pr, err) == 0) {
		int ok = WIFEXITED(pr.status) && WEXITSTATUS(pr.status) == 0;
		proc_result_release(&pr);
		if (ok)
			return 0;
	}
	return errf_code(err, EBUSY, "%s: cannot detach the stale mount; run "
			 "'fusermount3 -u -z %s' and try again", mnt, mnt);
}

static int prepare_mountpoint(const char *mnt, char **abs, struct errbuf *err)
{
	struct stat st;

	if (stat(mnt, &st) != 0) {
		if (errno != ENOTCONN)
			return errf_code(err, errno, "%s: %s", mnt,
					 strerror(errno));
		int rc = unmount_stale(mnt, err);
		if (rc)
			return rc;
		if (stat(mnt, &st) != 0)
			return errf_code(err, errno, "%s: %s", mnt,
					 strerror(errno));
	}
	if (!S_ISDIR(st.st_mode))
		return errf_code(err, ENOTDIR, "%s: not a directory", mnt);
	*abs = path_real(mnt);
	if (!*abs)
		return errf_code(err, errno, "%s: %s", mnt, strerror(errno));
	if (arena_mounted_at(*abs))
		return errf_code(err, EBUSY, "%s: an arena file system is "
				 "already mounted here; unmount it first "
				 "(fusermount3 -u %s)", *abs, *abs);
	return 0;
}

/* True when path is dir or lies below it. */
static bool path_within(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (strcmp(dir, "/") == 0)
		return true;
	return strncmp(path, dir, n) == 0 &&
	       (path[n] == '/' || path[n] == '\0');
}

static int open_store(struct fsv *fs, const struct fsv_options *o,
		      struct errbuf *err)
{
	struct engine *e;
	int rc = engine_open(o->store_dir, o->tasks_dir, &e, err);

	if (rc)
		return rc;
	fs->store_dir = xstrdup(store_root(engine_store(e)));
	fs->tasks_dir = path_real(engine_tasks_root(e));
	if (!fs->tasks_dir)
		rc = errf_code(err, ENOENT, "%s: the task root does not "
			       "exist", engine_tasks_root(e));
	engine_close(e);
	if (rc)
		return rc;
	char *dir = path_join(fs->store_dir, "fs");
	rc = mkdir_p(dir, err);
	free(dir);
	return rc;
}

static void raise_fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/* After fuse_daemonize() stderr is /dev/null: send it to the mount log. */
static void log_to_store(struct fsv *fs)
{
	char *path = xasprintf("%s/fs/mount.log", fs->store_dir);
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);

	if (fd >= 0) {
		dup2(fd, 2);
		close(fd);
	}
	free(path);
}

static struct fuse_session *session_new(struct fsv *fs)
{
	char opts[256];
	char *argv[4];
	int argc = 0;

	snprintf(opts, sizeof(opts), "fsname=arena,subtype=arena,"
		 "default_permissions%s", geteuid() == 0 ? ",allow_other" : "");
	argv[argc++] = (char *)"arena";
	argv[argc++] = (char *)"-o";
	argv[argc++] = opts;
	if (fs->debug)
		argv[argc++] = (char *)"-d";
	struct fuse_args args = FUSE_ARGS_INIT(argc, argv);
	struct fuse_session *se = fuse_session_new(&args, &ops, sizeof(ops),
						   fs);
	fuse_opt_free_args(&args);
	return se;
}

static void fsv_init(struct fsv *fs, const struct fsv_options *o)
{
	memset(fs, 0, sizeof(*fs));
	fs->ws_timeout = o->ws_timeout;
	fs->debug = o->debug;
	fs->uid = geteuid();
	fs->gid = getegid();
	clock_gettime(CLOCK_REALTIME, &fs->started);
	pthread_key_create(&fs->engine_key, engine_destroy);
	pthread_mutex_init(&fs->eval_lock, NULL);
	pthread_cond_init(&fs->eval_cond, NULL);
	pthread_mutex_init(&fs->outcome_lock, NULL);
	fsv_nodes_init(fs);
}

static void fsv_release(struct fsv *fs)
{
	struct engine *e = pthread_getspecific(fs->engine_key);

	if (e) {
		engine_close(e);
		pthread_setspecific(fs->engine_key, NULL);
	}
	fsv_nodes_free(fs);
	fsv_spawn_release(fs);
	pthread_mutex_destroy(&fs->eval_lock);
	pthread_cond_destroy(&fs->eval_cond);
	pthread_mutex_destroy(&fs->outcome_lock);
	pthread_key_delete(fs->engine_key);
	free(fs->store_dir);
	free(fs->tasks_dir);
	free(fs->mountpoint);
}

static int serve(struct fsv *fs, const struct fsv_options *o)
{
	struct fuse_loop_config *cfg;
	int rc;

	fs->se = session_new(fs);
	if (!fs->se)
		return 1;
	if (fuse_set_signal_handlers(fs->se) != 0) {
		fuse_session_destroy(fs->se);
		return 1;
	}
	if (fuse_session_mount(fs->se, fs->mountpoint) != 0) {
		fuse_remove_signal_handlers(fs->se);
		fuse_session_destroy(fs->se);
		return 1;
	}
	fprintf(stderr, "arena: %s mounted at %s%s\n", fs->store_dir,
		fs->mountpoint, o->foreground ? "" : " (daemon; log in "
		"<store>/fs/mount.log)");
	fflush(stderr);
	fuse_daemonize(o->foreground);
	if (!o->foreground)
		log_to_store(fs);
	fsv_log("serving %s at %s (pid %d)", fs->store_dir, fs->mountpoint,
		(int)getpid());
	fsv_polls_start(fs);
	cfg = fuse_loop_cfg_create();
	fuse_loop_cfg_set_max_threads(cfg, (unsigned)o->threads);
	rc = fuse_session_loop_mt(fs->se, cfg);
	fuse_loop_cfg_destroy(cfg);
	/* libfuse returns the signal number after a signal, 0 after an
	 * unmount and a negative errno after an error. */
	if (rc > 0)
		fsv_log("stopping on signal %d", rc);
	else
		fsv_log("stopping (%s)", rc ? strerror(-rc) : "unmounted");
	fsv_evals_stop(fs);
	fsv_polls_stop(fs);
	fuse_session_unmount(fs->se);
	fuse_remove_signal_handlers(fs->se);
	fuse_session_destroy(fs->se);
	return rc < 0 ? 1 : 0;
}

int fsv_mount(const struct fsv_options *o)
{
	struct fsv fs;
	struct errbuf err;
	int rc;

	fsv_init(&fs, o);
	errbuf_init(&err);
	rc = open_store(&fs, o, &err);
	if (!rc)
		rc = prepare_mountpoint(o->mountpoint, &fs.mountpoint, &err);
	if (!rc && (path_within(fs.store_dir, fs.mountpoint) ||
		    path_within(fs.tasks_dir, fs.mountpoint)))
		rc = errf_code(&err, EINVAL, "the store %s or the task root "
			       "%s lies inside the mount point %s; choose "
			       "another mount point", fs.store_dir,
			       fs.tasks_dir, fs.mountpoint);
	if (rc) {
		fprintf(stderr, "arena: %s\n", errbuf_str(&err));
		fsv_release(&fs);
		return 1;
	}
	/* Modes arrive already masked by the caller's umask. */
	umask(0);
	raise_fd_limit();
	fsv_spawn_init(&fs);
	rc = serve(&fs, o);
	fsv_release(&fs);
	return rc;
}
