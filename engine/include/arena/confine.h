/*
 * confine.h - the confinement of every process that runs agent or
 * candidate code (DESIGN.md §3.8, §3.11): the candidate's compiler, the
 * host and GPU runners, and the agents.  One module (base/confine.c: the
 * plans and profiles; base/confine_ns.c: entering a plan from a child
 * process) so that all four see the same allow-list.
 *
 * A plan is an allow-list of what a confined process sees, built on an
 * empty root:
 *   - read-only system directories: /usr, /bin, /sbin, /lib*, /etc (merged
 *     /usr links are recreated as links); the agent profile adds the GPU
 *     toolchains (/opt/rocm, /opt/nvidia, /opt/cuda, $CUDA_HOME, ...,
 *     where nvcc and hipcc are), not the rest of /opt;
 *   - a minimal /dev (null, zero, full, random, urandom, a private
 *     /dev/shm), GPU device nodes for the GPU runner and agents, a fresh
 *     /proc of the process's own PID namespace, a private /tmp;
 *   - what the profile needs and nothing more: the compiler its scratch
 *     directory (read-write, at /build) and arena's public include
 *     directory (at /arena/include); a runner its own binary (at
 *     /arena/bin); the GPU runner the directories of the GPU libraries
 *     (ldconfig's cache and LD_LIBRARY_PATH) and /sys; an agent its
 *     workspace, its private HOME and the programs it runs;
 *   - masks laid over whatever an allowed directory would otherwise show
 *     of arena's secrets: the task catalogue wherever it is (the one in
 *     use, $ARENA_TASKS_DIR, installed copies under share/arena/tasks),
 *     the caller's hidden paths (the store, its cache, other runs), and
 *     /etc's secrets (shadow files, ssh host keys, private TLS keys).
 * and new PID, IPC and UTS namespaces (and network, except for agents,
 * which must reach their model's API).
 *
 * Two ways to enter a plan:
 *   - in-process (runners, compilers): confine_prepare() in the parent,
 *     confine_clone() instead of fork(), confine_enter() in the child
 *     before exec.  The child is then the first process (pid 1) of its
 *     PID namespace and the caller's direct child, so waiting, stopping
 *     and CPU accounting by pid work as for a plain fork.  Root callers
 *     mount directly; others in a user namespace mapping only their own
 *     uid.
 *   - bubblewrap (agents): confine_bwrap_argv() renders the same plan as
 *     bwrap options (agents/sandbox).
 *
 * Whether it works here is probed once per process (confine_available);
 * $ARENA_SANDBOX=off turns the evaluator's confinement off, =on makes its
 * absence an error.  Callers record whether it was on: a result's
 * `sandboxed` field is true only when it really was.
 */
#ifndef ARENA_CONFINE_H
#define ARENA_CONFINE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "arena/util.h"

/* Where the profiles put things inside a confined process. */
#define CONFINE_BUILD_DIR "/build"
#define CONFINE_INCLUDE_DIR "/arena/include"
#define CONFINE_BIN_DIR "/arena/bin"

enum confine_op_kind {
	CO_RO_BIND,  /* src (file or directory) at dst, read-only */
	CO_RW_BIND,  /* src at dst, writable */
	CO_DEV_BIND, /* a device node or directory of them */
	CO_TMPFS,    /* an empty, writable tmpfs of `size` bytes at dst */
	CO_MASK,     /* dst shows nothing: empty read-only tmpfs over a
			 * directory, /dev/null over a file */
	CO_SYMLINK,  /* dst is a symbolic link to src */
	CO_DEVFS,    /* a minimal /dev at dst */
	CO_PROC,     /* the PID namespace's own /proc at dst */
};

struct confine_op {
	enum confine_op_kind kind;
	char *src;   /* outside path (binds), link target */
	char *dst;   /* inside path */
	bool dir;    /* src is a directory (binds, masks) */
	size_t size; /* tmpfs bytes; 0: the kernel's default */
};

struct confine_plan {
	struct confine_op *ops;
	size_t n, alloc;
	bool share_net; /* keep the caller's network */
	char *cwd;	/* inside; NULL: / */
	/* The outside paths a plan must never show (masks are laid over
	 * those under an allowed directory; binds of them are refused). */
	struct strvec hidden;
};

void confine_plan_init(struct confine_plan *p);
void confine_plan_release(struct confine_plan *p);

/* Adding to a plan (paths absolute; copied).  Binds take src's resolved
 * path; a src that does not exist is skipped (returns false). */
bool confine_bind(struct confine_plan *p, enum confine_op_kind kind,
		  const char *src, const char *dst);
void confine_tmpfs(struct confine_plan *p, const char *dst, size_t size);
void confine_symlink(struct confine_plan *p, const char *target,
		     const char *dst);
/* Adds path (and its resolved form) to the hidden set. */
void confine_hide(struct confine_plan *p, const char *path);
/* Adds path to what every plan this process builds from now on hides,
 * besides the catalogue: the directories of registered task roots
 * (task_root_add) and a run's places outside the store (run_places.c),
 * wherever they lie.  Thread-safe; a path added twice is kept once. */
void confine_hide_always(const char *path);

/* ---- profiles ---------------------------------------------------------- */

enum confine_profile {
	CONFINE_COMPILER,   /* the candidate's compiler */
	CONFINE_RUNNER,	    /* a host runner */
	CONFINE_GPU_RUNNER, /* a GPU runner */
	CONFINE_AGENT,	    /* an agent (rendered for bubblewrap) */
};

struct confine_spec {
	enum confine_profile profile;
	const char *scratch;	   /* compiler: its build directory */
	const char *tool;	   /* compiler: the compiler's path, whose
					 * install root is shown */
	const char *runner;	   /* runners: the binary */
	const char *workspace;	   /* agent: read-write, the cwd */
	const struct strvec *rw;   /* agent: more writable paths */
	/* agent: programs and data it needs; compiler: the headers and
	 * libraries a build needs beyond the toolchain (a PyTorch
	 * extension's torch, wherever that interpreter keeps it) */
	const struct strvec *ro;
	const struct strvec *hide; /* store, cache, tasks root, ... */
	size_t tmp_bytes;	   /* agent: /tmp, /var/tmp; 0: 1 GiB */
};

/* Builds the plan of a profile (the allow-list above, then the masks).
 * The caller's hidden paths are added to the catalogue locations every
 * plan hides. */
void confine_plan_for(const struct confine_spec *s, struct confine_plan *p);

/* The inside path of a runner binary under confine_plan_for(). */
char *confine_runner_inside(const char *runner);

/* ---- entering a plan in-process ---------------------------------------- */

/* A plan made ready for a child process: every string the child needs,
 * computed in the parent (the child of a threaded process may not
 * allocate). */
struct confine_prep;

/* Returns a prepared plan (caller frees with confine_prep_free), or NULL
 * with err set. */
struct confine_prep *confine_prepare(const struct confine_plan *p,
				     struct errbuf *err);
void confine_prep_free(struct confine_prep *cp);

/* Like fork(), into the new namespaces of cp (the child is pid 1 of its
 * PID namespace).  Parent: the child's pid; child: 0; -1 with errno on
 * failure.  SIGCHLD is sent at the child's exit. */
pid_t confine_clone(const struct confine_prep *cp);

/* In the child of confine_clone(): builds the root of the plan, enters it
 * and changes to its cwd.  Async-signal-safe.  0 on success; otherwise
 * -errno and *what names the step that failed (a static string). */
int confine_enter(const struct confine_prep *cp, const char **what);

/* Exit status a child uses when confine_enter() failed (before exec). */
#define CONFINE_EXIT_FAILED 126

/* Whether the in-process confinement works here (probed once per process
 * by confining /bin/true under the runner profile); *why (may be NULL)
 * gets the reason when not, or when $ARENA_SANDBOX=off. */
bool confine_available(const char **why);
/* $ARENA_SANDBOX=on: confinement is required (an evaluation that cannot
 * have it fails instead of running unconfined). */
bool confine_required(void);

/* ---- rendering for bubblewrap ------------------------------------------ */

/* Appends the bwrap options that build plan p (the namespaces included;
 * not the bwrap path, not the final "--"). */
void confine_bwrap_argv(const struct confine_plan *p, struct strvec *out);

#endif /* ARENA_CONFINE_H */
