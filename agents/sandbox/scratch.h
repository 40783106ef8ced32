/*
 * scratch.h - an agent launch's scratch directory, /tmp/arena-agent-XXXXXX
 * (the agent's private HOME, the evaluation bridge's socket): made and
 * held while the launch lives, removed when it ends, and swept when the
 * launch was killed before it could remove it (kill -9 of the executor).
 *
 * A launch holds an exclusive flock(2) on its directory for as long as it
 * lives, through a close-on-exec descriptor, so neither the agent nor
 * anything it starts holds it; a directory nobody holds, unchanged for
 * AGENT_SCRATCH_STALE_S, belonged to a launch that is gone.  Sweeping
 * happens when a launch makes its own.
 */
#ifndef ARENA_AGENTS_SCRATCH_H
#define ARENA_AGENTS_SCRATCH_H

#include "arena/util.h"

#define AGENT_SCRATCH_PREFIX "arena-agent-"
#define AGENT_SCRATCH_STALE_S 600.0

struct agent_scratch {
	char *path;	/* NULL when there is none */
	int lock_fd;	/* holds the flock; -1 when none */
};
#define AGENT_SCRATCH_INIT { .path = NULL, .lock_fd = -1 }

/* Sweeps dead launches' directories from /tmp, then makes and locks a
 * fresh one in s. */
int agent_scratch_make(struct agent_scratch *s, struct errbuf *err);
/* The same in dir instead of /tmp (tests). */
int agent_scratch_make_in(const char *dir, struct agent_scratch *s,
			  struct errbuf *err);
/* Removes s's directory and lets go of it (safe on a zeroed s after
 * agent_scratch_init). */
void agent_scratch_remove(struct agent_scratch *s);
void agent_scratch_init(struct agent_scratch *s);

/* Removes every directory dir/AGENT_SCRATCH_PREFIX* of this user that
 * no launch holds and whose last change is at least min_age_s old;
 * returns how many. */
int agent_scratch_sweep(const char *dir, double min_age_s);

#endif
