/*
 * command.c - the `command` agent: any executable, run in the workspace.
 *
 * This is how custom agents plug in without C: the run config gives an argv
 * (agent.command: [python3, my_agent.py, --fast]); the program gets the
 * prompt on stdin and in $ARENA_PROMPT_FILE, plus $ARENA_WORKSPACE and
 * $ARENA_TASK_ID (never the task package's path: the reference and the
 * held-out cases live there).  Exit status 0 is "completed", anything else "failed";
 * the deadline (agent.timeout_seconds) ends the whole process group.
 *
 * What it did is traced like any agent (logs/trace.jsonl, bridge/trace.h):
 * an episode_start with its argv and prompt, the tail of its output, and
 * the outcome with its exit status; `arena export` adds the diff of the
 * workspace against the baseline.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "agents.h"
#include "arena/proc.h"
#include "bridge/trace.h"

#define COMMAND_OUTPUT_TAIL (16 * 1024) /* bytes of its log traced */

static int command_validate(const struct agent_config *c, struct errbuf *err)
{
	if (c->command.n == 0)
		return errf(err, "the command agent needs agent.command, the "
			    "program to run as a list, e.g. [python3, "
			    "agent.py]");
	return 0;
}

static void trace_start(struct trace *t, const struct agent_launch *l)
{
	cJSON *start = cJSON_CreateObject(), *argv = cJSON_CreateArray();
	unsigned char id[16];
	char hex[33];

	random_bytes(id, sizeof(id));
	for (int i = 0; i < 16; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	cJSON_AddStringToObject(start, "episode", hex);
	cJSON_AddStringToObject(start, "agent", "command");
	if (l->config->model)
		cJSON_AddStringToObject(start, "model", l->config->model);
	cJSON_AddStringToObject(start, "task_id", l->task->id);
	cJSON_AddStringToObject(start, "workspace", l->workspace);
	cJSON_AddBoolToObject(start, "sandboxed", false);
	cJSON_AddNumberToObject(start, "timeout_s", l->timeout_s);
	for (size_t i = 0; i < l->config->command.n; i++)
		cJSON_AddItemToArray(
			argv, cJSON_CreateString(l->config->command.v[i]));
	cJSON_AddItemToObject(start, "argv", argv);
	cJSON_AddStringToObject(start, "prompt", l->prompt ? l->prompt : "");
	trace_emit(t, "episode_start", start);
}

/* The last COMMAND_OUTPUT_TAIL bytes of what it printed (stdout and
 * stderr both go to logs/agent.log). */
static void trace_output(struct trace *t, const char *log)
{
	char *text = NULL;
	size_t len = 0;

	if (file_read_all(log, (size_t)64 << 20, &text, &len, NULL) != 0)
		return;
	const char *from = len > COMMAND_OUTPUT_TAIL
				   ? text + len - COMMAND_OUTPUT_TAIL
				   : text;
	char *clean = result_utf8_sanitize(from);
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "stream", "logs/agent.log");
	cJSON_AddBoolToObject(o, "truncated", from != text);
	cJSON_AddStringToObject(o, "text", clean);
	trace_emit(t, "output", o);
	free(clean);
	free(text);
}

static int command_launch(const struct agent_launch *l,
			  struct agent_outcome *out, struct errbuf *err)
{
	struct strvec env = STRVEC_INIT;
	struct proc_spawn_result res;
	char *log = path_join(l->log_dir, "agent.log");
	char *trace_path = path_join(l->log_dir, "trace.jsonl");
	struct trace *t = NULL;
	int rc;

	/* A trace that cannot be opened records nothing; the agent runs. */
	if (trace_open(trace_path, &t, NULL) != 0)
		(void)trace_open(NULL, &t, NULL);
	free(trace_path);
	trace_start(t, l);

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
	if (rc) {
		trace_error(t, errbuf_str(err));
		trace_close(t);
		free(log);
		return rc;
	}
	trace_output(t, log);
	free(log);
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
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "status", out->status);
	if (out->error)
		cJSON_AddStringToObject(o, "error", out->error);
	cJSON_AddNumberToObject(o, "duration_s", out->duration_s);
	if (WIFEXITED(res.status))
		cJSON_AddNumberToObject(o, "exit", WEXITSTATUS(res.status));
	else
		cJSON_AddNullToObject(o, "exit");
	trace_emit(t, "outcome", o);
	trace_close(t);
	return 0;
}

const struct agent_ops agent_command = {
	.name = "command",
	.summary = "runs any executable in the workspace (agent.command)",
	.validate = command_validate,
	.launch = command_launch,
};
