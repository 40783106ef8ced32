/*
 * serve_internal.h - what the files of serve/ share (private to the
 * room).
 *
 *   serve_request.c  the body of POST /v1/batches: parsing and limits
 *   serve_api.c      the API's answers as JSON, independent of HTTP
 *   serve_worker.c   the workers: claim, evaluate, answer; the lease
 *                    heartbeat; recovery at start
 *   serve_http.c     libmicrohttpd: routes, token, body cap, events
 *   serve.c          start, drain, free
 *
 * Threads: the HTTP layer runs a thread per connection; each takes a
 * store handle from the pool (sqlite handles are not shared between
 * threads at once); each worker owns its engine (and so its store
 * handle).  `draining` and `stop` are read without the lock, written
 * under it.
 */
#ifndef ARENA_SERVE_INTERNAL_H
#define ARENA_SERVE_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include "arena/store.h"
#include "serve.h"

#define SERVE_POOL_MAX 16

struct serve_worker;

struct serve {
	struct serve_opts o; /* strings below are owned copies */
	char *store_dir, *tasks_root, *host, *socket_path, *token;
	int *gpus;
	char url[300];
	void *daemon;  /* struct MHD_Daemon */
	int listen_fd; /* the Unix socket, or -1 */

	pthread_mutex_t mu;
	pthread_cond_t wake;  /* a batch arrived, or stop */
	atomic_bool draining; /* refuse new batches */
	atomic_bool stop;     /* workers take nothing new */
	atomic_bool hb_stop;  /* the heartbeat ends (after the workers) */
	atomic_int answered;  /* by this process's workers */
	atomic_int busy;      /* workers evaluating now */

	struct store *pool[SERVE_POOL_MAX];
	int npool;

	struct serve_worker *workers;
	int nworkers;
	pthread_t heartbeat;
	bool heartbeat_started;
};

/* ---- the store pool (serve.c) ---- */
int serve_store_take(struct serve *s, struct store **out, struct errbuf *err);
void serve_store_put(struct serve *s, struct store *st);

/* ---- the API (serve_api.c) ---- */
struct serve_reply {
	int status;	 /* HTTP status */
	char *body;	 /* JSON, owned */
	int retry_after; /* > 0: a Retry-After header */
};
void serve_reply_release(struct serve_reply *r);
/* {"error": {"field": F, "message": M}} with status. */
void serve_reply_error(struct serve_reply *r, int status, const char *field,
		       const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void serve_api_submit(struct serve *s, const char *body, size_t len,
		      struct serve_reply *r);
void serve_api_batch(struct serve *s, const char *id, struct serve_reply *r);
void serve_api_result(struct serve *s, const char *id, struct serve_reply *r);
void serve_api_health(struct serve *s, struct serve_reply *r);
/* One request as the API shows it (a cJSON object, caller deletes). */
struct cJSON *serve_req_json(const struct store_serve_req *q);
/* An id the API hands out: prefix and 16 hex digits. */
bool serve_id_valid(const char *id, char prefix);

/* ---- the workers (serve_worker.c) ---- */
int serve_workers_start(struct serve *s, struct errbuf *err);
/* Joins them (after stop is set). */
void serve_workers_join(struct serve *s);
/* Requeues what the workers hold now. */
void serve_workers_requeue(struct serve *s);
/* Requests that workers of dead processes of this host held go back to
 * the queue; *n gets how many. */
int serve_recover(struct serve *s, int *n, struct errbuf *err);

/* ---- HTTP (serve_http.c) ---- */
int serve_http_start(struct serve *s, struct errbuf *err);
void serve_http_stop(struct serve *s);

#endif /* ARENA_SERVE_INTERNAL_H */
