/*
 * cmd_serve.c - `arena serve` (docs/serve.md): parses the options, reads
 * the token, starts the service (serve/serve.h) and waits for a signal.
 *
 * SIGTERM or SIGINT drains: new batches are refused, each worker finishes
 * the evaluation it holds, the listener stops, and the command exits 0;
 * requests never taken stay queued in the store for the next start.  A
 * second signal during the drain puts the requests in hand back in the
 * queue at once (their answers come from the next start), fences the
 * store, kills the workers' compilers and runners with their process
 * groups, reaps them and exits 0 (1 when some were still there after
 * SERVE_STOP_WAIT_S, or the store could not be fenced).
 * Every thread is started with the signals blocked; only the main thread
 * takes them (sigwait), so no handler runs inside the engine.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "serve.h"

#define TOKEN_MAX 4096
/* How long a hard stop waits for the workers' processes to be gone. */
#define SERVE_STOP_WAIT_S 5.0

/* The token: the file's first line, whitespace trimmed.  A file others
 * may read is refused: the token is the service's only lock. */
static int read_token(const char *path, char **out)
{
	struct errbuf err;
	struct stat sb;
	size_t len;
	char *t;

	errbuf_init(&err);
	if (stat(path, &sb))
		return cli_fail("%s: %s", path, strerror(errno));
	if (sb.st_mode & 077)
		return cli_fail("%s: the token file may be read by others "
				"(mode %03o); chmod 600 it",
				path, (unsigned)(sb.st_mode & 0777));
	if (file_read_all(path, TOKEN_MAX, &t, &len, &err))
		return cli_fail("%s", errbuf_str(&err));
	char *nl = strpbrk(t, "\r\n");
	if (nl)
		*nl = '\0';
	len = strlen(t);
	while (len && (t[len - 1] == ' ' || t[len - 1] == '\t'))
		t[--len] = '\0';
	if (len < 16) {
		free(t);
		return cli_fail("%s: the token must be at least 16 "
				"characters (e.g. head -c 32 /dev/urandom "
				"| base64)",
				path);
	}
	*out = t;
	return 0;
}

static int parse_listen(const char *v, char **host, int *port)
{
	const char *colon = strrchr(v, ':');
	char *end;
	long p;

	if (!colon || colon == v)
		return cli_usage_error("serve",
				       "--listen '%s': give "
				       "ADDRESS:PORT, as in 127.0.0.1:8080",
				       v);
	p = strtol(colon + 1, &end, 10);
	if (end == colon + 1 || *end || p < 0 || p > 65535)
		return cli_usage_error("serve",
				       "--listen '%s': the port must "
				       "be 0 to 65535",
				       v);
	*host = xstrndup(v, (size_t)(colon - v));
	*port = (int)p;
	return 0;
}

static int parse_int(const char *opt, const char *v, long lo, long hi,
		     long *out)
{
	char *end;
	long x = strtol(v, &end, 10);

	if (end == v || *end || x < lo || x > hi)
		return cli_usage_error("serve",
				       "%s '%s': give a whole number "
				       "from %ld to %ld",
				       opt, v, lo, hi);
	*out = x;
	return 0;
}

struct drain {
	struct serve *s;
	int answered;
	volatile int done;
};

static void *drain_main(void *arg)
{
	struct drain *d = arg;

	d->answered = serve_drain(d->s);
	d->done = 1;
	return NULL;
}

int cmd_serve(struct cli *c, int argc, char **argv)
{
	struct serve_opts o = { .workers = 1 };
	char *host = NULL, *token = NULL;
	int gpus[CLI_MAX_GPUS], rc;
	const char *token_file = NULL;
	struct serve *s = NULL;
	struct errbuf err;
	sigset_t set;
	long v;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		bool has = i + 1 < argc;
		if (!strcmp(a, "--listen") && has) {
			free(host);
			host = NULL;
			if ((rc = parse_listen(argv[++i], &host, &o.port)))
				return rc;
		} else if (!strcmp(a, "--socket") && has) {
			o.socket_path = argv[++i];
		} else if (!strcmp(a, "--token-file") && has) {
			token_file = argv[++i];
		} else if (!strcmp(a, "--workers") && has) {
			if ((rc = parse_int(a, argv[++i], 1, 256, &v)))
				return rc;
			o.workers = (int)v;
		} else if (!strcmp(a, "--gpus") && has) {
			if ((rc = cli_parse_gpus("serve", argv[++i], gpus,
						 &o.ngpus)))
				return rc;
			o.gpus = gpus;
		} else if (!strcmp(a, "--per-gpu") && has) {
			if ((rc = parse_int(a, argv[++i], 1, 16, &v)))
				return rc;
			o.per_gpu = (int)v;
		} else if (!strcmp(a, "--max-queue") && has) {
			if ((rc = parse_int(a, argv[++i], 1, 10000000, &v)))
				return rc;
			o.max_queue = (int)v;
		} else if (!strcmp(a, "--max-body-mb") && has) {
			if ((rc = parse_int(a, argv[++i], 1, 4096, &v)))
				return rc;
			o.max_body = (size_t)v << 20;
		} else if (!strcmp(a, "--lease-seconds") && has) {
			if ((rc = parse_int(a, argv[++i], 1, 86400, &v)))
				return rc;
			o.lease_s = (double)v;
		} else {
			free(host);
			return cli_usage_error("serve",
					       "unexpected argument or "
					       "missing value: '%s'",
					       a);
		}
	}
	if (host && o.socket_path) {
		free(host);
		return cli_usage_error("serve", "give --listen or --socket, "
						"not both");
	}
	o.host = host ? host : "127.0.0.1";
	if (o.port == 0 && !host)
		o.port = 8080;
	if (token_file && read_token(token_file, &token)) {
		free(host);
		return 1;
	}
	o.token = token;
	o.store_dir = c->store_dir;
	o.tasks_root = c->tasks_dir;

	/* The store must exist before the service opens it. */
	struct engine *e;
	if (cli_open(c, &e)) {
		free(host);
		free(token);
		return 1;
	}
	engine_close(e);

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	errbuf_init(&err);
	rc = serve_start(&o, &s, &err);
	if (rc) {
		serve_free(s);
		free(host);
		free(token);
		return cli_fail("%s", errbuf_str(&err));
	}
	printf("arena serve: listening on %s (%d %s, store %s)\n", serve_url(s),
	       o.ngpus > 0 ? o.ngpus * (o.per_gpu > 0 ? o.per_gpu : 1)
			   : o.workers,
	       o.ngpus > 0 ? "GPU workers" : "host workers", c->store_dir);
	fflush(stdout);

	int sig = 0;
	sigwait(&set, &sig);
	printf("arena serve: %s: draining (finishing the evaluations in "
	       "hand; a second signal requeues them and kills their "
	       "processes)\n",
	       sig == SIGTERM ? "SIGTERM" : "SIGINT");
	fflush(stdout);
	struct drain d = { .s = s };
	pthread_t th;
	pthread_create(&th, NULL, drain_main, &d);
	while (!d.done) {
		struct timespec ts = { 0, 200 * 1000000L };
		if (sigtimedwait(&set, NULL, &ts) > 0) {
			errbuf_init(&err);
			int left = serve_stop_now(s, SERVE_STOP_WAIT_S, &err);
			printf("arena serve: second signal: the requests in "
			       "hand went back to the queue\n");
			if (left < 0)
				printf("arena serve: %s; the workers' "
				       "processes were left to the parent-death "
				       "signal\n",
				       errbuf_str(&err));
			else if (left > 0)
				printf("arena serve: %d child processes were "
				       "still there after %.0f s\n",
				       left, SERVE_STOP_WAIT_S);
			else
				printf("arena serve: the workers' processes "
				       "were killed and reaped\n");
			fflush(stdout);
			_exit(left ? 1 : 0);
		}
	}
	pthread_join(th, NULL);
	printf("arena serve: drained (%d answered during the drain); "
	       "queued requests wait in the store\n",
	       d.answered);
	serve_free(s);
	free(host);
	free(token);
	return 0;
}
