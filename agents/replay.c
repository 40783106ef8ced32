/*
 * replay.c - the `replay` agent: copies saved sources into the workspace.
 *
 * It reproduces or re-scores earlier work without any model: agent.replay_dir
 * is either an earlier run's directory (its tasks/<task>/workspace/ files
 * are used) or a directory holding <task id>/<editable files> (or the task
 * id with '/' as '_').  Only the task's editable files are copied; anything
 * else in the saved directory is ignored.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agents.h"
#include "arena/store.h"

static int replay_validate(const struct agent_config *c, struct errbuf *err)
{
	if (!c->replay_dir || !*c->replay_dir)
		return errf(err, "the replay agent needs agent.replay_dir: an "
			    "earlier run directory or a directory of "
			    "<task id>/<files>");
	if (!dir_exists(c->replay_dir))
		return errf(err, "agent.replay_dir '%s' is not a directory",
			    c->replay_dir);
	return 0;
}

/* The directory holding saved sources for this task, or NULL. */
static char *replay_source_dir(const char *root, const struct task *t)
{
	char *flat = store_task_dirname(t->id, 1);
	char *cands[3] = {
		xasprintf("%s/tasks/%s/workspace", root, flat),
		path_join(root, t->id),
		path_join(root, flat),
	};
	char *found = NULL;

	for (int i = 0; i < 3; i++) {
		if (!found && dir_exists(cands[i]))
			found = cands[i];
		else
			free(cands[i]);
	}
	free(flat);
	return found;
}

static int replay_launch(const struct agent_launch *l,
			 struct agent_outcome *out, struct errbuf *err)
{
	char *src = replay_source_dir(l->config->replay_dir, l->task);
	int copied = 0;

	if (!src) {
		out->status = xstrdup("failed");
		out->error = xasprintf("no saved sources for %s in %s",
				       l->task->id, l->config->replay_dir);
		return 0;
	}
	for (size_t i = 0; i < l->task->editable.n; i++) {
		char *from = path_join(src, l->task->editable.v[i]);
		char *to = path_join(l->workspace, l->task->editable.v[i]);
		struct errbuf cerr;
		errbuf_init(&cerr);
		if (file_exists(from)) {
			if (file_copy(from, to, &cerr) == 0) {
				copied++;
			} else if (!out->error) {
				out->error = xstrdup(errbuf_str(&cerr));
			}
		}
		free(from);
		free(to);
	}
	out->status = xstrdup(out->error ? "failed" : "completed");
	out->cost_known = true; /* calls no model */
	out->summary = xasprintf("replayed %d file(s) from %s", copied, src);
	free(src);
	return 0;
}

const struct agent_ops agent_replay = {
	.name = "replay",
	.summary = "copies saved sources in (reproduce or re-score a run)",
	.validate = replay_validate,
	.launch = replay_launch,
};
