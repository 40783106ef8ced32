/*
 * fsv_root.c - the roots of the pass-through subtrees, and finished is
 * final.
 *
 * A pass-through node belongs to the root it was reached through: the
 * task packages (read-only, always) or one attempt's workspace.  A
 * workspace is read-write while its attempt is not done, and read-only
 * (EROFS, write bits hidden) once it is: the attempt's final result is
 * then fixed (DESIGN.md §3.11; the engine never replaces it either), and
 * a workspace that no longer changes is what that result describes.
 *
 * Whether an attempt is done is asked of the store when a change is
 * attempted, at most every FSV_FINAL_CHECK_S per workspace; once done it
 * stays done, so the answer is then kept for good.  A change that starts
 * within FSV_FINAL_CHECK_S of the attempt becoming done may still land in
 * the real directory; it cannot touch the final result, which the engine
 * never recomputes.
 *
 * Locking: fs->roots_lock guards the list and the final/checked fields;
 * it is never held across a store access.
 */
#include "fsv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void fsv_roots_init(struct fsv *fs)
{
	pthread_mutex_init(&fs->roots_lock, NULL);
	memset(&fs->tasks_root, 0, sizeof(fs->tasks_root));
	fs->tasks_root.readonly = true;
	fs->tasks_root.final = true;
	fs->roots = NULL;
}

void fsv_roots_free(struct fsv *fs)
{
	while (fs->roots) {
		struct fsv_root *next = fs->roots->next;
		free(fs->roots->run);
		free(fs->roots->dirname);
		free(fs->roots->task_id);
		free(fs->roots);
		fs->roots = next;
	}
	pthread_mutex_destroy(&fs->roots_lock);
}

struct fsv_root *fsv_root_workspace(struct fsv *fs, const char *run,
				    const char *dirname, const char *task_id,
				    int attempt)
{
	struct fsv_root *r;

	pthread_mutex_lock(&fs->roots_lock);
	for (r = fs->roots; r; r = r->next)
		if (!strcmp(r->run, run) && !strcmp(r->dirname, dirname))
			break;
	if (!r) {
		r = xcalloc(1, sizeof(*r));
		r->run = xstrdup(run);
		r->dirname = xstrdup(dirname);
		r->task_id = xstrdup(task_id);
		r->attempt = attempt;
		r->next = fs->roots;
		fs->roots = r;
	}
	pthread_mutex_unlock(&fs->roots_lock);
	return r;
}

/* Asks the store whether r's attempt is done. */
static bool attempt_done(struct fsv *fs, const struct fsv_root *r)
{
	struct store_attempt a;
	struct engine *e;
	bool done = false;
	int err = 0;

	e = fsv_engine(fs, &err);
	if (!e)
		return false;
	if (store_attempt_get(engine_store(e), r->run, r->task_id, r->attempt,
			      &a, NULL) == 0) {
		done = strcmp(a.state, "done") == 0;
		store_attempt_release(&a);
	}
	return done;
}

int fsv_root_writable(struct fsv *fs, struct fsv_root *r)
{
	double now;
	bool ask;

	if (r->readonly)
		return EROFS;
	now = now_wall();
	pthread_mutex_lock(&fs->roots_lock);
	ask = !r->final && now - r->checked >= FSV_FINAL_CHECK_S;
	if (ask)
		r->checked = now;
	bool final = r->final;
	pthread_mutex_unlock(&fs->roots_lock);
	if (ask && attempt_done(fs, r)) {
		pthread_mutex_lock(&fs->roots_lock);
		r->final = true;
		final = true;
		pthread_mutex_unlock(&fs->roots_lock);
	}
	return final ? EROFS : 0;
}
