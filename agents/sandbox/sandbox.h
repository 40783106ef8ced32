/*
 * sandbox.h - running an agent inside bubblewrap (DESIGN.md §3.8, §3.11),
 * and the limits of one agent launch.
 *
 * The view an agent gets is the agent profile of arena/confine.h, the one
 * confinement module of the engine, rendered as bwrap options: an
 * allow-list on an empty root -
 *   - the system directories read-only (/usr, /bin, /sbin, /lib*, /etc
 *     without its secrets, the GPU toolchains), /sys read-only, a fresh
 *     /dev with the
 *     GPU device nodes, its own /proc, private /tmp and /var/tmp of a
 *     bounded size;
 *   - the attempt's workspace read-write at its own path (its cwd), the
 *     launch's scratch directory (private HOME, evaluation socket)
 *     read-write, and read-only what it runs and reads (the CLI's install
 *     root, the arena binary, a command agent's program and the files
 *     named in its argv, the prompt);
 *   - masks over whatever of the store, the task catalogue (wherever it
 *     is) and the caller's hidden paths an allowed directory would show;
 * so the reference sources, held-out cases, frozen baselines, other runs,
 * other stores, the database and the evaluation cache are out of sight,
 * wherever they are on disk.  Its own user, PID, IPC and UTS namespaces
 * (a root caller is uid 1000 inside, so CLIs that refuse to run as root
 * run, and files it writes are owned by the caller outside), a new
 * session (no TIOCSTI into our terminal), killed when its parent dies;
 * the network kept: a CLI must reach its model's API.
 *
 * Every arena mount (`arena mount`, wherever it is mounted) is one of the
 * hidden paths (sandbox_hide_arena_mounts()): other runs, other tasks'
 * results, reports and the task catalogue are out of sight through it;
 * when the agent's workspace is inside one, that workspace is bound at
 * its own path read-write and its own `score` and `task_result.yaml`
 * read-only (they never show held-out cases).
 */
#ifndef ARENA_AGENTS_SANDBOX_H
#define ARENA_AGENTS_SANDBOX_H

#include <stdbool.h>
#include <stdint.h>
#include "arena/proc.h"
#include "arena/util.h"

#define SANDBOX_UID 1000	/* what a root caller becomes inside */

struct sandbox_spec {
	const char *workspace;		/* bound read-write; the cwd */
	struct strvec hide;		/* never shown (store, tasks, ...) */
	struct strvec expose_ro;	/* shown read-only at their paths */
	struct strvec bind_rw;		/* shown read-write (HOME copy, ...) */
	bool share_net;			/* keep the network */
	size_t tmp_bytes;		/* /tmp and /var/tmp; 0: 256 MiB */
};

void sandbox_spec_init(struct sandbox_spec *s);
void sandbox_spec_release(struct sandbox_spec *s);

/* Whether bubblewrap works here (probed once per process by running
 * `true` under the agent profile).  When not, *why (may be NULL) gets the
 * reason: not installed, or namespaces refused.  $ARENA_BWRAP names
 * another bwrap binary. */
bool sandbox_available(const char **why);
/* The bwrap path in use (borrowed). */
const char *sandbox_bwrap_path(void);

/* Appends the bwrap command line for spec to out, ending with "--"; the
 * agent's own argv follows.  Paths in spec must be absolute. */
void sandbox_argv(const struct sandbox_spec *s, struct strvec *out);

/* Adds every arena mount of this machine (/proc/self/mountinfo, type
 * fuse.arena) to s->hide, and, when s->workspace lies inside one, the
 * score and task_result.yaml beside it to s->expose_ro.  Call it after
 * s->workspace is set. */
void sandbox_hide_arena_mounts(struct sandbox_spec *s);

/* True when path equals dir or lies below it (both absolute). */
bool path_is_under(const char *path, const char *dir);

/* ---- the limits of one launch ------------------------------------------ */

/* A launch's disk quota and memory limit (agent.disk_quota_mb,
 * agent.memory_mb): every file the agent writes is capped by
 * RLIMIT_FSIZE at the quota, the workspace and the launch's scratch
 * directory together are measured every 250 ms while it runs, and memory
 * is RLIMIT_DATA per process. */
struct sandbox_limits {
	const char *workspace;
	const char *scratch;   /* or NULL */
	uint64_t disk_bytes;   /* 0: no quota */
	uint64_t memory_bytes; /* 0: no limit */
	uint64_t used;	       /* the last measurement */
	char why[320];	       /* set when over the quota */
	/* Polled about once a second by sandbox_launch_tick (may be NULL):
	 * true when the launch must stop although it is within its limits
	 * (agent_launch.cancelled). */
	bool (*cancelled)(void *ctx);
	void *cancelled_ctx;
	uint64_t cancel_polled_ns; /* now_ns() of the last poll */
	bool was_cancelled;    /* set when that stopped the launch */
};

/* The process limits that go with l (for proc_spec.limits). */
void sandbox_proc_limits(const struct sandbox_limits *l,
			 struct proc_limits *out);
/* proc_spec.on_tick for a struct sandbox_limits: a sentence once the
 * workspace and scratch directory hold more than the quota, else NULL. */
const char *sandbox_quota_tick(void *limits);
/* proc_spec.on_tick for a whole launch: sandbox_quota_tick's sentence,
 * else, once limits->cancelled says so, "its run was cancelled" with
 * limits->was_cancelled set (the workspace is left as it is: the agent
 * runs again on it when the run is resumed). */
const char *sandbox_launch_tick(void *limits);
/* After an agent was stopped over its quota: removes every file of the
 * workspace but the editable ones and TASK.md, so the store keeps
 * nothing of what it wrote besides its sources.  Returns how many files
 * and directories went. */
int sandbox_quota_clean(const char *workspace, const struct strvec *editable);

#endif /* ARENA_AGENTS_SANDBOX_H */
