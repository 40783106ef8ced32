/*
 * lease.h - the heartbeat behind a worker's leases (DESIGN.md §9): one
 * thread per process renews every lease the process owns, on a store
 * connection of its own, until it is stopped.  A process that dies stops
 * renewing, so its attempts can be taken over once its leases expire.
 */
#ifndef ARENA_LEASE_H
#define ARENA_LEASE_H

#include <pthread.h>
#include <stdbool.h>

#include "arena/store.h"

/* How long a lease lasts unless renewed; renewed every third of it. */
#define LEASE_DEFAULT_TTL_S 60.0

struct lease_keeper {
	char owner[128];	/* host:pid:nonce, unique per keeper */
	double ttl_s;
	struct store *store;	/* the keeper's own connection */
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool stop, started;
};

/* Names the owner and starts renewing (store_dir: the store's root). */
int lease_keeper_start(struct lease_keeper *k, const char *store_dir,
		       double ttl_s, struct errbuf *err);
/* Stops renewing; leases not dropped expire on their own. */
void lease_keeper_stop(struct lease_keeper *k);

/* Whether owner names a process of this host that no longer exists (its
 * leases may be taken over at once instead of after they expire).  False
 * when in doubt: another host, or a pid that is alive (perhaps reused). */
bool lease_owner_dead_here(const char *owner);

#endif /* ARENA_LEASE_H */
