/*
 * memledger.c - a ledger of device memory shared by processes
 * (arena/memledger.h).
 *
 * Layout of a ledger directory:
 *   guard        8 bytes, the next entry's sequence number; every look
 *                at the ledger holds a write lock on it, so that looks
 *                and changes are one at a time
 *   e-<seq>      one entry: "<bytes, 20 digits> <0|1 granted>\n" (the
 *                flag written by whoever granted it), with a
 *                write lock (byte 0) held by its owner for as long as it
 *                lives; the sequence number, zero-padded, orders entries
 *                by their arrival
 */
#include "arena/memledger.h"
#include "arena/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define ENTRY_PREFIX "e-"
#define ENTRY_TEXT_LEN 23 /* 20 digits, a space, the flag, a newline */

static int ofd_lock(int fd, short type, int cmd)
{
	struct flock fl = {
		.l_type = type, .l_whence = SEEK_SET, .l_start = 0, .l_len = 1
	};

	return fcntl(fd, cmd, &fl) == 0 ? 0 : -errno;
}

/* Whether a live process holds the entry's lock. */
static bool entry_owned(int fd)
{
	struct flock fl = { .l_type = F_WRLCK,
			    .l_whence = SEEK_SET,
			    .l_start = 0,
			    .l_len = 1 };

	if (fcntl(fd, F_OFD_GETLK, &fl) != 0)
		return true; /* cannot tell: counted, never removed */
	return fl.l_type != F_UNLCK;
}

/* Opens dir/guard and waits for its lock: the caller looks at or changes
 * the ledger, then closes the descriptor. */
static int guard_take(const char *dir, struct errbuf *err)
{
	char *path = path_join(dir, "guard");
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
	int rc;

	if (fd < 0) {
		rc = errf_code(err, errno, "%s: %s", path, strerror(errno));
		free(path);
		return rc;
	}
	(void)fchmod(fd, 0666);
	while ((rc = ofd_lock(fd, F_WRLCK, F_OFD_SETLKW)) == -EINTR)
		;
	if (rc) {
		errf_code(err, -rc, "%s: cannot lock: %s", path, strerror(-rc));
		close(fd);
		free(path);
		return rc;
	}
	free(path);
	return fd;
}

static uint64_t next_seq(int guard)
{
	uint64_t seq = 0;

	if (pread(guard, &seq, sizeof(seq), 0) != (ssize_t)sizeof(seq))
		seq = 0;
	uint64_t next = seq + 1;
	(void)!pwrite(guard, &next, sizeof(next), 0);
	return seq;
}

static bool parse_entry(int fd, uint64_t *bytes, bool *granted)
{
	char buf[ENTRY_TEXT_LEN + 1];
	ssize_t n = pread(fd, buf, ENTRY_TEXT_LEN, 0);
	char *end;

	if (n != ENTRY_TEXT_LEN)
		return false;
	buf[n] = '\0';
	*bytes = strtoull(buf, &end, 10);
	if (end != buf + 20 || buf[20] != ' ')
		return false;
	*granted = buf[21] == '1';
	return true;
}

struct seen {
	char name[32];
	uint64_t bytes;
	bool granted;
};

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct seen *)a)->name,
		      ((const struct seen *)b)->name);
}

/* Marks entry `name` granted in its file. */
static int grant(int dirfd_, const char *name)
{
	int fd = openat(dirfd_, name, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
	int rc = 0;

	if (fd < 0)
		return -errno;
	if (pwrite(fd, "1", 1, 21) != 1)
		rc = errno ? -errno : -EIO;
	close(fd);
	return rc;
}

/* One pass over the ledger with the guard held: entries whose owner is
 * gone are removed; then queued entries are granted in the order they
 * came while they fit (an ask beyond the capacity when nothing is
 * held), and none after the first that does not fit - whether or not
 * its owner is looking now, so that an evaluation that asked and went
 * on compiling holds up nobody once its memory is there.  Says whether
 * e's own entry is granted, and in v (when not NULL) what the others
 * hold and how many wait ahead of it. */
static int pass(const char *dir, uint64_t capacity, struct memledger_entry *e,
		struct memledger_view *v)
{
	/* (Without an entry, a look: every queued one counts as ahead.) */
	const char *own = e ? strrchr(e->path, '/') + 1 : "~";
	struct seen *all = NULL;
	size_t n = 0, cap = 0;
	uint64_t held = 0;
	int holders = 0, rc = 0;
	struct memledger_view unused;
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!v)
		v = &unused;
	memset(v, 0, sizeof(*v));
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		struct seen one;
		if (strncmp(de->d_name, ENTRY_PREFIX, strlen(ENTRY_PREFIX)) ||
		    strlen(de->d_name) >= sizeof(one.name))
			continue;
		int fd = openat(dirfd(d), de->d_name,
				O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue;
		bool owned = entry_owned(fd);
		bool ok = parse_entry(fd, &one.bytes, &one.granted);
		close(fd);
		if (!owned) {
			/* Its owner died (or is between its unlink and its
			 * close): gone from the ledger either way. */
			(void)unlinkat(dirfd(d), de->d_name, 0);
			continue;
		}
		if (!ok)
			continue;
		memcpy(one.name, de->d_name, strlen(de->d_name) + 1);
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			all = xrealloc(all, cap * sizeof(*all));
		}
		all[n++] = one;
		if (one.granted) {
			held += one.bytes;
			holders++;
		}
	}
	qsort(all, n, sizeof(*all), by_name);
	for (size_t i = 0; i < n; i++) {
		struct seen *w = &all[i];
		if (w->granted)
			continue;
		if (holders > 0 &&
		    (w->bytes > capacity || held > capacity - w->bytes))
			break;
		int g = grant(dirfd(d), w->name);
		if (g) {
			/* (Another's entry that cannot be written holds up
			 * those behind it until its owner looks again.) */
			if (e && !strcmp(w->name, own))
				rc = g;
			break;
		}
		w->granted = true;
		held += w->bytes;
		holders++;
	}
	for (size_t i = 0; i < n; i++) {
		if (e && !strcmp(all[i].name, own)) {
			e->granted = all[i].granted;
		} else if (all[i].granted) {
			v->held_bytes += all[i].bytes;
			v->holders++;
		} else if (strcmp(all[i].name, own) < 0) {
			v->waiting_ahead++;
		}
	}
	free(all);
	closedir(d);
	return rc ? rc : !e || e->granted ? 0 : -EWOULDBLOCK;
}

int memledger_ask(const char *dir, uint64_t capacity, uint64_t bytes,
		  struct memledger_entry *e, struct memledger_view *view,
		  struct errbuf *err)
{
	char text[ENTRY_TEXT_LEN + 1];
	int guard, rc;

	*e = (struct memledger_entry)MEMLEDGER_ENTRY_INIT;
	if ((rc = mkdir_shared(dir, err)))
		return rc;
	if ((guard = guard_take(dir, err)) < 0)
		return guard;
	e->bytes = bytes;
	/* (A name already taken is a leftover of an older guard's count.) */
	for (int tries = 0; e->fd < 0 && tries < 1000; tries++) {
		char name[40];
		snprintf(name, sizeof(name), ENTRY_PREFIX "%016" PRIu64,
			 next_seq(guard));
		free(e->path);
		e->path = path_join(dir, name);
		e->fd = open(e->path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC,
			     0666);
		if (e->fd < 0 && errno != EEXIST)
			break;
	}
	snprintf(text, sizeof(text), "%020" PRIu64 " 0\n", bytes);
	rc = e->fd < 0 ? -errno : ofd_lock(e->fd, F_WRLCK, F_OFD_SETLK);
	if (!rc && write(e->fd, text, ENTRY_TEXT_LEN) != ENTRY_TEXT_LEN)
		rc = -EIO;
	if (rc) {
		errf_code(err, -rc, "%s: %s", e->path, strerror(-rc));
		close(guard);
		/* Unlinked only when this call made it. */
		if (e->fd < 0) {
			free(e->path);
			e->path = NULL;
		}
		memledger_release(e);
		return rc;
	}
	(void)fchmod(e->fd, 0666);
	rc = pass(dir, capacity, e, view);
	close(guard);
	if (rc && rc != -EWOULDBLOCK) {
		errf_code(err, -rc, "%s: %s", e->path, strerror(-rc));
		memledger_release(e);
	}
	return rc;
}

/* A pass with the guard taken for it (e NULL: a look). */
static int guarded_pass(const char *dir, uint64_t capacity,
			struct memledger_entry *e, struct memledger_view *view,
			struct errbuf *err)
{
	int guard, rc;

	if ((guard = guard_take(dir, err)) < 0)
		return guard;
	rc = pass(dir, capacity, e, view);
	close(guard);
	if (rc && rc != -EWOULDBLOCK)
		errf_code(err, -rc, "%s: %s", e ? e->path : dir, strerror(-rc));
	return rc;
}

int memledger_retry(const char *dir, uint64_t capacity,
		    struct memledger_entry *e, struct memledger_view *view,
		    struct errbuf *err)
{
	if (e->granted)
		return 0;
	return guarded_pass(dir, capacity, e, view, err);
}

int memledger_look(const char *dir, uint64_t capacity,
		   struct memledger_view *view, struct errbuf *err)
{
	struct stat st;

	memset(view, 0, sizeof(*view));
	if (stat(dir, &st) != 0 && errno == ENOENT)
		return 0;
	return guarded_pass(dir, capacity, NULL, view, err);
}

void memledger_release(struct memledger_entry *e)
{
	if (e->path)
		(void)unlink(e->path);
	if (e->fd >= 0)
		close(e->fd);
	free(e->path);
	*e = (struct memledger_entry)MEMLEDGER_ENTRY_INIT;
}
