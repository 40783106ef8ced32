/*
 * proc.h - starting child programs: the one spawner of the engine and the
 * agents (base/proc.c, base/spawn.c).  (Runners are started by the
 * runner client, eval/runner_client.c, which needs sockets and sealed
 * shared memory; it sets the same parent-death signal.)
 *
 * Every child gets, whichever call starts it: argv as a vector (never a
 * shell string; argv[0] searched in PATH), its own process group (so the
 * whole tree it starts can be killed), SIGKILL when the thread that
 * started it dies (PR_SET_PDEATHSIG: a killed controller leaves no
 * compiler or agent behind), stdin from a file or /dev/null, and a
 * deadline after which its group is killed.  After the leader exits the
 * group is killed too, so nothing it left in the background runs on.
 *
 * Two ways to run one:
 *   proc_run_capture()  short tools (compilers, probes, sbatch): output
 *                       captured in memory, capped; SIGKILL at the
 *                       deadline; returns when the output pipe closes.
 *   proc_spawn()        agents: output streamed to log files (capped) and
 *                       to a callback, stdout apart from stderr when asked,
 *                       environment added to or replaced; SIGTERM at the
 *                       deadline, SIGKILL after a grace period.
 */
#ifndef ARENA_PROC_H
#define ARENA_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "arena/util.h"

struct confine_prep;

/* ---- short tools, output captured ------------------------------------ */

/* Runs argv (argv[0] searched in PATH) in cwd (NULL = current), stdin from
 * /dev/null, stdout+stderr captured (at most out_max bytes kept, the rest
 * counted and dropped), in its own process group, killed (group SIGKILL)
 * after timeout_ms (0 = none).  *status gets the wait status; *timed_out
 * is set when the deadline hit.  Returns 0 when the process ran (whatever
 * its exit status), negative errno when it could not be started. */
struct proc_result {
	int status;
	bool timed_out;
	char *output;	/* captured stdout+stderr, NUL-terminated, owned */
	size_t output_len;
	double seconds;
};
int proc_run_capture(char *const argv[], const char *cwd,
		     char *const envp[], int timeout_ms, size_t out_max,
		     struct proc_result *res, struct errbuf *err);

/* Resource limits for a child (0 = leave as inherited). */
struct proc_limits {
	uint64_t as_bytes;    /* RLIMIT_AS */
	uint64_t data_bytes;  /* RLIMIT_DATA */
	uint64_t cpu_s;	      /* RLIMIT_CPU (soft; hard 5 s above) */
	uint64_t fsize_bytes; /* RLIMIT_FSIZE */
};

/* proc_run_capture() with more say over the child: its limits, and a
 * confinement (arena/confine.h) to run it in, where argv[0] and cwd are
 * inside paths.  Every descriptor but 0-2 is closed in the child. */
struct proc_capture {
	char *const *argv;
	const char *cwd;
	char *const *envp; /* NULL: inherited */
	int timeout_ms;
	size_t out_max;
	const struct proc_limits *limits;   /* or NULL */
	const struct confine_prep *confine; /* or NULL */
};
int proc_run(const struct proc_capture *c, struct proc_result *res,
	     struct errbuf *err);
void proc_result_release(struct proc_result *res);
/* "exited with status 3", "killed by signal 11 (Segmentation fault)". */
void proc_describe_status(int status, char *buf, size_t n);
/* Whether process pid exists and is not a zombie (killed, not yet reaped:
 * kill(pid, 0) still succeeds for those).  Another process may have taken
 * the pid over; callers that care pair it with a lock or a lease. */
bool proc_alive(pid_t pid);
/* Sends SIGKILL to every child of this process - forked by any of its
 * threads - and to the process group each child leads (every child
 * started here leads one: its compilers' and runners' own children are
 * in it); returns how many children it found, zombies included, so 0
 * means none is left to reap.  Reads /proc/self/task/<tid>/children
 * (CONFIG_PROC_CHILDREN: without it, it finds none).  System calls and
 * stack buffers only: safe in the child of a threaded process. */
int proc_kill_children(void);

/* ---- agents, output streamed ------------------------------------------ */

#define PROC_LOG_MAX ((size_t)16 << 20)	/* bytes of output kept */
#define PROC_KILL_GRACE_S 5.0

/* What proc_spawn() runs.  Agent CLIs that report in JSON need their
 * stdout apart from stderr: with stdout_path or on_stdout set, stdout goes
 * to its own pipe (copied to stdout_path, capped, and handed whole to
 * on_stdout as it arrives) and the log receives stderr only.  env_replace
 * makes env_add the complete environment, so a launcher decides exactly
 * what an agent sees. */
struct proc_spec {
	char *const *argv;		/* argv[0] searched in PATH */
	const char *cwd;
	const char *stdin_path;		/* NULL: /dev/null */
	const char *log_path;		/* stdout+stderr; NULL: discarded */
	const struct strvec *env_add;	/* "NAME=value" entries, or NULL */
	double timeout_s;		/* <= 0: none */
	/* Optional (zero = the behaviour above). */
	bool env_replace;		/* env_add is the whole environment */
	const char *stdout_path;	/* stdout alone, capped; NULL: none */
	/* Called with every chunk of stdout as it arrives, uncapped. */
	void (*on_stdout)(void *ctx, const char *data, size_t n);
	void *on_stdout_ctx;
	double kill_grace_s;		/* <= 0: PROC_KILL_GRACE_S */
	/* Every process the program starts ends with it (base/contain.h):
	 * it runs under a holder of ours, in a PID namespace of its own
	 * where the kernel allows, else as a child subreaper's; when it
	 * exits (or is stopped) everything it left is killed before
	 * proc_spawn returns. */
	bool contain;
	const struct proc_limits *limits; /* for the program, or NULL */
	/* Called about every 250 ms while the program runs; a non-NULL
	 * sentence stops it (its processes killed, res->stopped set, the
	 * sentence copied to res->stop_reason). */
	const char *(*on_tick)(void *ctx);
	void *on_tick_ctx;
};

struct proc_spawn_result {
	int status;		/* wait status */
	bool timed_out;
	double seconds;
	size_t output_bytes;	/* total written by the program (stdout and
				 * stderr together) */
	size_t stdout_bytes;	/* of which on stdout, when split */
	/* With contain: how (PROC_CONTAINED_NS, _SUBREAPER), and how many
	 * processes were still running after the program exited and were
	 * killed. */
	int contained;
	int leftovers;
	bool stopped; /* on_tick stopped it */
	char stop_reason[512];
};

enum { PROC_CONTAINED_NONE = 0, PROC_CONTAINED_NS, PROC_CONTAINED_SUBREAPER };

/* Returns 0 when the program ran (whatever its status), a negative errno
 * with a message when it could not be started. */
int proc_spawn(const struct proc_spec *spec, struct proc_spawn_result *res,
	       struct errbuf *err);

/* ---- shared by both (base/proc.c) ------------------------------------- */

/* In a child just forked by process `parent` (its pid before the fork):
 * its own process group, SIGKILL when the parent dies (and _exit at once
 * when it already has), stdin from stdin_path (NULL or unreadable:
 * /dev/null), stdout and stderr onto out_fd and err_fd, then cwd.  Returns
 * only on success; on failure writes why to fd 2 and exits 127. */
void proc_child_setup(pid_t parent, const char *stdin_path, int out_fd,
		      int err_fd, const char *cwd);
/* In a child: applies lim (NULL: nothing).  Async-signal-safe. */
void proc_child_limits(const struct proc_limits *lim);
/* In a child: closes every descriptor from `from` up.  Async-signal-safe. */
void proc_child_close_from(int from);

#endif /* ARENA_PROC_H */
