/*
 * sandbox.h - running an agent CLI inside bubblewrap (DESIGN.md §3.8).
 *
 * The sandbox an agent gets:
 *   - the root file system read-only (`--ro-bind / /`), a fresh /dev with
 *     the GPU device nodes bound in, a fresh /proc;
 *   - a private, empty /tmp and an empty tmpfs over the caller's real
 *     HOME (credentials of other tools stay out of reach); HOME inside is
 *     a per-launch copy holding only the CLI's own auth files;
 *   - the store root and the tasks root replaced by empty tmpfs, so the
 *     reference sources, held-out cases, frozen baselines, other runs and
 *     the evaluation cache are invisible; only the attempt's workspace is
 *     bound back, read-write, at its own path;
 *   - paths the CLI needs that lie under a hidden directory (its install
 *     prefix, the arena binary) bound back read-only;
 *   - its own user, PID, IPC and UTS namespaces (a root caller is uid 1000
 *     inside, so CLIs that refuse to run as root run, and files it writes
 *     are owned by the caller outside), a new session (no TIOCSTI into our
 *     terminal), killed when its parent dies;
 *   - the network kept: the CLI must reach its model API.  (Runners, the
 *     evaluator's side, get no network; that is the evaluator's sandbox.)
 *
 *   - every arena mount (`arena mount`, wherever it is mounted) replaced
 *     by an empty tmpfs: other runs, other tasks' results, reports and the
 *     task catalogue are out of sight; when the agent's workspace is
 *     inside one, that workspace is bound back read-write and its own
 *     `score` and `task_result.yaml` read-only (they never show held-out
 *     cases);
 *
 * Mount order matters and is fixed here: tmpfs over /tmp and HOME, then the
 * read-only exposures, then tmpfs over the store and tasks roots, then the
 * writable binds.  Later mounts cover earlier ones.
 */
#ifndef ARENA_AGENTS_SANDBOX_H
#define ARENA_AGENTS_SANDBOX_H

#include <stdbool.h>
#include "arena/util.h"

#define SANDBOX_UID 1000	/* what a root caller becomes inside */

struct sandbox_spec {
	const char *workspace;		/* bound read-write; the cwd */
	struct strvec hide;		/* emptied with tmpfs (besides /tmp) */
	struct strvec expose_ro;	/* bound back read-only */
	struct strvec bind_rw;		/* bound read-write (HOME copy, ...) */
	bool share_net;			/* keep the network */
};

void sandbox_spec_init(struct sandbox_spec *s);
void sandbox_spec_release(struct sandbox_spec *s);

/* Whether bubblewrap works here (probed once per process by running
 * `true` in the full recipe).  When not, *why (may be NULL) gets the
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

#endif /* ARENA_AGENTS_SANDBOX_H */
