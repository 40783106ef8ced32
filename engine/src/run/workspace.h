/*
 * workspace.h - per-attempt task directories: the agent's workspace, the
 * frozen baseline, and the agent's prompt.  Private to the engine.
 */
#ifndef ARENA_WORKSPACE_H
#define ARENA_WORKSPACE_H

#include "arena/task.h"
#include "arena/util.h"

/* Creates <task_dir>/workspace (the editable files and TASK.md),
 * <task_dir>/baseline (the baseline's files, a rendering for people) and
 * <task_dir>/logs.  Existing files are left alone, so a crash half-way
 * through creation can be repaired by calling it again. */
int workspace_create(const struct task *t, const char *task_dir,
		     struct errbuf *err);

/* For a task with baseline.files, a directory under cache_dir holding the
 * baseline under the editable names (content-addressed, created once;
 * `arena eval --aa` times it as the candidate); *out is NULL for other
 * tasks (their baseline is the task's own editable files).  Caller frees
 * *out. */
int workspace_baseline_dir(const struct task *t, const char *cache_dir,
			   char **out, struct errbuf *err);

/* The prompt given to an agent: TASK.md plus iteration guidance. */
char *prompt_render(const struct task *t, const char *workspace,
		    int max_iterations);

#endif /* ARENA_WORKSPACE_H */
