/*
 * arena/memledger.h - a ledger of device memory shared by processes
 * (base/memledger.c): each evaluation that will hold memory on a device
 * writes down how much before it starts its runners there, and waits
 * while the sum would pass what the device has.
 *
 * The ledger is a directory (one per device, beside the device lock).
 * An entry is a file that holds a number of bytes and an open file
 * description lock (F_OFD_SETLK) of its owner: an entry whose lock is
 * gone belongs to a process that died, and the next look removes it, so
 * a crash never leaks memory from the ledger.  Takers are served first
 * come, first served: a waiter writes its entry at once, marked waiting,
 * and nobody after it is granted before it, even when it would fit
 * (a stream of small evaluations cannot starve a large one).  Whoever
 * looks at the ledger grants the queued entries that fit, in order,
 * whether their owners are looking or busy elsewhere.  One entry larger
 * than the whole capacity is granted when it is alone.
 */
#ifndef ARENA_MEMLEDGER_H
#define ARENA_MEMLEDGER_H

#include <stdbool.h>
#include <stdint.h>

struct errbuf;

struct memledger_entry {
	int fd; /* -1: none */
	char *path;
	uint64_t bytes;
	bool granted;
};

#define MEMLEDGER_ENTRY_INIT { .fd = -1 }

/* What the ledger of dir held at the last look: bytes granted to others,
 * and entries of others granted and waiting ahead of this one. */
struct memledger_view {
	uint64_t held_bytes;
	int holders;
	int waiting_ahead;
};

/* Writes down bytes in the ledger directory dir (made, sticky and
 * world-writable, when missing) and tries to have them granted within
 * capacity.  0: granted; -EWOULDBLOCK: queued, not yet granted (call
 * memledger_retry, or memledger_release to give up); other -errno on
 * failure (err says which file), nothing left in the ledger.  view, when
 * not NULL, says what stood in the way. */
int memledger_ask(const char *dir, uint64_t capacity, uint64_t bytes,
		  struct memledger_entry *e, struct memledger_view *view,
		  struct errbuf *err);

/* Looks again: 0 once granted, -EWOULDBLOCK while still queued. */
int memledger_retry(const char *dir, uint64_t capacity,
		    struct memledger_entry *e, struct memledger_view *view,
		    struct errbuf *err);

/* What the ledger holds now, for a report: the bytes and entries
 * granted, and the entries queued (as waiting_ahead).  A look grants
 * the queued entries that fit, as every look does.  A ledger never made
 * holds nothing.  0, or -errno (err says which file). */
int memledger_look(const char *dir, uint64_t capacity,
		   struct memledger_view *view, struct errbuf *err);

/* Takes the entry out of the ledger (granted or queued). */
void memledger_release(struct memledger_entry *e);

#endif
