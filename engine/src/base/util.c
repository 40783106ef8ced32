/*
 * util.c - error buffers, aborting allocation, strbuf, strvec, parsing and
 * random helpers (see arena/util.h).
 *
 * Allocation failure aborts with a message: every caller would otherwise
 * need a recovery path it cannot test, and the store is crash-safe, so
 * dying is the honest answer (tmux/OpenBSD xmalloc).
 */
#include "arena/util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

/* ---- errors ---------------------------------------------------------- */

void errbuf_init(struct errbuf *e)
{
	e->msg[0] = '\0';
	e->set = false;
}

static void errbuf_vset(struct errbuf *e, const char *fmt, va_list ap)
{
	if (!e)
		return;
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	e->set = true;
}

int errf(struct errbuf *e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	errbuf_vset(e, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

int errf_code(struct errbuf *e, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	errbuf_vset(e, fmt, ap);
	va_end(ap);
	return code > 0 ? -code : code;
}

void errbuf_prefix(struct errbuf *e, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	if (!e)
		return;
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	strbuf_addstr(&sb, ": ");
	strbuf_addstr(&sb, e->msg);
	size_t n = sb.len < sizeof(e->msg) - 1 ? sb.len : sizeof(e->msg) - 1;
	memcpy(e->msg, sb.buf, n);
	e->msg[n] = '\0';
	e->set = true;
	strbuf_release(&sb);
}

const char *errbuf_str(const struct errbuf *e)
{
	return e && e->set ? e->msg : "unknown error";
}

/* ---- allocation ------------------------------------------------------ */

static void oom(size_t n)
{
	fprintf(stderr, "arena: out of memory allocating %zu bytes\n", n);
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		oom(n);
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		oom(n * size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (!q)
		oom(n);
	return q;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	return strbuf_detach(&sb);
}

/* ---- strbuf ---------------------------------------------------------- */

static char strbuf_empty[1];

void strbuf_init(struct strbuf *sb)
{
	sb->buf = NULL;
	sb->len = 0;
	sb->cap = 0;
}

void strbuf_release(struct strbuf *sb)
{
	free(sb->buf);
	strbuf_init(sb);
}

void strbuf_reset(struct strbuf *sb)
{
	sb->len = 0;
	if (sb->buf)
		sb->buf[0] = '\0';
}

void strbuf_grow(struct strbuf *sb, size_t extra)
{
	size_t need = sb->len + extra + 1;

	if (need <= sb->cap)
		return;
	size_t cap = sb->cap ? sb->cap : 64;
	while (cap < need)
		cap *= 2;
	sb->buf = xrealloc(sb->buf, cap);
	sb->cap = cap;
	sb->buf[sb->len] = '\0';
}

void strbuf_add(struct strbuf *sb, const void *data, size_t n)
{
	strbuf_grow(sb, n);
	memcpy(sb->buf + sb->len, data, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

void strbuf_addstr(struct strbuf *sb, const char *s)
{
	strbuf_add(sb, s, strlen(s));
}

void strbuf_addch(struct strbuf *sb, char c)
{
	strbuf_add(sb, &c, 1);
}

void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		return;
	strbuf_grow(sb, (size_t)n);
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	sb->len += (size_t)n;
}

void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
}

char *strbuf_detach(struct strbuf *sb)
{
	char *p = sb->buf ? sb->buf : xstrdup("");

	strbuf_init(sb);
	return p;
}

const char *strbuf_str(const struct strbuf *sb)
{
	return sb->buf ? sb->buf : strbuf_empty;
}

/* ---- strvec ---------------------------------------------------------- */

void strvec_init(struct strvec *sv)
{
	sv->v = NULL;
	sv->n = 0;
	sv->cap = 0;
}

void strvec_push(struct strvec *sv, const char *s)
{
	if (sv->n + 2 > sv->cap) {
		sv->cap = sv->cap ? sv->cap * 2 : 8;
		sv->v = xrealloc(sv->v, sv->cap * sizeof(char *));
	}
	sv->v[sv->n++] = xstrdup(s);
	sv->v[sv->n] = NULL;
}

void strvec_pushf(struct strvec *sv, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	strvec_push(sv, strbuf_str(&sb));
	strbuf_release(&sb);
}

void strvec_release(struct strvec *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	strvec_init(sv);
}

bool strvec_contains(const struct strvec *sv, const char *s)
{
	for (size_t i = 0; i < sv->n; i++)
		if (strcmp(sv->v[i], s) == 0)
			return true;
	return false;
}

/* ---- time ------------------------------------------------------------ */

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

double now_wall(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void time_stamp_compact(char out[16], double wall)
{
	time_t t = (time_t)wall;
	struct tm tm;

	localtime_r(&t, &tm);
	strftime(out, 16, "%Y%m%d_%H%M%S", &tm);
}

void time_stamp_iso(char out[32], double wall)
{
	time_t t = (time_t)wall;
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* ---- misc ------------------------------------------------------------ */

int parse_i64(const char *s, int64_t *out)
{
	char *end;
	long long v;

	if (!s || !*s)
		return -EINVAL;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end)
		return -EINVAL;
	*out = v;
	return 0;
}

int parse_double(const char *s, double *out)
{
	char *end;
	double v;

	if (!s || !*s)
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !isfinite(v))
		return -EINVAL;
	*out = v;
	return 0;
}

bool str_starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

bool str_ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

void random_bytes(void *buf, size_t n)
{
	unsigned char *p = buf;

	while (n > 0) {
		ssize_t r = getrandom(p, n, 0);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			/* No entropy source: fall back to time and pid mixing,
			 * which is enough for seeds (they are recorded). */
			uint64_t x = mix64(now_ns() ^ ((uint64_t)getpid() << 32));
			for (size_t i = 0; i < n; i++) {
				x = mix64(x);
				p[i] = (unsigned char)x;
			}
			return;
		}
		p += r;
		n -= (size_t)r;
	}
}

uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

uint64_t hash64_str(uint64_t seed, const char *s)
{
	uint64_t h = mix64(seed);

	for (; *s; s++)
		h = mix64(h ^ (unsigned char)*s);
	return h;
}
