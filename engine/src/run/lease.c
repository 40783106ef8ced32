/*
 * lease.c - the lease heartbeat (lease.h).
 */
#include "lease.h"

#include "arena/proc.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* This host's name, as owners name it. */
static void host_name(char *buf, size_t n)
{
	if (gethostname(buf, n - 1) != 0)
		snprintf(buf, n, "host");
	buf[n - 1] = '\0';
}

static void *keeper_main(void *arg)
{
	struct lease_keeper *k = arg;
	double period = k->ttl_s / 3.0;

	pthread_mutex_lock(&k->mu);
	while (!k->stop) {
		struct timespec until;
		clock_gettime(CLOCK_REALTIME, &until);
		double t = (double)until.tv_sec + until.tv_nsec / 1e9 + period;
		until.tv_sec = (time_t)t;
		until.tv_nsec = (long)((t - (double)until.tv_sec) * 1e9);
		int r = pthread_cond_timedwait(&k->cv, &k->mu, &until);
		if (k->stop)
			break;
		if (r == ETIMEDOUT) {
			pthread_mutex_unlock(&k->mu);
			/* A busy store only delays one beat; the next one
			 * comes well before the lease runs out. */
			(void)store_lease_renew_all(k->store, k->owner,
						    k->ttl_s, NULL);
			pthread_mutex_lock(&k->mu);
		}
	}
	pthread_mutex_unlock(&k->mu);
	return NULL;
}

int lease_keeper_start(struct lease_keeper *k, const char *store_dir,
		       double ttl_s, struct errbuf *err)
{
	char host[64];
	int rc;

	memset(k, 0, sizeof(*k));
	host_name(host, sizeof(host));
	snprintf(k->owner, sizeof(k->owner), "%s:%ld:%016llx", host,
		 (long)getpid(),
		 (unsigned long long)(now_ns() ^ (uint64_t)(uintptr_t)k));
	k->ttl_s = ttl_s > 0 ? ttl_s : LEASE_DEFAULT_TTL_S;
	rc = store_open(store_dir, &k->store, err);
	if (rc)
		return rc;
	pthread_mutex_init(&k->mu, NULL);
	pthread_cond_init(&k->cv, NULL);
	if (pthread_create(&k->th, NULL, keeper_main, k) != 0) {
		pthread_cond_destroy(&k->cv);
		pthread_mutex_destroy(&k->mu);
		store_close(k->store);
		k->store = NULL;
		return errf_code(err, EAGAIN, "cannot start the lease "
				 "heartbeat thread");
	}
	k->started = true;
	return 0;
}

void lease_keeper_stop(struct lease_keeper *k)
{
	if (!k->started)
		return;
	pthread_mutex_lock(&k->mu);
	k->stop = true;
	pthread_cond_signal(&k->cv);
	pthread_mutex_unlock(&k->mu);
	pthread_join(k->th, NULL);
	pthread_cond_destroy(&k->cv);
	pthread_mutex_destroy(&k->mu);
	store_close(k->store);
	k->store = NULL;
	k->started = false;
}

bool lease_owner_dead_here(const char *owner)
{
	char host[64];
	const char *colon = strchr(owner, ':');
	char *end;

	if (!colon)
		return false;
	host_name(host, sizeof(host));
	if (strlen(host) != (size_t)(colon - owner) ||
	    strncmp(owner, host, (size_t)(colon - owner)) != 0)
		return false;
	long pid = strtol(colon + 1, &end, 10);
	if (end == colon + 1 || *end != ':' || pid <= 0)
		return false;
	return !proc_alive((pid_t)pid);
}
