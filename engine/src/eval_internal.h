/*
 * eval_internal.h - the evaluator's private modules (not part of the
 * engine's API): compilation with an artifact cache (compile.c), input
 * generation and poisoning (inputs.c), output comparison (eval_compare.c) and
 * the controller's side of the runner protocol (runner_client.c).  eval.c
 * ties them together; docs/evaluator.md explains the whole.
 */
#ifndef ARENA_EVAL_INTERNAL_H
#define ARENA_EVAL_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "arena/kernel.h"
#include "arena/stats.h"
#include "arena/task.h"
#include "arena/util.h"
#include "../runner/runner_proto.h"

/* ---- sources and compilation (compile.c) ----------------------------- */

#define SOURCES_MAX_FILES 64
#define SOURCES_MAX_BYTES (1024 * 1024)	/* per file */

/* A snapshot of source files, read once: what is hashed is exactly what
 * is compiled, whatever happens to the directory meanwhile. */
struct source_set {
	int n;
	char *path[SOURCES_MAX_FILES];	/* relative, owned */
	char *data[SOURCES_MAX_FILES];	/* owned, NULL when missing */
	size_t len[SOURCES_MAX_FILES];
	char sha256[SOURCES_MAX_FILES][65];	/* "-" when missing */
};

/* Reads dir/rel for every rel in files.  No path component may be a
 * symbolic link (a workspace link must not make the controller read a
 * file the agent cannot); a missing file is recorded as missing, not an
 * error; files over SOURCES_MAX_BYTES and non-regular files are errors. */
int sources_read(const char *dir, const struct strvec *files,
		 struct source_set *out, struct errbuf *err);
void sources_release(struct source_set *s);

struct build_spec {
	const char *role;		/* "candidate", "baseline", "reference" */
	const struct source_set *src;	/* copied into the build dir */
	const struct strvec *compile;	/* the paths of src to compile */
	const char *extra_include;	/* a trusted -I dir (task dir) or NULL */
	const struct strvec *flags;	/* the task's compile_flags */
	const struct strvec *defines;	/* NAME=VALUE, or NULL */
	const char *cache_dir;
	double timeout_s;
	const char *log_path;		/* compiler output, or NULL */
};

struct build_out {
	char *so_path;		/* owned; the cached artifact */
	bool cached;		/* found in the cache, not built */
	char *message;		/* compile failure, owned; NULL on success */
};

/* Builds (or finds in <cache_dir>/artifacts) the shared object for spec.
 * Returns 0 with out->so_path set, 0 with out->message set when the
 * sources do not compile (a verdict), or a negative errno when the build
 * could not take place at all. */
int compile_build(const struct build_spec *spec, struct build_out *out,
		  struct errbuf *err);
void build_out_release(struct build_out *o);
/* "<path of cc>: <first line of cc --version>" (caller frees), or NULL. */
char *compile_compiler_id(void);

/* ---- case layout, inputs, poison (inputs.c) -------------------------- */

struct case_layout {
	int nargs;
	size_t shm_size;
	size_t offset[TASK_MAX_ARGS];
	size_t bytes[TASK_MAX_ARGS];
	int64_t numel[TASK_MAX_ARGS];
	int64_t shape[TASK_MAX_ARGS][ARENA_MAX_RANK];
	int64_t lo[TASK_MAX_ARGS], hi[TASK_MAX_ARGS];	/* randint bounds */
	char *proto;	/* "<size> <nargs> <nparams> ..." for `layout` */
};

/* Evaluates shapes and bounds for case c and places every argument at a
 * RP_ALIGN-aligned offset. */
int layout_build(const struct task *t, const struct task_case *c,
		 struct case_layout *l, struct errbuf *err);
void layout_release(struct case_layout *l);

/* Fills dst with numel fresh values of argument a drawn from r. */
void inputs_fill(const struct task *t, const struct case_layout *l, int a,
		 struct rng *r, void *dst);

/* Per argument pre-drawn values from which timing pairs take fresh inputs
 * cheaply: a random window of the pool with every element randomly
 * reflected about the centre of its distribution (see inputs.c). */
struct input_pool {
	int nargs;
	double *fv[TASK_MAX_ARGS];	/* float args: 2 * numel values */
	int64_t *iv[TASK_MAX_ARGS];	/* integer args */
	double centre[TASK_MAX_ARGS];
};
void pool_build(const struct task *t, const struct case_layout *l,
		struct rng *r, struct input_pool *p);
void pool_draw(const struct task *t, const struct case_layout *l,
	       const struct input_pool *p, int a, struct rng *r, void *dst);
void pool_release(struct input_pool *p);

/* Output poison: pattern 0 and 1 differ in every byte (NaNs with distinct
 * payloads for floating point, 0xA5 / 0x5A bytes for integers). */
void poison_fill(arena_dtype d, void *dst, int64_t numel, int pattern);
bool poison_is(arena_dtype d, const void *elem, int pattern);

/* Conversions for 16-bit floating point. */
float half_to_float(uint16_t h);
uint16_t float_to_half(float f);
float bf16_to_float(uint16_t h);
uint16_t float_to_bf16(float f);
/* Element i of an array of dtype d as a double. */
double elem_as_double(arena_dtype d, const void *base, int64_t i);

/* ---- comparison (eval_compare.c) --------------------------------------- */

struct cmp_result {
	bool ok;
	int64_t nbad;		/* elements failing */
	int64_t first_bad;	/* index of the first, -1 if none */
	bool unwritten;		/* the first bad one still held the poison */
	double max_abs_err;	/* over finite pairs */
	char detail[384];	/* "got 1.5, expected 2 (|diff| ... )" */
};

/* Compares got with want (numel elements of d).  Floating point: |g - w| <=
 * atol + rtol * |w|; non-finite g where w is finite fails; NaN w needs NaN
 * g, an infinite w the same infinity.  Integers: equality.  poison_pattern
 * (0/1, or -1 for none) names the poison the output was filled with. */
void compare_arrays(arena_dtype d, const void *got, const void *want,
		    int64_t numel, double atol, double rtol,
		    int poison_pattern, struct cmp_result *res);
/* "[3, 17]" for flat index i of shape (rank dims), into buf. */
void format_index(const int64_t *shape, int rank, int64_t i, char *buf,
		  size_t n);

/* ---- runner client (runner_client.c) --------------------------------- */

enum runner_fail {
	RUNNER_OK = 0,
	RUNNER_TIMEOUT,		/* missed a deadline; killed */
	RUNNER_DIED,		/* exited or was killed by a signal */
	RUNNER_FORBIDDEN,	/* killed by the seccomp filter */
	RUNNER_PROTOCOL,	/* unexpected bytes on the control channel */
	RUNNER_LOAD,		/* could not load the object or its entry */
	RUNNER_REFUSED,		/* answered `error` to a request */
	RUNNER_SYSTEM,		/* the controller could not do its part */
};

struct runner_spec {
	const char *runner_path;
	const char *so_path;
	const char *entry;
	const char *role;	/* for messages */
	size_t shm_size;
	int log_fd;		/* runner stdout+stderr; -1 = /dev/null */
	uint64_t as_limit;	/* RLIMIT_AS in bytes; 0 = none */
	int timeout_ms;		/* per request */
};

struct runner {
	pid_t pid;		/* also the process group id; 0 = none */
	int sock;
	unsigned char *shm;	/* the controller's mapping */
	size_t shm_size;
	char role[16];
	uint64_t seq;
	int timeout_ms;
	bool stopped;		/* SIGSTOPped and seen stopped */
	bool reaped;
	bool sandboxed;		/* hello said "seccomp,landlock" */
	int status;		/* wait status once reaped */
	char why[512];		/* last failure, a clause: "was killed by ..." */
	size_t blen;
	char buf[RP_MAX_LINE + 1];	/* bytes received, not yet a line */
	char line[RP_MAX_LINE + 1];	/* the last line read */
};

/* Starts a runner and waits for `ready`.  On failure everything is torn
 * down and r->why says why.  r must be zeroed (runner_new does that). */
struct runner *runner_new(void);
enum runner_fail runner_start(struct runner *r, const struct runner_spec *s);
enum runner_fail runner_layout(struct runner *r, const char *proto);
enum runner_fail runner_call(struct runner *r, int *rc);
enum runner_fail runner_flush(struct runner *r, size_t bytes);
/* claim: the runner's own time; wall: the controller's, send to reply. */
enum runner_fail runner_time(struct runner *r, int *rc, int64_t *claim_ns,
			     int64_t *wall_ns);
enum runner_fail runner_ping(struct runner *r);
/* Stops the whole process group and waits until the runner is stopped;
 * every reply above leaves the runner stopped this way. */
enum runner_fail runner_pause(struct runner *r);
/* Threads of the runner and children of any of them (only meaningful
 * while it is stopped). */
int runner_census(struct runner *r, int *threads, int *children);
/* Kills the process group, reaps, unmaps, closes and frees; NULL ok. */
void runner_destroy(struct runner *r);

#endif /* ARENA_EVAL_INTERNAL_H */
