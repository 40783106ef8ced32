/*
 * command.c - the `command` agent: any executable, run in the workspace.
 *
 * This is how custom agents plug in without C: the run config gives an argv
 * (agent.command: [python3, my_agent.py, --fast]); the program gets the
 * prompt on stdin and in $ARENA_PROMPT_FILE, plus $ARENA_WORKSPACE and
 * $ARENA_TASK_ID (never the task package's path: the reference and the
 * held-out cases live there).  Exit status 0 is "completed", anything else "failed";
 * the deadline (agent.timeout_seconds) ends the whole process group.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "agents.h"
#include "arena/proc.h"

static int command_validate(const struct agent_config *c, struct errbuf *err)
{
	if (c->command.n == 0)
		return errf(err, "the command agent needs agent.command, the "
			    "program to run as a list, e.g. [python3, "
			    "agent.py]");
	return 0;
}

static int command_launch(const struct agent_launch *l,
			  struct agent_outcome *out, struct errbuf *err)
{
	struct strvec env = STRVEC_INIT;
	struct proc_spawn_result res;
	char *log = path_join(l->log_dir, "agent.log");
	int rc;

	strvec_pushf(&env, "ARENA_WORKSPACE=%s", l->workspace);
	strvec_pushf(&env, "ARENA_TASK_ID=%s", l->task->id);
	strvec_pushf(&env, "ARENA_PROMPT_FILE=%s", l->prompt_file);
	if (l->config->model)
		strvec_pushf(&env, "ARENA_MODEL=%s", l->config->model);
	if (l->config->max_iterations > 0)
		strvec_pushf(&env, "ARENA_MAX_ITERATIONS=%d",
			     l->config->max_iterations);
	struct proc_spec spec = {
		.argv = l->config->command.v,
		.cwd = l->workspace,
		.stdin_path = l->prompt_file,
		.log_path = log,
		.env_add = &env,
		.timeout_s = l->timeout_s,
	};
	rc = proc_spawn(&spec, &res, err);
	strvec_release(&env);
	free(log);
	if (rc)
		return rc;
	out->duration_s = res.seconds;
	if (res.timed_out) {
		out->status = xstrdup("timeout");
		out->error = xasprintf("deadline of %.0f s reached; the process "
				       "group was killed", l->timeout_s);
	} else if (WIFEXITED(res.status) && WEXITSTATUS(res.status) == 0) {
		out->status = xstrdup("completed");
	} else {
		char why[128];
		proc_describe_status(res.status, why, sizeof(why));
		out->status = xstrdup("failed");
		out->error = xasprintf("%s %s", l->config->command.v[0], why);
	}
	return 0;
}

const struct agent_ops agent_command = {
	.name = "command",
	.summary = "runs any executable in the workspace (agent.command)",
	.validate = command_validate,
	.launch = command_launch,
};
