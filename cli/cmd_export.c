/*
 * cmd_export.c - `arena export RUN [--format jsonl] [-o FILE]`: one
 * episode per task attempt, for RL and analysis pipelines.
 *
 * An episode line holds the run, task and attempt, the agent and its
 * settings as the trace recorded them (episode_start), the agent's
 * outcome (agent_execution), the final verdict from the store (status,
 * compiled, correct, speedup and its interval, held-out results, score
 * and reward), the prompt, and the normalised steps of the last episode
 * of the attempt's trace (messages, tool calls and results, file changes,
 * evaluations with their verdicts: per-step rewards, and the outcome).
 * Results come from the store (store_attempt_list + result_from_json),
 * never from files an agent could have written.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli.h"

#define EXPORT_TRACE_MAX ((size_t)256 << 20)

/* The events of the last episode in a trace file: steps (without the
 * episode_start, which goes into *start). */
static void read_trace(const char *path, cJSON **start, cJSON *steps)
{
	char *text = NULL;
	size_t len = 0;

	*start = NULL;
	if (file_read_all(path, EXPORT_TRACE_MAX, &text, &len, NULL) != 0)
		return;
	for (char *line = text, *nl; line && *line; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		size_t n = nl ? (size_t)(nl - line) : strlen(line);
		cJSON *ev = cJSON_ParseWithLength(line, n);
		if (!cJSON_IsObject(ev)) {
			cJSON_Delete(ev);
			continue;
		}
		const cJSON *type = cJSON_GetObjectItemCaseSensitive(ev, "type");
		if (cJSON_IsString(type) &&
		    !strcmp(type->valuestring, "episode_start")) {
			cJSON_Delete(*start);
			*start = ev;
			while (cJSON_GetArraySize(steps) > 0)
				cJSON_DeleteItemFromArray(steps, 0);
			continue;
		}
		cJSON_AddItemToArray(steps, ev);
	}
	free(text);
}

static cJSON *result_json(const struct task_result *r)
{
	cJSON *o = cJSON_CreateObject();

	result_summary_add(o, r, RESULT_SUMMARY_HELD_OUT |
			   RESULT_SUMMARY_REWARD | RESULT_SUMMARY_IDENTITY);
	return o;
}

static cJSON *episode(struct engine *e, const struct store_run *run,
		      const struct store_attempt *a)
{
	cJSON *o = cJSON_CreateObject();
	cJSON *steps = cJSON_CreateArray();
	cJSON *start = NULL;
	char *task_dir = store_task_dir(engine_store(e), run->id, a->task_id,
					a->attempt);
	char *trace = xasprintf("%s/logs/trace.jsonl", task_dir);

	cJSON_AddStringToObject(o, "schema", "arena.episode/1");
	cJSON_AddStringToObject(o, "run_id", run->id);
	cJSON_AddStringToObject(o, "task_id", a->task_id);
	cJSON_AddNumberToObject(o, "attempt", a->attempt);
	cJSON_AddStringToObject(o, "state", a->state);
	read_trace(trace, &start, steps);
	cJSON *agent = cJSON_AddObjectToObject(o, "agent");
	cJSON_AddStringToObject(agent, "name", run->agent ? run->agent : "");
	static const char *const keys[] = { "model", "effort", "cli",
					    "cli_version_tested", "sandboxed",
					    "mcp", "episode" };
	for (size_t i = 0; start && i < ARRAY_SIZE(keys); i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(start,
								  keys[i]);
		if (v)
			cJSON_AddItemToObject(agent, keys[i],
					      cJSON_Duplicate(v, 1));
	}
	cJSON *exec = a->agent_json ? cJSON_Parse(a->agent_json) : NULL;
	cJSON_AddItemToObject(o, "agent_execution",
			      exec ? exec : cJSON_CreateNull());
	if (a->result_json) {
		struct task_result r;
		if (result_from_json(a->result_json, &r, NULL) == 0) {
			cJSON_AddItemToObject(o, "result", result_json(&r));
			cJSON_AddNumberToObject(o, "reward", r.reward);
			cJSON_AddNumberToObject(o, "score", r.score);
		} else {
			cJSON_AddNullToObject(o, "result");
		}
		result_release(&r);
	} else {
		cJSON_AddNullToObject(o, "result");
		cJSON_AddNullToObject(o, "reward");
	}
	const cJSON *prompt = cJSON_GetObjectItemCaseSensitive(start, "prompt");
	cJSON_AddItemToObject(o, "prompt", cJSON_IsString(prompt)
			      ? cJSON_CreateString(prompt->valuestring)
			      : cJSON_CreateNull());
	cJSON_AddItemToObject(o, "steps", steps);
	cJSON_Delete(start);
	free(trace);
	free(task_dir);
	return o;
}

int cmd_export(struct cli *c, int argc, char **argv)
{
	const char *run_arg = NULL, *format = "jsonl", *out_path = NULL;
	struct store_attempt *att = NULL;
	struct store_run run = { 0 };
	struct strbuf buf = STRBUF_INIT;
	struct engine *e;
	struct errbuf err;
	char *latest = NULL;
	int n = 0, rc;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--format") && i + 1 < argc)
			format = argv[++i];
		else if (!strcmp(argv[i], "-o") && i + 1 < argc)
			out_path = argv[++i];
		else if ((argv[i][0] != '-' || !strcmp(argv[i], "--latest")) &&
			 !run_arg)
			run_arg = argv[i];
		else
			return cli_usage_error("export", "unexpected argument "
					       "or missing value: '%s'",
					       argv[i]);
	}
	if (!run_arg)
		return cli_usage_error("export", "name a run (or --latest)");
	if (strcmp(run_arg, "--latest") && !store_run_id_valid(run_arg))
		return cli_usage_error("export", "'%s' is not a run id (they "
				       "look like run_20261129_093000)",
				       run_arg);
	if (strcmp(format, "jsonl"))
		return cli_usage_error("export", "unknown --format '%s'; the "
				       "format is jsonl (one episode per "
				       "line)", format);
	if ((rc = cli_open(c, &e)) != 0)
		return rc;
	errbuf_init(&err);
	if (!strcmp(run_arg, "--latest")) {
		if (store_run_latest(engine_store(e), &latest, &err) != 0) {
			engine_close(e);
			return cli_fail("%s", errbuf_str(&err));
		}
		run_arg = latest;
	}
	rc = store_run_get(engine_store(e), run_arg, &run, &err);
	if (!rc)
		rc = store_attempt_list(engine_store(e), run_arg, &att, &n,
					&err);
	if (rc) {
		engine_close(e);
		free(latest);
		store_run_release(&run);
		return cli_fail("%s", errbuf_str(&err));
	}
	for (int i = 0; i < n; i++) {
		cJSON *ep = episode(e, &run, &att[i]);
		char *s = cJSON_PrintUnformatted(ep);
		strbuf_addstr(&buf, s);
		strbuf_addch(&buf, '\n');
		free(s);
		cJSON_Delete(ep);
	}
	if (out_path) {
		if (file_write_atomic(out_path, strbuf_str(&buf), buf.len,
				      &err) != 0)
			rc = cli_fail("%s", errbuf_str(&err));
	} else {
		fwrite(strbuf_str(&buf), 1, buf.len, stdout);
	}
	strbuf_release(&buf);
	store_attempts_free(att, n);
	store_run_release(&run);
	free(latest);
	engine_close(e);
	return rc;
}
