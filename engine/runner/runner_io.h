/*
 * runner_io.h - the runner side of the line protocol (runner_proto.h),
 * shared by the host runner (arena_runner.c) and the GPU runners
 * (gpu/arena_runner_gpu.cpp): reading one request line, replying with one
 * printable line, splitting tokens, parsing a `layout` request.
 *
 * Plain C with C linkage, libc only, so that nvcc and hipcc builds of the
 * GPU runner link the very objects the host runner uses.  Nothing here
 * allocates: the line buffer is static, and the program is single-threaded
 * on this side (GPU drivers start threads, none of which touch fd 3).
 */
#ifndef ARENA_RUNNER_IO_H
#define ARENA_RUNNER_IO_H

#include <stddef.h>
#include <stdint.h>

#include "arena/kernel.h"
#include "arena/runner_proto.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Sends one reply line (made printable, '\n' appended); exits with
 * RP_EXIT_CHANNEL when the channel is broken. */
void rio_replyf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The same, with descriptor fd sent along (SCM_RIGHTS; a keeper's
 * `lend`). */
void rio_reply_fd(int fd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Reads one request line into a static NUL-terminated buffer (valid until
 * the next call); exits 0 on EOF and RP_EXIT_CHANNEL on errors. */
char *rio_read_line(void);

/* The next request for the runner itself: its verb in *cmd, sequence
 * number in *seq, the rest of the line in *rest.  What every runner
 * answers alike is answered here: the channel's end (exit
 * RP_EXIT_CHANNEL), `quit` (exit 0), a missing or overlong sequence
 * number (an error reply), `ping` (pong). */
void rio_next_request(char **cmd, char **seq, char **rest);

/* From now on, wait for each request by polling the channel for up to ns
 * of the runner's running time before blocking (0: block at once).  For
 * GPU runners, whose requests are timed by the controller's clock: a
 * blocked runner's wake-up costs tens to hundreds of microseconds on a
 * virtual machine, noise in every timed request.  Host runners do not
 * spin: their CPU time is what the controller charges. */
void rio_set_spin(int64_t ns);

/* The descriptor that came with the last request (SCM_RIGHTS), or -1;
 * the caller owns it. */
int rio_take_fd(void);

/* Splits off the next single-space-separated token of *cur (NULL at the
 * end). */
char *rio_next_tok(char **cur);

/* The entry of the kernel's shared object at path: dlopen, then dlsym of
 * entry.  NULL with a sentence in why. */
arena_launch_fn rio_load_entry(const char *path, const char *entry, char *why,
			       size_t n);
/* Parses the next token as a decimal int64; -1 if missing or malformed. */
int rio_parse_i64(char **cur, int64_t *out);

/* Bytes per element of an arena_dtype, 0 for an unknown one. */
size_t rio_dtype_bytes(int32_t d);

/* A parsed `layout` request: where every argument lives in the shared
 * memory and what it looks like. */
struct rio_layout {
	int64_t size;		/* bytes of shared memory the layout uses */
	int nargs, nparams;
	int64_t params[RP_MAX_PARAMS];
	size_t offset[RP_MAX_ARGS];
	int32_t dtype[RP_MAX_ARGS];
	int32_t rank[RP_MAX_ARGS];
	int64_t shape[RP_MAX_ARGS][ARENA_MAX_RANK];
	int64_t numel[RP_MAX_ARGS];
	size_t bytes[RP_MAX_ARGS];
};

/* Parses the rest of a `layout` request (after "<seq>") into *l, checking
 * that every argument lies inside shm_bytes.  Returns 0, or -1 with a
 * clause in why ("malformed argument 2"). */
int rio_parse_layout(char **cur, int64_t shm_bytes, struct rio_layout *l,
		     char *why, size_t n);

/* Fills args[] for a call from l, with data pointers base[a] (host or
 * device); rebuilt before every call so that a kernel which scribbles on
 * the (const) array it was given cannot redirect the next call. */
void rio_build_args(const struct rio_layout *l, void *const *base,
		    arena_arg *args, int64_t *params);

#ifdef __cplusplus
}
#endif

#endif /* ARENA_RUNNER_IO_H */
