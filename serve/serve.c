/*
 * serve.c - starting, draining and freeing `arena serve` (serve.h), and
 * the pool of store handles the HTTP threads share.
 *
 * Order at start: check the options (a token beyond loopback), recover
 * the requests of dead workers, start the workers, then the listener, so
 * that nothing is accepted that no worker would take.  Order at drain:
 * refuse new batches, stop the workers taking (each finishes the
 * evaluation it holds), join them, then stop the listener; requests never
 * taken stay queued in the store.  A hard stop (serve_stop_now) does not
 * wait for the evaluations: it requeues them, fences the store and kills
 * the workers' processes.
 */
#include "serve_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "arena/proc.h"
#include "arena/task.h"

int serve_store_take(struct serve *s, struct store **out, struct errbuf *err)
{
	pthread_mutex_lock(&s->mu);
	if (s->npool > 0) {
		*out = s->pool[--s->npool];
		pthread_mutex_unlock(&s->mu);
		return 0;
	}
	pthread_mutex_unlock(&s->mu);
	return store_open(s->store_dir, out, err);
}

void serve_store_put(struct serve *s, struct store *st)
{
	pthread_mutex_lock(&s->mu);
	if (s->npool < SERVE_POOL_MAX) {
		s->pool[s->npool++] = st;
		st = NULL;
	}
	pthread_mutex_unlock(&s->mu);
	if (st)
		store_close(st);
}

bool serve_host_is_loopback(const char *host)
{
	return !host || !strcmp(host, "localhost") || !strncmp(host, "127.", 4);
}

static char *dup_or_null(const char *v)
{
	return v ? xstrdup(v) : NULL;
}

int serve_start(const struct serve_opts *o, struct serve **out,
		struct errbuf *err)
{
	struct serve *s;
	int rc, n = 0;

	*out = NULL;
	if (!o->socket_path && !serve_host_is_loopback(o->host) &&
	    (!o->token || !*o->token))
		return errf(err,
			    "listening on %s, beyond loopback, needs a "
			    "token: give --token-file FILE (clients send "
			    "'Authorization: Bearer <token>')",
			    o->host);
	if (o->ngpus <= 0 && o->workers < 1)
		return errf(err, "--workers must be at least 1");
	s = xcalloc(1, sizeof(*s));
	s->o = *o;
	s->store_dir = path_real(o->store_dir);
	if (!s->store_dir) {
		free(s);
		return errf_code(err, ENOENT,
				 "%s: the store directory does "
				 "not exist",
				 o->store_dir);
	}
	s->tasks_root =
		xstrdup(o->tasks_root ? o->tasks_root : task_default_root());
	s->host = xstrdup(o->host ? o->host : "127.0.0.1");
	s->socket_path = dup_or_null(o->socket_path);
	s->token = o->token && *o->token ? xstrdup(o->token) : NULL;
	if (o->ngpus > 0) {
		s->gpus = xcalloc((size_t)o->ngpus, sizeof(int));
		memcpy(s->gpus, o->gpus, (size_t)o->ngpus * sizeof(int));
	}
	s->o.max_queue = o->max_queue > 0 ? o->max_queue : 10000;
	s->o.max_body = o->max_body > 0 ? o->max_body : 64u << 20;
	s->listen_fd = -1;
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->wake, NULL);
	*out = s;
	if ((rc = serve_recover(s, &n, err)) != 0)
		return rc;
	if ((rc = serve_workers_start(s, err)) != 0)
		return rc;
	return serve_http_start(s, err);
}

const char *serve_url(const struct serve *s)
{
	return s->url;
}

int serve_drain(struct serve *s)
{
	int before = s->answered;

	s->draining = true;
	pthread_mutex_lock(&s->mu);
	s->stop = true;
	pthread_cond_broadcast(&s->wake);
	pthread_mutex_unlock(&s->mu);
	serve_workers_join(s);
	serve_http_stop(s);
	return s->answered - before;
}

int serve_stop_now(struct serve *s, double wait_s, struct errbuf *err)
{
	uint64_t deadline = now_ns() + (uint64_t)(wait_s * 1e9);
	struct store *fence;
	int rc, left;

	s->draining = true;
	s->stop = true;
	serve_workers_requeue(s);
	/* The fence handle is never put back: the process ends holding it.
	 * Without the fence, killing would let the workers record what the
	 * kill made of their evaluations: better leave them be. */
	if ((rc = serve_store_take(s, &fence, err)) != 0 ||
	    (rc = store_fence(fence, (int)(wait_s * 1000 / 2), err)) != 0)
		return rc;
	/* A worker whose compiler or runner dies goes on: it may start the
	 * next one before it sees stop, so kill until none is found.  One
	 * forked after the last look dies with its thread when we exit
	 * (proc.h: the parent-death signal). */
	for (;;) {
		left = proc_kill_children();
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		if (left == 0 || now_ns() >= deadline)
			return left;
		usleep(10 * 1000);
	}
}

void serve_free(struct serve *s)
{
	if (!s)
		return;
	if (!s->stop)
		serve_drain(s);
	else {
		serve_workers_join(s);
		serve_http_stop(s);
	}
	for (int i = 0; i < s->npool; i++)
		store_close(s->pool[i]);
	pthread_mutex_destroy(&s->mu);
	pthread_cond_destroy(&s->wake);
	free(s->workers);
	free(s->gpus);
	free(s->store_dir);
	free(s->tasks_root);
	free(s->host);
	free(s->socket_path);
	free(s->token);
	free(s);
}
