/*
 * serve.h - `arena serve` (docs/serve.md): a long-running evaluation
 * service over HTTP (libmicrohttpd).  Clients submit batches of {task,
 * sources}; the requests wait in the store's queue (arena/store.h), so a
 * restart loses none; workers (one per GPU, or N on the host) take them
 * in priority order and evaluate each exactly as `arena eval` does
 * (engine_eval_dir: the same checks, fresh runners, the same evaluation
 * cache); clients poll or stream the answers.
 *
 * The front end (cli/cmd_serve.c) starts the service, waits for SIGTERM
 * or SIGINT and drains it.
 */
#ifndef ARENA_SERVE_H
#define ARENA_SERVE_H

#include <stdbool.h>
#include <stddef.h>

#include "arena/util.h"

struct serve_opts {
	const char *store_dir;
	const char *tasks_root;	 /* NULL: the default tasks directory */
	const char *host;	 /* an IPv4 address; NULL: 127.0.0.1 */
	int port;		 /* 0: any free port (serve_url says which) */
	const char *socket_path; /* a Unix socket instead of host:port */
	const char *token;	 /* the bearer token clients must send, or
				  * NULL (refused beyond loopback) */
	int workers;		 /* host workers when ngpus is 0 (>= 1) */
	const int *gpus;	 /* per_gpu workers per device index */
	int ngpus;
	int per_gpu;	 /* evaluations in flight per GPU (<= 0: 1):
				  * while one holds the device lock for its
				  * timing, the others build and check */
	int max_queue;	 /* requests not done before 429s; 0: 10000 */
	size_t max_body; /* request body cap; 0: 64 MiB */
	double lease_s;	 /* a worker's claim; <= 0: 60 s */
};

struct serve;

/* True when host is a loopback address (127.0.0.0/8, "localhost"). */
bool serve_host_is_loopback(const char *host);

/* Checks the options, recovers requests that dead workers of this host
 * held, starts the workers and the HTTP listener.  -EINVAL (with a
 * sentence) for options that are refused: beyond loopback without a
 * token, no workers; -ENOTSUP when arena was built without
 * libmicrohttpd. */
int serve_start(const struct serve_opts *o, struct serve **out,
		struct errbuf *err);
/* Where it listens: "http://127.0.0.1:8080" or "unix:/path" (borrowed). */
const char *serve_url(const struct serve *s);
/* Graceful drain: new batches are refused (503), workers take nothing
 * new and finish the evaluation each has in hand, then the listener
 * stops.  Requests never taken stay queued in the store for the next
 * start.  Returns the number of requests answered during the drain. */
int serve_drain(struct serve *s);
/* Hard stop (a second signal): the requests the workers hold go back to
 * the queue at once, so each is still answered exactly once, by a later
 * start; then the store's write lock is taken (waiting at most wait_s /
 * 2) and kept until the process ends, so that nothing an evaluation cut
 * short would record (a verdict in the evaluation cache, an answer)
 * reaches the store; then every process the workers started (compilers,
 * runners, each with its process group) is killed and reaped, until none
 * is left or wait_s has passed.  Returns how many child processes were
 * still there at the end (0: none), or a negative errno with a sentence
 * in err when the store could not be fenced (then nothing was killed).
 * The caller exits next. */
int serve_stop_now(struct serve *s, double wait_s, struct errbuf *err);
void serve_free(struct serve *s);

#endif /* ARENA_SERVE_H */
