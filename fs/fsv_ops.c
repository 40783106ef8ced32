/*
 * fsv_ops.c - the operation table of `arena mount` (fsv_ops) and what it
 * needs: the daemon's context, per-thread engine handles, the log.
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
		fsv_pass_write_buf(req, n, in, off, fi);
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

/* Directories are read without OPENDIR: ENOSYS makes the kernel stop
 * sending OPENDIR and RELEASEDIR for good (FUSE_NO_OPENDIR_SUPPORT) and
 * keep every listing in its cache (FOPEN_CACHE_DIR), re-read from READDIR
 * at offset 0 when the directory's mtime or change counter moved.  For a
 * cold `git status` that is two requests fewer per directory.  Each
 * READDIR therefore reads its directory afresh (fsv_pass_readdir, and
 * synth_readdir below), and synthetic directories whose listing changes
 * report a new mtime at every getattr (fsv_tree_stat). */
static void op_opendir(fuse_req_t req, fuse_ino_t ino,
		       struct fuse_file_info *fi)
{
	(void)ino;
	(void)fi;
	fuse_reply_err(req, ENOSYS);
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
			  off_t off, bool plus)
{
	struct fsv_listing listing, *l = &listing;
	char *buf, *p;
	size_t rem = size;
	int rc = fsv_tree_list(fsv_of(req), dir, l);

	if (rc) {
		fuse_reply_err(req, rc);
		return;
	}
	buf = p = xcalloc(1, size);
	/* Offsets are indices into the listing, which only ever grows at
	 * its end (runs are listed oldest first). */
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
	fsv_listing_release(l);
}

static void readdir_common(fuse_req_t req, fuse_ino_t ino, size_t size,
			   off_t off, struct fuse_file_info *fi, bool plus)
{
	struct fsv_node *n = node_or_reply(req, ino);

	if (!n)
		return;
	(void)fi;
	if (is_pass(n))
		fsv_pass_readdir(req, n, size, off, plus);
	else
		synth_readdir(req, n, size, off, plus);
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

static void op_fsyncdir(fuse_req_t req, fuse_ino_t ino, int datasync,
			struct fuse_file_info *fi)
{
	struct fsv_node *n = node_or_reply(req, ino);

	if (!n)
		return;
	(void)fi;
	if (is_pass(n))
		fsv_pass_fsyncdir(req, n, datasync);
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

const struct fuse_lowlevel_ops fsv_ops = {
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
	.fsyncdir = op_fsyncdir,
	.statfs = op_statfs,
	.fallocate = op_fallocate,
	.poll = op_poll,
	.lseek = op_lseek,
	.copy_file_range = op_copy_file_range,
};
