/*
 * util.h - the small toolbox every engine module uses: error buffers,
 * growable strings and string lists, allocation that aborts on exhaustion,
 * file helpers (atomic writes, bounded reads, directory copies), SHA-256,
 * clocks and process helpers.
 *
 * Conventions (STYLE.md): functions return 0 or a negative errno; a
 * message for the user goes into a caller's struct errbuf as one sentence
 * naming the file, the field and the fix.  Library code never prints.
 */
#ifndef ARENA_UTIL_H
#define ARENA_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <sys/types.h>

/* ---- errors ---------------------------------------------------------- */

#define ERRBUF_SIZE 2048

/* A caller-provided buffer for one error sentence.  errf() and
 * errf_code() set the message, replacing any earlier one (the last error
 * set wins, so a caller that adds context does so with errbuf_prefix(),
 * never by setting again); `set` says whether there is one.  Messages
 * longer than ERRBUF_SIZE - 1 bytes are cut. */
struct errbuf {
	char msg[ERRBUF_SIZE];
	bool set;
};

void errbuf_init(struct errbuf *e);
/* Sets the message (overwrites).  Always returns -EINVAL so that callers can
 * write `return errf(err, "...")`; use errf_code() for another errno. */
int errf(struct errbuf *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int errf_code(struct errbuf *e, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Prefixes the current message with "prefix: " (used to add a file name). */
void errbuf_prefix(struct errbuf *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
const char *errbuf_str(const struct errbuf *e);

/* ---- allocation ------------------------------------------------------ */

/* Abort the process with a message on out-of-memory (tmux/git style). */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- growable string ------------------------------------------------- */

/* Invariant (git's strbuf, except for the empty state): either nothing is
 * allocated - buf == NULL and len == cap == 0, as STRBUF_INIT,
 * strbuf_init(), strbuf_release() and strbuf_detach() leave it - or buf
 * holds cap bytes, len < cap and buf[len] == '\0'.  So read the text
 * through strbuf_str(), which gives "" for the empty state; buf itself is
 * a C string only once something was added. */
struct strbuf {
	char *buf;
	size_t len;
	size_t cap;
};

#define STRBUF_INIT { NULL, 0, 0 }
void strbuf_init(struct strbuf *sb);
void strbuf_release(struct strbuf *sb);
void strbuf_reset(struct strbuf *sb);
void strbuf_grow(struct strbuf *sb, size_t extra);
void strbuf_add(struct strbuf *sb, const void *data, size_t n);
void strbuf_addstr(struct strbuf *sb, const char *s);
void strbuf_addch(struct strbuf *sb, char c);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0), nonnull(2)));
/* Returns the buffer (caller frees) and re-initialises sb. */
char *strbuf_detach(struct strbuf *sb);
/* Always returns a valid C string ("" when empty). */
const char *strbuf_str(const struct strbuf *sb);

/* ---- string list ----------------------------------------------------- */

struct strvec {
	char **v;	/* NULL-terminated */
	size_t n;
	size_t cap;
};

#define STRVEC_INIT { NULL, 0, 0 }
void strvec_init(struct strvec *sv);
void strvec_push(struct strvec *sv, const char *s);	/* copies s */
void strvec_pushf(struct strvec *sv, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void strvec_release(struct strvec *sv);
bool strvec_contains(const struct strvec *sv, const char *s);

/* ---- files ----------------------------------------------------------- */

/* Reads a whole file of at most max bytes into *out (NUL-terminated; caller
 * frees).  -EFBIG when larger, with a message naming the file. */
int file_read_all(const char *path, size_t max, char **out, size_t *len,
		  struct errbuf *err);
/* Writes data to path atomically: a temporary file in the same directory,
 * fsync, rename.  Readers see the old or the new content, never a part. */
int file_write_atomic(const char *path, const void *data, size_t len,
		      struct errbuf *err);
int file_write_atomic_str(const char *path, const char *s, struct errbuf *err);
bool file_exists(const char *path);
bool dir_exists(const char *path);
/* mkdir -p; mode 0755. */
int mkdir_p(const char *path, struct errbuf *err);
/* mkdir_p, the last directory made sticky and world-writable, like /tmp,
 * when this call makes it: a directory every user of the machine writes
 * in (the device locks and memory ledgers). */
int mkdir_shared(const char *path, struct errbuf *err);
/* The part of path after its last '/' (all of it without one; "" for
 * NULL): a pointer into path. */
const char *path_last(const char *path);
/* rm -rf; refuses "" and "/". */
int rm_rf(const char *path);
/* Copies a regular file (mode kept), atomically at the destination. */
int file_copy(const char *src, const char *dst, struct errbuf *err);
/* Joins two path parts with exactly one '/' (caller frees). */
char *path_join(const char *a, const char *b);
/* True if rel is a normalized relative path: not empty, not absolute, no
 * "." or ".." component, no backslash, no empty component. */
bool path_is_safe_relative(const char *rel);
/* Absolute, symlink-resolved form of path (caller frees), or NULL. */
char *path_real(const char *path);
/* True if path (NULL: false) is a regular file this process may execute. */
bool path_is_executable(const char *path);
/* The first executable regular file named prog in a directory of dirs
 * (colon-separated; NULL: $PATH, or PATH_SEARCH_DEFAULT when unset; an
 * empty entry is "."), as an absolute, symlink-resolved path (caller
 * frees), or NULL. */
#define PATH_SEARCH_DEFAULT "/usr/local/bin:/usr/bin:/bin"
char *path_search(const char *prog, const char *dirs);
/* The same search, keeping the name found: its directory resolved, the
 * file itself not.  For programs that look at their own path: a virtual
 * environment's bin/python3 is a symlink to the system interpreter, and
 * only the link's path finds the environment (its pyvenv.cfg). */
char *path_search_unresolved(const char *prog, const char *dirs);

/* ---- hashing --------------------------------------------------------- */

struct sha256 {
	uint32_t h[8];
	uint64_t nbytes;
	unsigned char block[64];
	size_t blen;
};

void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *data, size_t n);
void sha256_final(struct sha256 *s, unsigned char out[32]);
/* Lower-case hex digest, 64 chars + NUL. */
void sha256_hex(const void *data, size_t n, char out[65]);
void sha256_to_hex(const unsigned char d[32], char out[65]);
int sha256_file_hex(const char *path, char out[65], struct errbuf *err);

/* ---- time ------------------------------------------------------------ */

uint64_t now_ns(void);		/* CLOCK_MONOTONIC */
double now_wall(void);		/* CLOCK_REALTIME, seconds */
void sleep_ms(int ms);		/* nanosleep; a signal may end it early */
/* "YYYYmmdd_HHMMSS" in local time, for run ids. */
void time_stamp_compact(char out[16], double wall);
/* ISO 8601 UTC "YYYY-mm-ddTHH:MM:SSZ". */
void time_stamp_iso(char out[32], double wall);

/* ---- misc ------------------------------------------------------------ */

/* Parse helpers that reject trailing garbage. */
int parse_i64(const char *s, int64_t *out);
int parse_double(const char *s, double *out);
bool str_starts_with(const char *s, const char *prefix);
bool str_ends_with(const char *s, const char *suffix);
/* Writes n random bytes from getrandom(2). */
void random_bytes(void *buf, size_t n);
/* SplitMix64: deterministic 64-bit mixing used to derive seeds. */
uint64_t mix64(uint64_t x);
uint64_t hash64_str(uint64_t seed, const char *s);

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Last: the functions no arena source may call (see banned.h). */
#include "arena/banned.h"

#endif /* ARENA_UTIL_H */
