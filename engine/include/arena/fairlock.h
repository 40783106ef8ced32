/*
 * arena/fairlock.h - a first-come, first-served readers-writer lock
 * between processes, on one file (base/fairlock.c).
 *
 * flock(2) wakes every waiter at a release and lets whoever runs first
 * take the lock, so a process that releases and takes it again at once
 * (an evaluation between its correctness trials, a serve worker between
 * evaluations) can keep a sleeping waiter out for minutes: 272 s on the
 * H200 on 2026-12-04, four `arena check-tasks` at a time.  Here every
 * taker draws a ticket and waits only for the holders and waiters that
 * drew before it: an exclusive taker for all of them, a shared taker for
 * the exclusive ones.  A process that dies (or closes the file) gives
 * its ticket back, whether it held the lock or waited for it.
 *
 * The file must be open read-write; its first 8 bytes are the ticket
 * counter.  Every lock is an open file description lock (F_OFD_SETLK), so
 * two descriptors of one process opened separately are two takers, and a
 * taker's locks go with the last descriptor of its open file description.
 * An open file description holds one ticket at a time: its own locks do
 * not conflict with each other, so a second ticket would not wait for
 * its first, and waiting would undo the first's locks.
 */
#ifndef ARENA_FAIRLOCK_H
#define ARENA_FAIRLOCK_H

#include <stdbool.h>
#include <stdint.h>

/* Draws a ticket for mode (LOCK_SH or LOCK_EX of <sys/file.h>) on fd and
 * marks it queued: from here on, every later taker waits for this one.
 * 0 with *ticket set, or -errno (-EBADMSG: the counter is not one this
 * module wrote, or went back below a taker's ticket). */
int fairlock_enqueue(int fd, int mode, int64_t *ticket);

/* Waits until every earlier ticket that mode must wait for is gone.
 * With block false it does not wait: -EWOULDBLOCK when it would have
 * (the ticket stays queued: wait again, or fairlock_release).  0, or
 * -errno. */
int fairlock_wait(int fd, int mode, int64_t ticket, bool block);

/* fairlock_enqueue then a blocking fairlock_wait; on failure nothing is
 * left queued. */
int fairlock_take(int fd, int mode, int64_t *ticket);

/* An exclusive ticket becomes shared, at once: shared takers behind it
 * may come in, exclusive ones still wait for it (nobody can slip in
 * between, as a release and a new taking would let them). */
void fairlock_share(int fd, int64_t ticket);

/* Gives ticket back, held or queued. */
void fairlock_release(int fd, int64_t ticket);

#endif
