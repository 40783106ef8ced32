/*
 * agent.h - the one interface every agent implements (DESIGN.md §8).
 *
 * The engine defines it and calls it; agents/ implements it (noop, command,
 * replay, autotune, and later the real CLIs); the CLI registers the
 * built-in ones at start-up with agent_register().  The engine names no
 * agent.
 *
 * launch() runs in the controller process.  An agent that runs a program
 * must give it its own process group, stdin from /dev/null (or the prompt),
 * kill the group at the deadline, and return only when every process the
 * program started is gone (proc_spec.contain).  Whatever the outcome, the
 * run then evaluates what the workspace holds.
 */
#ifndef ARENA_AGENT_H
#define ARENA_AGENT_H

#include <stdbool.h>
#include <stdint.h>
#include "arena/config.h"
#include "arena/result.h"
#include "arena/task.h"
#include "arena/util.h"

/* What an agent may ask the evaluator (used by autotune).  The engine
 * supplies it; `quick` evaluations use a reduced timing budget. */
typedef int (*agent_evaluate_fn)(void *ctx, const struct strvec *defines,
				 bool quick, struct task_result *out,
				 struct errbuf *err);

struct agent_launch {
	const struct task *task;
	const struct agent_config *config;
	const char *workspace;		/* absolute path the agent edits */
	const char *workspace_real;	/* the same directory in the store
					 * (workspace may be a mount's view
					 * of it); NULL: workspace */
	const char *prompt;		/* the full prompt text */
	const char *prompt_file;	/* the same text in a file */
	const char *log_dir;		/* where the agent's own logs go */
	double timeout_s;		/* deadline from launch */
	agent_evaluate_fn evaluate;
	void *evaluate_ctx;
	/* Context, for traces, bridges and prompts (borrowed). */
	const char *run_id;		/* NULL outside a run */
	int attempt;
	const char *store_dir;		/* to hide from a sandbox */
	const char *tasks_root;		/* likewise */
	const char *device;		/* resolved: "host", "cuda:0", ... */
	/* What the agent does now, for a status line (may be NULL): one
	 * short phrase, "agent turn 14".  Agents whose CLI streams its turns
	 * call it as they happen; it returns at once and may be called from
	 * any thread. */
	void (*progress)(void *ctx, const char *what);
	void *progress_ctx;
	/* Whether the agent must stop now because its run was cancelled (may
	 * be NULL; cheap enough to poll every second, from the launching
	 * thread).  A launcher that sees it true kills every process of the
	 * agent and answers with the status "cancelled": the attempt's agent
	 * has not finished and runs again, on the same workspace, when the
	 * run is resumed. */
	bool (*cancelled)(void *ctx);
	void *cancelled_ctx;
};

struct agent_outcome {
	char *status;		/* "completed" | "failed" | "timeout" |
				 * "cancelled" (agent_launch.cancelled) */
	char *error;		/* one sentence, or NULL */
	double duration_s;
	int turns;
	int64_t input_tokens; /* all input, cached included */
	int64_t output_tokens;
	int64_t cached_tokens; /* of input_tokens, read from a cache */
	double cost_usd;
	bool cost_known;	/* cost_usd is what the CLI reported or the
				 * configured prices give, or the agent calls
				 * no model (0); false: not known (and
				 * cost_usd is 0) */
	char *summary;		/* what it did, one line, or NULL */
	bool sandboxed;		/* ran inside the agent sandbox (bwrap) */
	/* How its processes were made to end with it ("pid_namespace",
	 * "subreaper", NULL: not at all), and how many were still running
	 * after it exited and were killed before the evaluation. */
	const char *contained;
	int leftovers;
};

void agent_outcome_init(struct agent_outcome *o);
void agent_outcome_release(struct agent_outcome *o);

struct agent_ops {
	const char *name;
	const char *summary;
	/* Checks the run config's agent section before anything runs (may be
	 * NULL): e.g. `command` needs agent.command. */
	int (*validate)(const struct agent_config *c, struct errbuf *err);
	/* Fills *out; returns 0 when the agent ran (whatever its outcome) and
	 * a negative errno when it could not be started. */
	int (*launch)(const struct agent_launch *l, struct agent_outcome *out,
		      struct errbuf *err);
};

void agent_register(const struct agent_ops *ops);
const struct agent_ops *agent_find(const char *name);
/* Names of registered agents, for messages ("noop, command, ..."). */
void agent_list(struct strbuf *out);

#endif /* ARENA_AGENT_H */
