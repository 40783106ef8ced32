/*
 * serve_worker.c - the workers of `arena serve`: each claims the next
 * request from the store's queue (highest priority, oldest first) under a
 * lease, writes its sources into a scratch directory of its own, evaluates
 * them with engine_eval_dir - exactly `arena eval`: the task's trusted
 * copy, fresh runners, every check, the store's evaluation cache for
 * full evaluations - and answers it in the store.
 *
 * Exactly once: only the worker holding a request's lease can answer it
 * (store_serve_finish); a worker whose lease was taken over (it stalled
 * past its lease, or a hard stop requeued it) gets -ESTALE and its answer
 * is dropped.  A heartbeat thread renews the lease of every worker that
 * holds a request.  An idle worker polls the queue with a read
 * (store_serve_claim writes only when there is something to claim), so
 * an idle service takes no write lock.  At start,
 * requests held by workers of dead processes of this host go back to the
 * queue at once; those of other hosts when their leases expire.
 *
 * Owner names: "<host>:<pid>:<nonce>:w<k>", one per worker.
 */
#include "serve_internal.h"
#include "serve_request.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "arena/engine.h"
#include "arena/result.h"

#define SERVE_IDLE_WAIT_MS 500

struct serve_worker {
	struct serve *s;
	int k;
	bool has_gpu;
	int gpu;
	char owner[160];
	atomic_bool holding; /* has a claimed request: the heartbeat renews */
	pthread_t th;
	bool started;
};

static double lease_s(const struct serve *s)
{
	return s->o.lease_s > 0 ? s->o.lease_s : 60.0;
}

/* Waits up to ms for a wake-up, unless *flag is already set. */
static void wait_ms(struct serve *s, int ms, atomic_bool *flag)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&s->mu);
	if (!*flag)
		pthread_cond_timedwait(&s->wake, &s->mu, &ts);
	pthread_mutex_unlock(&s->mu);
}

/* Writes the request's files under dir. */
static int write_sources(const char *dir, const char *sources_json,
			 struct errbuf *err)
{
	struct serve_item it = { 0 };
	int rc = serve_sources_from_json(sources_json, &it, err);

	for (int k = 0; rc == 0 && k < it.nfiles; k++) {
		char *p = path_join(dir, it.files[k].name);
		char *slash = strrchr(p, '/');
		*slash = '\0';
		rc = mkdir_p(p, err);
		*slash = '/';
		if (rc == 0)
			rc = file_write_atomic(p, it.files[k].data,
					       it.files[k].len, err);
		free(p);
	}
	for (int k = 0; k < it.nfiles; k++) {
		free(it.files[k].name);
		free(it.files[k].data);
	}
	free(it.files);
	return rc;
}

/* Evaluates one claimed request: *json (a task_result) or *error. */
static void evaluate(struct serve_worker *w, struct engine *e,
		     const struct store_serve_req *q, char **json, char **error,
		     bool *cacheable)
{
	struct eval_options opt = { .quick = q->quick,
				    .has_gpu = w->has_gpu,
				    .gpu = w->gpu };
	struct task_result res;
	struct errbuf err;
	char *dir = xasprintf("%s/serve/work/%s", w->s->store_dir, q->id);
	int rc;

	errbuf_init(&err);
	result_init(&res);
	rm_rf(dir);
	rc = mkdir_p(dir, &err);
	if (rc == 0)
		rc = write_sources(dir, q->sources_json, &err);
	if (rc == 0)
		rc = engine_eval_dir(e, q->task_id, dir, &opt, &res, &err);
	if (rc == 0) {
		*json = result_to_json(&res);
		/* A quick verdict is one noisy block, and an infrastructure
		 * error says nothing of the sources: neither answers a
		 * twin. */
		*cacheable = !q->quick && res.status != RS_INFRA_ERROR;
	} else {
		*error = xstrdup(errbuf_str(&err));
		*cacheable = false;
	}
	result_release(&res);
	rm_rf(dir);
	free(dir);
}

static void *worker_main(void *arg)
{
	struct serve_worker *w = arg;
	struct serve *s = w->s;
	struct engine *e = NULL;
	struct errbuf err;

	errbuf_init(&err);
	while (!s->stop && engine_open(s->store_dir, s->tasks_root, &e, &err))
		wait_ms(s, 1000,
			&s->stop); /* a store busy at start: try again */
	while (e && !s->stop) {
		struct store_serve_req q;
		int rc = store_serve_claim(engine_store(e), w->owner,
					   lease_s(s), &q, &err);
		if (rc) {
			/* -ENOENT: nothing to do; -EBUSY: another writer. */
			wait_ms(s, SERVE_IDLE_WAIT_MS, &s->stop);
			continue;
		}
		w->holding = true;
		s->busy++;
		char *json = NULL, *error = NULL;
		bool cacheable = false;
		int also = 0;
		evaluate(w, e, &q, &json, &error, &cacheable);
		do {
			rc = store_serve_finish(engine_store(e), q.id, w->owner,
						json, error, cacheable, &also,
						&err);
		} while (rc == -EBUSY);
		if (rc == 0)
			s->answered += 1 + also;
		else if (rc != -ESTALE)
			/* The store failed to take the answer: the request
			 * goes back to the queue rather than stay running
			 * under a lease the heartbeat keeps alive. */
			store_serve_requeue(engine_store(e), q.id, w->owner,
					    &err);
		w->holding = false;
		s->busy--;
		free(json);
		free(error);
		store_serve_req_release(&q);
	}
	engine_close(e);
	return NULL;
}

static void *heartbeat_main(void *arg)
{
	struct serve *s = arg;
	int period_ms = (int)(lease_s(s) * 1000 / 3);

	while (!s->hb_stop) {
		struct store *st;
		struct errbuf err;
		errbuf_init(&err);
		if (serve_store_take(s, &st, &err) == 0) {
			/* Only holders: an idle service writes nothing. */
			for (int k = 0; k < s->nworkers; k++)
				if (s->workers[k].holding)
					store_serve_renew(st,
							  s->workers[k].owner,
							  lease_s(s), &err);
			serve_store_put(s, st);
		}
		for (int t = 0; t < period_ms && !s->hb_stop; t += 100)
			wait_ms(s, 100, &s->hb_stop);
	}
	return NULL;
}

static void host_name(char *buf, size_t n)
{
	if (gethostname(buf, n - 1) != 0)
		snprintf(buf, n, "localhost");
	buf[n - 1] = '\0';
	for (char *p = buf; *p; p++)
		if (*p == ':')
			*p = '_';
}

int serve_workers_start(struct serve *s, struct errbuf *err)
{
	char host[64];
	unsigned nonce;

	host_name(host, sizeof(host));
	random_bytes(&nonce, sizeof(nonce));
	int per = s->o.per_gpu > 0 ? s->o.per_gpu : 1;

	s->nworkers = s->o.ngpus > 0 ? s->o.ngpus * per : s->o.workers;
	s->workers = xcalloc((size_t)s->nworkers, sizeof(*s->workers));
	for (int k = 0; k < s->nworkers; k++) {
		struct serve_worker *w = &s->workers[k];
		w->s = s;
		w->k = k;
		w->has_gpu = s->o.ngpus > 0;
		w->gpu = w->has_gpu ? s->gpus[k % s->o.ngpus] : 0;
		snprintf(w->owner, sizeof(w->owner), "%s:%d:%08x:w%d", host,
			 (int)getpid(), nonce, k);
	}
	for (int k = 0; k < s->nworkers; k++) {
		if (pthread_create(&s->workers[k].th, NULL, worker_main,
				   &s->workers[k]))
			return errf_code(err, EAGAIN,
					 "cannot start worker "
					 "thread %d",
					 k);
		s->workers[k].started = true;
	}
	if (pthread_create(&s->heartbeat, NULL, heartbeat_main, s))
		return errf_code(err, EAGAIN,
				 "cannot start the lease "
				 "heartbeat thread");
	s->heartbeat_started = true;
	return 0;
}

void serve_workers_join(struct serve *s)
{
	for (int k = 0; k < s->nworkers; k++)
		if (s->workers[k].started) {
			pthread_join(s->workers[k].th, NULL);
			s->workers[k].started = false;
		}
	pthread_mutex_lock(&s->mu);
	s->hb_stop = true;
	pthread_cond_broadcast(&s->wake);
	pthread_mutex_unlock(&s->mu);
	if (s->heartbeat_started) {
		pthread_join(s->heartbeat, NULL);
		s->heartbeat_started = false;
	}
}

void serve_workers_requeue(struct serve *s)
{
	struct store *st;
	struct errbuf err;

	errbuf_init(&err);
	if (serve_store_take(s, &st, &err))
		return;
	for (int k = 0; k < s->nworkers; k++)
		store_serve_requeue_owner(st, s->workers[k].owner, NULL, &err);
	serve_store_put(s, st);
}

/* Is owner a worker of a process of this host that is gone?  At start no
 * worker of this process exists yet, so an owner with our own pid is a
 * dead process's whose pid was reused. */
static bool owner_dead_here(const char *owner, const char *host)
{
	size_t hl = strlen(host);
	char *end;
	long pid;

	if (strncmp(owner, host, hl) || owner[hl] != ':')
		return false;
	pid = strtol(owner + hl + 1, &end, 10);
	if (end == owner + hl + 1 || *end != ':' || pid <= 0)
		return false;
	if (pid == (long)getpid())
		return true;
	return kill((pid_t)pid, 0) == -1 && errno == ESRCH;
}

int serve_recover(struct serve *s, int *n, struct errbuf *err)
{
	struct strvec owners = STRVEC_INIT;
	struct store *st;
	char host[64];
	int rc;

	*n = 0;
	host_name(host, sizeof(host));
	if ((rc = serve_store_take(s, &st, err)) != 0)
		return rc;
	rc = store_serve_owners(st, &owners, err);
	for (size_t i = 0; rc == 0 && i < owners.n; i++) {
		int k = 0;
		if (owner_dead_here(owners.v[i], host))
			rc = store_serve_requeue_owner(st, owners.v[i], &k,
						       err);
		*n += k;
	}
	serve_store_put(s, st);
	strvec_release(&owners);
	return rc;
}
