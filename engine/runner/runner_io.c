/*
 * runner_io.c - one request line in, one reply line out (runner_io.h).
 *
 * The controller treats every byte on the channel as a claim and rejects
 * anything that is not exactly one line per request, so this side keeps
 * replies to one printable line whatever a message holds, and exits rather
 * than guess when the channel breaks.
 */
#include "runner_io.h"
#include "arena/fd_pass.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static char inbuf[RP_MAX_LINE + 1];
static size_t inlen;
static int passed_fd = -1;	/* a descriptor that came with a request */
static int64_t spin_ns;		/* rio_set_spin */

void rio_set_spin(int64_t ns)
{
	spin_ns = ns > 0 ? ns : 0;
}

/* The calling thread's CPU time: what a spin has cost. */
static int64_t cpu_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* Waits for the channel to be readable by polling it for spin_ns of the
 * thread's CPU time: a request that comes while the runner spins is seen
 * within microseconds instead of after a wake-up.  The controller stops
 * the runner right after each reply and resumes it just before the next
 * request; stopped (or preempted), the runner uses no CPU time, so the
 * spin is still on when the request comes, and an idle runner left
 * running costs spin_ns once.  False: the spin ran out, block. */
static bool spin_until_readable(void)
{
	char c;
	int64_t start = cpu_now();

	for (;;) {
		ssize_t r = recv(RP_FD_CONTROL, &c, 1, MSG_PEEK | MSG_DONTWAIT);
		if (r >= 0 || (errno != EAGAIN && errno != EINTR))
			return true; /* data, the end, or an error to read */
		if (cpu_now() - start > spin_ns)
			return false;
	}
}

/* read(2) that also accepts a descriptor sent with SCM_RIGHTS (a read()
 * would silently drop it): the first is kept for rio_take_fd(), others
 * are closed. */
static ssize_t read_with_fd(char *buf, size_t n)
{
	if (spin_ns)
		(void)spin_until_readable();
	return fd_pass_recv(RP_FD_CONTROL, buf, n, 0, &passed_fd);
}

int rio_take_fd(void)
{
	int fd = passed_fd;

	passed_fd = -1;
	return fd;
}

static void send_all(const char *s, size_t n)
{
	while (n > 0) {
		ssize_t w = send(RP_FD_CONTROL, s, n, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			_exit(RP_EXIT_CHANNEL);
		s += w;
		n -= (size_t)w;
	}
}

/* Sends the first byte of s with descriptor fd (SCM_RIGHTS), then the
 * rest. */
static void send_with_fd(const char *s, size_t n, int fd)
{
	ssize_t w;

	do
		w = fd_pass_send(RP_FD_CONTROL, s, 1, &fd, 1);
	while (w < 0 && errno == EINTR);
	if (w != 1)
		_exit(RP_EXIT_CHANNEL);
	send_all(s + 1, n - 1);
}

static void vreply(int fd, const char *fmt, va_list ap)
{
	char line[1024];
	int n = vsnprintf(line, sizeof(line) - 1, fmt, ap);

	if (n < 0)
		_exit(RP_EXIT_CHANNEL);
	if ((size_t)n > sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	/* Keep replies to one printable line whatever a message holds. */
	for (int i = 0; i < n; i++)
		if (line[i] < 0x20 || line[i] > 0x7e)
			line[i] = '?';
	line[n++] = '\n';
	if (fd >= 0)
		send_with_fd(line, (size_t)n, fd);
	else
		send_all(line, (size_t)n);
}

void rio_replyf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreply(-1, fmt, ap);
	va_end(ap);
}

void rio_reply_fd(int fd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreply(fd, fmt, ap);
	va_end(ap);
}

char *rio_read_line(void)
{
	static size_t consumed;

	if (consumed) {
		memmove(inbuf, inbuf + consumed, inlen - consumed);
		inlen -= consumed;
		consumed = 0;
	}
	for (;;) {
		char *nl = memchr(inbuf, '\n', inlen);
		if (nl) {
			*nl = '\0';
			consumed = (size_t)(nl - inbuf) + 1;
			return inbuf;
		}
		if (inlen >= RP_MAX_LINE)
			_exit(RP_EXIT_CHANNEL);
		ssize_t r = read_with_fd(inbuf + inlen, RP_MAX_LINE - inlen);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			_exit(r == 0 ? 0 : RP_EXIT_CHANNEL);
		inlen += (size_t)r;
	}
}

char *rio_next_tok(char **cur)
{
	char *s = *cur, *sp;

	if (!s || !*s)
		return NULL;
	sp = strchr(s, ' ');
	if (sp) {
		*sp = '\0';
		*cur = sp + 1;
	} else {
		*cur = s + strlen(s);
	}
	return s;
}

int rio_parse_i64(char **cur, int64_t *out)
{
	char *tok = rio_next_tok(cur);
	char *end;

	if (!tok || !*tok)
		return -1;
	errno = 0;
	long long v = strtoll(tok, &end, 10);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

size_t rio_dtype_bytes(int32_t d)
{
	switch (d) {
	case ARENA_F64:
	case ARENA_I64:
		return 8;
	case ARENA_F32:
	case ARENA_I32:
	case ARENA_U32:
		return 4;
	case ARENA_F16:
	case ARENA_BF16:
		return 2;
	case ARENA_U8:
	case ARENA_I8:
		return 1;
	default:
		return 0;
	}
}

int rio_parse_layout(char **cur, int64_t shm_bytes, struct rio_layout *l,
		     char *why, size_t n)
{
	int64_t size, nargs, nparams, v;

	memset(l, 0, sizeof(*l));
	if (rio_parse_i64(cur, &size) || rio_parse_i64(cur, &nargs) ||
	    rio_parse_i64(cur, &nparams) || size <= 0 || nargs < 1 ||
	    nargs > RP_MAX_ARGS || nparams < 0 || nparams > RP_MAX_PARAMS) {
		snprintf(why, n, "malformed layout header");
		return -1;
	}
	if (shm_bytes < size) {
		snprintf(why, n, "shared memory is smaller than %lld bytes",
			 (long long)size);
		return -1;
	}
	for (int i = 0; i < nparams; i++) {
		if (rio_parse_i64(cur, &v)) {
			snprintf(why, n, "malformed parameter %d", i);
			return -1;
		}
		l->params[i] = v;
	}
	for (int a = 0; a < nargs; a++) {
		int64_t off, dt, rank, numel = 1;
		if (rio_parse_i64(cur, &off) || rio_parse_i64(cur, &dt) ||
		    rio_parse_i64(cur, &rank) || off < 0 ||
		    off % RP_ALIGN != 0 || rio_dtype_bytes((int32_t)dt) == 0 ||
		    rank < 0 || rank > ARENA_MAX_RANK) {
			snprintf(why, n, "malformed argument %d", a);
			return -1;
		}
		for (int d = 0; d < rank; d++) {
			if (rio_parse_i64(cur, &v) || v < 0 ||
			    (v > 0 && numel > INT64_MAX / v)) {
				snprintf(why, n, "bad dimension of argument %d",
					 a);
				return -1;
			}
			l->shape[a][d] = v;
			numel *= v;
		}
		int64_t esz = (int64_t)rio_dtype_bytes((int32_t)dt);
		if (numel > INT64_MAX / 8 || off > size ||
		    numel * esz > size - off) {
			snprintf(why, n, "argument %d lies outside shared memory",
				 a);
			return -1;
		}
		l->offset[a] = (size_t)off;
		l->dtype[a] = (int32_t)dt;
		l->rank[a] = (int32_t)rank;
		l->numel[a] = numel;
		l->bytes[a] = (size_t)(numel * esz);
	}
	if (rio_next_tok(cur)) {
		snprintf(why, n, "trailing data in layout");
		return -1;
	}
	l->size = size;
	l->nargs = (int)nargs;
	l->nparams = (int)nparams;
	return 0;
}

void rio_build_args(const struct rio_layout *l, void *const *base,
		    arena_arg *args, int64_t *params)
{
	memset(args, 0, sizeof(arena_arg) * RP_MAX_ARGS);
	for (int a = 0; a < l->nargs; a++) {
		args[a].data = base[a];
		args[a].dtype = l->dtype[a];
		args[a].rank = l->rank[a];
		for (int d = 0; d < l->rank[a]; d++)
			args[a].shape[d] = l->shape[a][d];
		args[a].numel = l->numel[a];
	}
	memcpy(params, l->params, sizeof(int64_t) * (size_t)l->nparams);
}

void rio_next_request(char **cmd, char **seq, char **rest)
{
	for (;;) {
		*rest = rio_read_line();
		*cmd = rio_next_tok(rest);
		if (!*cmd)
			_exit(RP_EXIT_CHANNEL);
		if (strcmp(*cmd, "quit") == 0)
			_exit(0);
		*seq = rio_next_tok(rest);
		if (!*seq || strlen(*seq) > 24) {
			rio_replyf("error 0 request without a sequence number");
			continue;
		}
		if (strcmp(*cmd, "ping") == 0) {
			rio_replyf("pong %s", *seq);
			continue;
		}
		return;
	}
}

arena_launch_fn rio_load_entry(const char *path, const char *entry, char *why,
			       size_t n)
{
	arena_launch_fn fn;
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		const char *e = dlerror();
		snprintf(why, n, "cannot load the shared object: %s",
			 e ? e : "unknown error");
		return NULL;
	}
	void *sym = dlsym(h, entry);
	if (!sym) {
		snprintf(why, n, "the shared object does not export '%s'",
			 entry);
		return NULL;
	}
	memcpy(&fn, &sym, sizeof(fn));
	return fn;
}
