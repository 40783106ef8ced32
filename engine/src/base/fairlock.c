/*
 * fairlock.c - a first-come, first-served readers-writer lock between
 * processes on one file (arena/fairlock.h says why flock is not enough).
 *
 * The file's first 8 bytes hold the next ticket; a write lock on them
 * guards the draw.  Two lock-only regions, far beyond any data, hold one
 * byte per ticket: PRESENT + t is write-locked by ticket t's taker from
 * the draw until it gives the ticket back, whatever its mode; EXCLUSIVE +
 * t also, when the mode is exclusive.  Both bytes are locked before the
 * counter is let go, so no later taker can look before they are there.
 * To wait, a taker asks for a read lock on every earlier ticket's byte
 * at once - [PRESENT, PRESENT + t) when exclusive, [EXCLUSIVE, EXCLUSIVE
 * + t) when shared - which the kernel grants only when no write lock is
 * left in the range; later tickets lock bytes above t, so nothing can
 * overtake, and a dead taker's bytes go with its descriptors.  The read
 * lock is dropped at once: it only waited.  An exclusive holder becomes
 * a shared one by letting its EXCLUSIVE byte go and keeping the other.
 * A counter that went back (someone rewrote the file) would let a new
 * ticket skip the takers above it, so a draw that finds any of them
 * fails instead (-EBADMSG): a rewritten file can stop evaluations, never
 * let two measure at once.
 */
#include "arena/fairlock.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#define COUNTER_LEN 8
#define PRESENT ((off_t)1 << 40)
#define EXCLUSIVE ((off_t)1 << 41)
/* Tickets stay below the distance between the two regions. */
#define TICKET_MAX ((int64_t)1 << 40)

/* One OFD lock request on [start, start + len); cmd F_OFD_SETLK or
 * F_OFD_SETLKW, retried when a signal interrupts it.  0 or -errno. */
static int ofd_lock(int fd, int cmd, short type, off_t start, off_t len)
{
	struct flock fl;

	memset(&fl, 0, sizeof(fl)); /* l_pid 0: an OFD lock */
	fl.l_type = type;
	fl.l_whence = SEEK_SET;
	fl.l_start = start;
	fl.l_len = len;
	while (fcntl(fd, cmd, &fl) != 0) {
		if (errno == EINTR && cmd == F_OFD_SETLKW)
			continue;
		return errno == EACCES ? -EAGAIN : -errno;
	}
	return 0;
}

static void ofd_unlock(int fd, off_t start, off_t len)
{
	(void)ofd_lock(fd, F_OFD_SETLK, F_UNLCK, start, len);
}

/* The counter as stored (little-endian), 0 for a new file. */
static int counter_read(int fd, int64_t *next)
{
	unsigned char b[COUNTER_LEN] = { 0 };
	ssize_t n;

	do
		n = pread(fd, b, sizeof(b), 0);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if (n != 0 && n != COUNTER_LEN)
		return -EBADMSG;
	uint64_t v = 0;
	for (int i = COUNTER_LEN - 1; i >= 0; i--)
		v = v << 8 | b[i];
	if (v >= (uint64_t)TICKET_MAX)
		return -EBADMSG;
	*next = (int64_t)v;
	return 0;
}

static int counter_write(int fd, int64_t next)
{
	unsigned char b[COUNTER_LEN];
	uint64_t v = (uint64_t)next;
	ssize_t n;

	for (int i = 0; i < COUNTER_LEN; i++, v >>= 8)
		b[i] = (unsigned char)(v & 0xff);
	do
		n = pwrite(fd, b, sizeof(b), 0);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return n == COUNTER_LEN ? 0 : -EIO;
}

/* Whether any taker is at ticket t or above: a counter that went back
 * (rewritten by someone), under which t would not wait for them. */
static int tickets_from(int fd, int64_t t, bool *found)
{
	struct flock fl;

	memset(&fl, 0, sizeof(fl));
	fl.l_type = F_WRLCK;
	fl.l_whence = SEEK_SET;
	fl.l_start = PRESENT + t;
	fl.l_len = (off_t)(TICKET_MAX - t);
	if (fcntl(fd, F_OFD_GETLK, &fl) != 0)
		return -errno;
	*found = fl.l_type != F_UNLCK;
	return 0;
}

int fairlock_enqueue(int fd, int mode, int64_t *ticket)
{
	int64_t t = 0;
	int rc;

	if (mode != LOCK_SH && mode != LOCK_EX)
		return -EINVAL;
	if ((rc = ofd_lock(fd, F_OFD_SETLKW, F_WRLCK, 0, COUNTER_LEN)))
		return rc;
	bool ahead = false;
	if ((rc = counter_read(fd, &t)) == 0 &&
	    (rc = tickets_from(fd, t, &ahead)) == 0 &&
	    (rc = ahead ? -EBADMSG : 0) == 0 &&
	    (rc = t + 1 < TICKET_MAX ? counter_write(fd, t + 1)
				     : -EOVERFLOW) == 0 &&
	    (rc = ofd_lock(fd, F_OFD_SETLK, F_WRLCK, PRESENT + t, 1)) == 0 &&
	    mode == LOCK_EX &&
	    (rc = ofd_lock(fd, F_OFD_SETLK, F_WRLCK, EXCLUSIVE + t, 1)) != 0)
		ofd_unlock(fd, PRESENT + t, 1);
	ofd_unlock(fd, 0, COUNTER_LEN);
	if (rc == 0)
		*ticket = t;
	return rc;
}

int fairlock_wait(int fd, int mode, int64_t ticket, bool block)
{
	off_t base = mode == LOCK_EX ? PRESENT : EXCLUSIVE;
	int rc;

	if (ticket == 0) /* a length of 0 would mean "to the end" */
		return 0;
	rc = ofd_lock(fd, block ? F_OFD_SETLKW : F_OFD_SETLK, F_RDLCK, base,
		      (off_t)ticket);
	if (rc == -EAGAIN)
		return -EWOULDBLOCK;
	if (rc == 0)
		ofd_unlock(fd, base, (off_t)ticket);
	return rc;
}

int fairlock_take(int fd, int mode, int64_t *ticket)
{
	int rc = fairlock_enqueue(fd, mode, ticket);

	if (rc == 0 && (rc = fairlock_wait(fd, mode, *ticket, true)) != 0)
		fairlock_release(fd, *ticket);
	return rc;
}

void fairlock_share(int fd, int64_t ticket)
{
	ofd_unlock(fd, EXCLUSIVE + ticket, 1);
}

void fairlock_release(int fd, int64_t ticket)
{
	ofd_unlock(fd, PRESENT + ticket, 1);
	ofd_unlock(fd, EXCLUSIVE + ticket, 1);
}
