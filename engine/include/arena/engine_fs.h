/*
 * engine_fs.h - small engine queries the filesystem view needs beside
 * engine.h: naming attempts by their directory, answering `cat score`
 * from the stored result without evaluating when the workspace is
 * unchanged, and rendering report.html.
 *
 * They compose engine.h, store.h and eval.h only; nothing here changes
 * what a result means (engine_task_result() stays the one place that
 * decides to evaluate).
 */
#ifndef ARENA_ENGINE_FS_H
#define ARENA_ENGINE_FS_H

#include "arena/engine.h"

/* The attempt of run_id whose task directory is called `dirname`
 * (store_task_dirname()).  *task_id is set (caller frees); -ENOENT when no
 * attempt has that directory. */
int engine_attempt_by_dirname(struct engine *e, const char *run_id,
			      const char *dirname, char **task_id,
			      int *attempt, struct errbuf *err);

/* The result engine_task_result() would return without evaluating: a
 * done attempt's final result.  Returns 0 and fills *out (initialised by
 * the caller with result_init), or -ESTALE when engine_task_result() would
 * evaluate (the attempt is not done).  hash (when not NULL) receives the
 * sources hash the answer is about: the final result's, or the
 * workspace's current one. */
int engine_task_result_peek(struct engine *e, const char *run_id,
			    const char *task_id, int attempt,
			    struct task_result *out, char hash[65],
			    struct errbuf *err);

/* The last stored result of an attempt, current or not; -ENOENT when the
 * attempt has none yet.  Never evaluates and never hashes. */
int engine_task_result_stored(struct engine *e, const char *run_id,
			      const char *task_id, int attempt,
			      struct task_result *out, struct errbuf *err);

/* report.html of a run from its stored results (caller frees *html). */
int engine_run_html(struct engine *e, const char *run_id, char **html,
		    struct errbuf *err);

#endif /* ARENA_ENGINE_FS_H */
