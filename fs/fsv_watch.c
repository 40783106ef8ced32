/*
 * fsv_watch.c - changes made behind the mount, seen through it at once.
 *
 * The kernel keeps pass-through entries and attributes for a long time
 * (FSV_DEFAULT_WS_TIMEOUT): that is what makes a cold `git status` in a
 * workspace cost about what it costs natively.  In exchange, every change
 * to a real directory that the kernel has cached must be reported to it.
 * Changes made through the mount need nothing (the kernel made them), but
 * the store's directories are also changed by others: the engine (it
 * creates and repairs workspaces), agents of runs started with the CLI
 * (they are given the real path), people working in the store directly.
 *
 * So every pass-through directory node holds an inotify watch on its real
 * directory, and one thread turns the events into kernel invalidations:
 *
 *   a name created, removed or renamed in directory D
 *       fuse_lowlevel_notify_inval_entry(D, name): the kernel forgets that
 *       name (a positive or a negative entry) and looks it up again;
 *       fuse_lowlevel_notify_inval_inode(D, 0, 0): D's attributes and its
 *       cached listing are dropped;
 *   a file closed after writing, or its attributes changed (IN_ATTRIB)
 *       fuse_lowlevel_notify_inval_inode(F, -1, 0): F's attributes are
 *       dropped; the next read fetches them, and the kernel drops F's
 *       cached pages when it sees a new mtime or size (auto_inval_data).
 *
 * The mount's own changes produce the same events, and the kernel already
 * knows of them: invalidating would only cost lookups and getattrs (a
 * `git clone` into a workspace doubled its requests).  So:
 *   - each name operation the daemon performs announces the event it will
 *     cause (fsv_watch_expect: a name created, removed or renamed in a
 *     directory), and that event is consumed without invalidating.  An
 *     announcement lives FSV_EXPECT_S at most: were its event never to
 *     come, it could only hide a change behind the mount to the same name
 *     in that window;
 *   - for a close after writing or a change of attributes, the file's
 *     change time and size are compared with what the daemon last sent
 *     the kernel (fsv_watch_told): equal, the kernel knows them already.
 *     (A state, not a count: inotify merges identical events.)
 * Writes are reported on close (IN_CLOSE_WRITE), not each write(2): a
 * process that keeps a file open and writes behind the mount is seen when
 * it closes it, or after the timeout.  Writes through a shared mmap made
 * behind the mount are not reported by inotify at all (see
 * docs/fs-semantics.md).
 *
 * When a watch cannot be placed (inotify missing, the per-user watch limit
 * reached), the directory's entries and attributes get
 * FSV_UNWATCHED_TIMEOUT instead (n->covered is false).  When the event
 * queue overflows, every cached attribute and listing is dropped; names
 * created or removed behind the mount during the overflow are seen after
 * their entry timeout, which the daemon then lowers for good to
 * FSV_UNWATCHED_TIMEOUT (the overflow is logged).
 *
 * Locking: watches are added and removed with fs->nodes_lock held (node
 * creation and destruction); the event thread takes nodes_lock to map a
 * watch descriptor to a node, copies the inode numbers it needs, and sends
 * the notifications unlocked.
 */
#include "fsv.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#define WATCH_MASK                                                          \
	(IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO |              \
	 IN_CLOSE_WRITE | IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF |       \
	 IN_ONLYDIR | IN_EXCL_UNLINK)
#define NAME_CHANGE (IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO)
#define EVENT_BUF 65536
/* At most this many announced name events per directory (more are simply
 * not announced: their events invalidate, which is always safe). */
#define EXPECT_MAX 64
#define FSV_EXPECT_S 2.0

struct fsv_expect {
	char *name;
	uint32_t mask;
	double until;
};

static void expect_drop(struct fsv_node *d, size_t i)
{
	free(d->expect[i].name);
	d->expect[i] = d->expect[--d->nexpect];
}

void fsv_watch_expect(struct fsv *fs, struct fsv_node *dir, const char *name,
		      uint32_t mask)
{
	double now = now_wall();

	pthread_mutex_lock(&fs->nodes_lock);
	if (dir->wd >= 0) {
		for (size_t i = 0; i < dir->nexpect;)
			if (dir->expect[i].until < now)
				expect_drop(dir, i);
			else
				i++;
		if (dir->nexpect < EXPECT_MAX) {
			if (!dir->expect)
				dir->expect = xcalloc(EXPECT_MAX,
						      sizeof(*dir->expect));
			dir->expect[dir->nexpect++] = (struct fsv_expect){
				xstrdup(name), mask, now + FSV_EXPECT_S };
		}
	}
	pthread_mutex_unlock(&fs->nodes_lock);
}

void fsv_watch_unexpect(struct fsv *fs, struct fsv_node *dir,
			const char *name, uint32_t mask)
{
	pthread_mutex_lock(&fs->nodes_lock);
	for (size_t i = 0; i < dir->nexpect; i++)
		if (dir->expect[i].mask == mask &&
		    !strcmp(dir->expect[i].name, name)) {
			expect_drop(dir, i);
			break;
		}
	pthread_mutex_unlock(&fs->nodes_lock);
}

/* Consumes the announcement of ev in d, if any (nodes_lock held). */
static bool expected(struct fsv_node *d, const struct inotify_event *ev)
{
	double now = now_wall();

	for (size_t i = 0; i < d->nexpect; i++) {
		struct fsv_expect *x = &d->expect[i];
		if (x->until < now || !(x->mask & ev->mask) ||
		    strcmp(x->name, ev->name))
			continue;
		/* One announcement may stand for two events (a rename in
		 * one directory: IN_MOVED_FROM and IN_MOVED_TO). */
		x->mask &= ~(ev->mask & NAME_CHANGE);
		if (!(x->mask & NAME_CHANGE))
			expect_drop(d, i);
		return true;
	}
	return false;
}

void fsv_watch_told(struct fsv *fs, struct fsv_node *n, const struct stat *st)
{
	pthread_mutex_lock(&fs->nodes_lock);
	n->told_ctime = st->st_ctim;
	n->told_size = st->st_size;
	pthread_mutex_unlock(&fs->nodes_lock);
}

void fsv_watch_node_release(struct fsv_node *n)
{
	while (n->nexpect)
		expect_drop(n, 0);
	free(n->expect);
	n->expect = NULL;
}

double fsv_pass_timeout(const struct fsv *fs, bool covered)
{
	double t = fs->ws_timeout;

	if ((!covered || __atomic_load_n(&fs->watch_lost, __ATOMIC_RELAXED)) &&
	    t > FSV_UNWATCHED_TIMEOUT)
		t = FSV_UNWATCHED_TIMEOUT;
	return t;
}

static size_t wd_bucket(int wd)
{
	return (size_t)mix64((uint64_t)wd) & (FSV_WD_BUCKETS - 1);
}

static struct fsv_node *find_wd(struct fsv *fs, int wd)
{
	struct fsv_node *n = fs->by_wd ? fs->by_wd[wd_bucket(wd)] : NULL;

	while (n && n->wd != wd)
		n = n->next_wd;
	return n;
}

void fsv_watch_add(struct fsv *fs, struct fsv_node *n)
{
	char proc[64];
	int wd;

	n->wd = -1;
	n->covered = false;
	if (fs->inotify_fd < 0 || fs->ws_timeout <= 0)
		return;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", n->fd);
	wd = inotify_add_watch(fs->inotify_fd, proc, WATCH_MASK);
	if (wd < 0) {
		static bool said;
		if (!said)
			fsv_log("inotify_add_watch: %s; directories without a "
				"watch keep entries %.0f s at most",
				strerror(errno), FSV_UNWATCHED_TIMEOUT);
		said = true;
		return;
	}
	/* The same real directory through a second node: inotify gives the
	 * same descriptor; only the first node owns it. */
	if (find_wd(fs, wd))
		return;
	n->wd = wd;
	n->covered = true;
	size_t b = wd_bucket(wd);
	n->next_wd = fs->by_wd[b];
	fs->by_wd[b] = n;
}

void fsv_watch_remove(struct fsv *fs, struct fsv_node *n)
{
	struct fsv_node **pp;

	if (n->wd < 0)
		return;
	pp = &fs->by_wd[wd_bucket(n->wd)];
	while (*pp && *pp != n)
		pp = &(*pp)->next_wd;
	if (*pp)
		*pp = n->next_wd;
	inotify_rm_watch(fs->inotify_fd, n->wd);
	n->wd = -1;
}

/* ---- the event thread -------------------------------------------------- */

/* One invalidation to send once nodes_lock is released. */
struct inval {
	fuse_ino_t ino;
	char *name;		/* entry invalidation when set */
	bool attrs_only;
};

struct inval_list {
	struct inval *v;
	size_t n, cap;
};

static void inval_push(struct inval_list *l, fuse_ino_t ino, const char *name,
		       bool attrs_only)
{
	/* Bursts (many files changed in one directory) repeat the directory
	 * invalidation: skip an exact repeat of the last one. */
	if (l->n && !name && !l->v[l->n - 1].name &&
	    l->v[l->n - 1].ino == ino &&
	    l->v[l->n - 1].attrs_only == attrs_only)
		return;
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 64;
		l->v = xrealloc(l->v, l->cap * sizeof(*l->v));
	}
	l->v[l->n].ino = ino;
	l->v[l->n].name = name ? xstrdup(name) : NULL;
	l->v[l->n].attrs_only = attrs_only;
	l->n++;
}

/* The node of name in directory node d, if the kernel holds one
 * (nodes_lock held). */
static struct fsv_node *child_node(struct fsv *fs, struct fsv_node *d,
				   const char *name, struct stat *st)
{
	if (fstatat(d->fd, name, st, AT_SYMLINK_NOFOLLOW) != 0)
		return NULL;
	return fsv_node_find_pass(fs, st->st_dev, st->st_ino, d->root);
}

/* Every pass-through node, attributes and (directories) listings. */
static void collect_all(struct fsv_node *n, void *arg)
{
	inval_push(arg, n->ino, NULL, false);
}

static void on_event(struct fsv *fs, const struct inotify_event *ev,
		     struct inval_list *l)
{
	struct fsv_node *d;

	if (ev->mask & IN_Q_OVERFLOW) {
		fs->watch_overflows++;
		fsv_nodes_each_pass(fs, collect_all, l);
		return;
	}
	d = find_wd(fs, ev->wd);
	if (!d)
		return;
	if (ev->mask & IN_IGNORED) {
		/* The directory is gone (or the watch was removed): its node
		 * can no longer learn of changes. */
		size_t b = wd_bucket(d->wd);
		struct fsv_node **pp = &fs->by_wd[b];
		while (*pp && *pp != d)
			pp = &(*pp)->next_wd;
		if (*pp)
			*pp = d->next_wd;
		d->wd = -1;
		d->covered = false;
		return;
	}
	if (ev->len == 0 || !ev->name[0]) {
		inval_push(l, d->ino, NULL, false);	/* the directory itself */
		return;
	}
	if (ev->mask & NAME_CHANGE) {
		if (expected(d, ev))
			return;		/* the mount made it */
		inval_push(l, d->ino, ev->name, false);
		inval_push(l, d->ino, NULL, false);
	}
	if (ev->mask & (IN_CLOSE_WRITE | IN_ATTRIB)) {
		struct stat st;
		struct fsv_node *c = child_node(fs, d, ev->name, &st);
		if (!c)
			return;
		if (st.st_size == c->told_size &&
		    st.st_ctim.tv_sec == c->told_ctime.tv_sec &&
		    st.st_ctim.tv_nsec == c->told_ctime.tv_nsec)
			return;		/* the kernel has these attributes */
		inval_push(l, c->ino, NULL, true);
	}
}

static void send_all(struct fsv *fs, struct inval_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		struct inval *v = &l->v[i];
		if (v->name) {
			fuse_lowlevel_notify_inval_entry(fs->se, v->ino, v->name,
							 strlen(v->name));
			free(v->name);
		} else {
			fuse_lowlevel_notify_inval_inode(fs->se, v->ino,
							 v->attrs_only ? -1 : 0,
							 0);
		}
	}
	fs->watch_invals += l->n;
	l->n = 0;
}

static void *watch_main(void *arg)
{
	struct fsv *fs = arg;
	struct inval_list l = { 0 };
	char *buf = xmalloc(EVENT_BUF);
	uint64_t overflows = 0;

	for (;;) {
		struct pollfd p[2] = {
			{ .fd = fs->inotify_fd, .events = POLLIN },
			{ .fd = fs->watch_stop[0], .events = POLLIN },
		};
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[1].revents)
			break;
		ssize_t got = read(fs->inotify_fd, buf, EVENT_BUF);
		if (got < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			fsv_log("inotify read: %s", strerror(errno));
			break;
		}
		pthread_mutex_lock(&fs->nodes_lock);
		for (ssize_t off = 0; off < got;) {
			const struct inotify_event *ev =
				(const struct inotify_event *)(buf + off);
			fs->watch_events++;
			on_event(fs, ev, &l);
			off += (ssize_t)(sizeof(*ev) + ev->len);
		}
		bool overflowed = fs->watch_overflows != overflows;
		overflows = fs->watch_overflows;
		pthread_mutex_unlock(&fs->nodes_lock);
		if (overflowed) {
			/* Names changed behind the mount during the overflow
			 * are lost: stop trusting long entry timeouts. */
			__atomic_store_n(&fs->watch_lost, true, __ATOMIC_RELAXED);
			fsv_log("inotify queue overflowed: cached attributes "
				"and listings dropped; pass-through timeouts "
				"lowered to %.0f s from now on",
				FSV_UNWATCHED_TIMEOUT);
		}
		send_all(fs, &l);
	}
	free(l.v);
	free(buf);
	return NULL;
}

void fsv_watch_start(struct fsv *fs)
{
	fs->by_wd = xcalloc(FSV_WD_BUCKETS, sizeof(*fs->by_wd));
	fs->inotify_fd = -1;
	if (fs->ws_timeout <= 0)
		return;		/* nothing is cached: nothing to invalidate */
	if (pipe2(fs->watch_stop, O_CLOEXEC) != 0) {
		fsv_log("cannot create a pipe: %s", strerror(errno));
		return;
	}
	fs->inotify_fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
	if (fs->inotify_fd < 0) {
		fsv_log("inotify: %s; pass-through timeouts limited to %.0f s",
			strerror(errno), FSV_UNWATCHED_TIMEOUT);
		close(fs->watch_stop[0]);
		close(fs->watch_stop[1]);
		return;
	}
	fs->watch_started = pthread_create(&fs->watch_thread, NULL, watch_main,
					   fs) == 0;
}

void fsv_watch_stop(struct fsv *fs)
{
	if (fs->watch_started) {
		if (write(fs->watch_stop[1], "x", 1) < 0)
			fsv_log("cannot stop the inotify thread: %s",
				strerror(errno));
		pthread_join(fs->watch_thread, NULL);
		fs->watch_started = false;
		if (fs->debug)
			fsv_log("inotify: %llu events, %llu invalidations, %llu "
				"overflows", (unsigned long long)fs->watch_events,
				(unsigned long long)fs->watch_invals,
				(unsigned long long)fs->watch_overflows);
	}
	if (fs->inotify_fd >= 0) {
		close(fs->inotify_fd);
		close(fs->watch_stop[0]);
		close(fs->watch_stop[1]);
		fs->inotify_fd = -1;
	}
}
