/*
 * contain.h - an init for one agent's processes (private to base: used by
 * spawn.c for proc_spec.contain).
 *
 * The agent program does not run as our child but as the child of a small
 * init of ours (the "holder"), so that every process it starts - setsid
 * daemons, double forks, a server left listening - can be found and
 * killed when the agent ends, before anything reads its workspace:
 *
 *   - where the kernel allows, the holder is pid 1 of a new PID namespace
 *     (a user namespace too when the caller is not root): when the agent
 *     exits the holder kills every other process of the namespace
 *     (kill(-1) inside it reaches them all and nothing outside) and reaps
 *     them until it is alone, and when the holder itself dies the kernel
 *     kills whatever is left;
 *   - elsewhere the holder is a child subreaper (PR_SET_CHILD_SUBREAPER):
 *     orphans of the agent's tree are re-parented to it, and after the
 *     agent exits it kills its children, which re-parents theirs, until it
 *     has none.  A process that left the tree by other means (started
 *     through another service) escapes this; the namespace does not let
 *     that happen.
 *
 * The holder reports the agent's wait status and how many processes it
 * had to kill after the agent exited on a pipe.  It asks nothing of the
 * C library that may allocate or lock: it runs in the child of a threaded
 * process.
 */
#ifndef ARENA_BASE_CONTAIN_H
#define ARENA_BASE_CONTAIN_H

#include <stdbool.h>
#include <sys/types.h>

#include "arena/proc.h"

/* What the holder tells its parent on the report pipe. */
struct contain_report {
	int status;    /* the agent's wait status */
	int leftovers; /* processes killed after the agent exited */
};

/* Ready-made strings for a holder that needs a user namespace. */
struct contain_prep {
	bool userns;
	bool no_ns; /* $ARENA_CONTAIN=subreaper: the fallback only */
	char uid_map[48], gid_map[48];
};

void contain_prepare(struct contain_prep *cp);

/* Starts the holder like fork(): in a new PID namespace when the kernel
 * allows (*in_ns true), else as a plain child (*in_ns false).  Parent: the
 * holder's pid; child: 0; -1 with errno when neither works. */
pid_t contain_fork(const struct contain_prep *cp, bool *in_ns);

/* In the holder (after its stdio is set up): writes the user namespace's
 * maps when there is one, starts argv with envp and limits, waits for it,
 * kills everything it left, writes a struct contain_report to report_fd
 * and exits.  SIGUSR1 to the holder kills the agent at once (the sweep
 * follows); SIGTERM is passed on to the agent's process group. */
void contain_run(const struct contain_prep *cp, bool in_ns, int report_fd,
		 char *const argv[], char *const envp[],
		 const struct proc_limits *limits) __attribute__((noreturn));

#endif /* ARENA_BASE_CONTAIN_H */
