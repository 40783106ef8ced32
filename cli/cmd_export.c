/*
 * cmd_export.c - `arena export RUN [--format jsonl] [-o FILE]`: one
 * episode per task attempt, for RL and analysis pipelines
 * (docs/results.md, "Episodes").
 *
 * An episode line holds the run, task, attempt and agent configuration;
 * the model and the installed CLI version at the top (from the run's
 * config and the trace); the agent as the trace recorded it
 * (episode_start); its outcome and costs (agent_execution); the final
 * verdict from the store (status, compiled, correct, speedup and its
 * interval, held-out results, score and reward); the prompt; the
 * normalised steps of the last episode of the attempt's trace (messages,
 * tool calls and results, file changes, evaluations with their verdicts,
 * a command agent's output and exit); and what the agent left: its final
 * sources and their unified diff against the attempt's frozen baseline.
 *
 * Results come from the store (store_attempt_list + result_from_json),
 * never from files an agent could have written; the final sources are
 * what the workspace holds now, and final_sources_evaluated says whether
 * they are the sources the result evaluated (their hashes match); one that
 * is not a regular file (a link, a FIFO an agent left) counts as deleted,
 * never followed or opened.  Every
 * path under the run directory (or the same directory seen through a
 * mount) is written relative to the run directory, so episodes from two
 * machines compare and no local path leaks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <cjson/cJSON.h>

#include "arena/proc.h"
#include "cli.h"

#define EXPORT_TRACE_MAX ((size_t)256 << 20)
#define EXPORT_SOURCE_MAX ((size_t)1 << 20) /* bytes of one source kept */
#define EXPORT_DIFF_MAX ((size_t)4 << 20)

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

/* ---- paths relative to the run ------------------------------------------ */

/* s with every absolute path that runs through ".../runs/<run>/" made
 * relative to the run directory ("/data/store/runs/R/tasks/t/workspace/k.c"
 * -> "tasks/t/workspace/k.c"; the run directory itself -> ".").  Paths
 * through a mount of the store end the same way.  Caller frees. */
static char *relative_to_run(const char *s, const char *run_id)
{
	struct strbuf out = STRBUF_INIT;
	char *mark = xasprintf("/runs/%s", run_id);
	size_t mlen = strlen(mark);
	const char *p = s;

	for (;;) {
		const char *hit = strstr(p, mark);
		char after;

		if (!hit)
			break;
		after = hit[mlen];
		if (after != '/' && after != '\0' && after != '"' &&
		    after != '\'' && after != ' ') {
			strbuf_add(&out, p, (size_t)(hit - p) + mlen);
			p = hit + mlen;
			continue;
		}
		/* The path starts at the '/' that begins its token. */
		const char *start = hit;
		while (start > p && start[-1] != ' ' && start[-1] != '"' &&
		       start[-1] != '\'' && start[-1] != '=' &&
		       start[-1] != '\n' && start[-1] != '\t' &&
		       start[-1] != ':' && start[-1] != '(')
			start--;
		if (*start != '/') { /* not an absolute path: keep */
			strbuf_add(&out, p, (size_t)(hit - p) + mlen);
			p = hit + mlen;
			continue;
		}
		strbuf_add(&out, p, (size_t)(start - p));
		p = hit + mlen;
		if (*p == '/') {
			p++;
			if (!*p || *p == ' ' || *p == '"' || *p == '\'')
				strbuf_addch(&out, '.');
		} else {
			strbuf_addch(&out, '.');
		}
	}
	strbuf_addstr(&out, p);
	free(mark);
	return strbuf_detach(&out);
}

static void relativize(cJSON *j, const char *run_id)
{
	for (cJSON *c = j; c; c = c->next) {
		if (cJSON_IsString(c) && c->valuestring &&
		    strstr(c->valuestring, run_id)) {
			char *rel = relative_to_run(c->valuestring, run_id);
			cJSON_SetValuestring(c, rel);
			free(rel);
		}
		if (c->child)
			relativize(c->child, run_id);
	}
}

/* ---- what the agent left ------------------------------------------------ */

/* The editable files: those the result evaluated, else the task's. */
static void editable_files(struct engine *e, const struct store_attempt *a,
			   const struct task_result *r, struct strvec *out)
{
	struct task *t;

	strvec_init(out);
	if (r) {
		for (int i = 0; i < r->nsources; i++)
			strvec_push(out, r->sources[i].path);
		if (out->n)
			return;
	}
	if (task_load(engine_tasks_root(e), a->task_id, &t, NULL) == 0) {
		for (size_t i = 0; i < t->editable.n; i++)
			strvec_push(out, t->editable.v[i]);
		task_free(t);
	}
}

/* Whether <task_dir>/workspace/<rel> is a regular file reached through
 * directories only.  An agent may leave a symbolic link named like its
 * editable file, pointing at a held-out file or a key of the machine that
 * exports (the evaluator refuses it, but it stays in the workspace), or a
 * FIFO that would block a reader: an episode never follows or opens one;
 * the file counts as absent. */
static bool workspace_regular(const char *task_dir, const char *rel)
{
	char *path = xasprintf("%s/workspace/%s", task_dir, rel);
	size_t from = strlen(task_dir) + 1; /* workspace/ too */
	struct stat st;
	bool ok = true;

	for (char *p = path + from; ok; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		char c = *p;
		*p = '\0';
		ok = lstat(path, &st) == 0 &&
		     (c ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode));
		*p = c;
		if (!c)
			break;
	}
	free(path);
	return ok;
}

/* final_sources, final_sources_evaluated and diff. */
static void add_sources(cJSON *o, struct engine *e, const char *task_dir,
			const struct store_attempt *a,
			const struct task_result *r)
{
	struct strvec files;
	struct strbuf diff = STRBUF_INIT;
	cJSON *src = cJSON_CreateObject(), *trunc = cJSON_CreateArray();
	bool match = r != NULL, diff_ok = true;

	editable_files(e, a, r, &files);
	for (size_t i = 0; i < files.n; i++) {
		const char *f = files.v[i];
		char *ws = xasprintf("%s/workspace/%s", task_dir, f);
		char *base = xasprintf("%s/baseline/%s", task_dir, f);
		char *text = NULL, hash[65];
		size_t len = 0;

		bool regular = workspace_regular(task_dir, f);

		if (regular && file_read_all(ws, EXPORT_SOURCE_MAX + 1, &text,
					     &len, NULL) == 0) {
			char *clean;

			if (len > EXPORT_SOURCE_MAX) {
				text[EXPORT_SOURCE_MAX] = '\0';
				cJSON_AddItemToArray(trunc,
						     cJSON_CreateString(f));
			}
			clean = result_utf8_sanitize(text);
			cJSON_AddStringToObject(src, f, clean);
			free(clean);
		} else {
			cJSON_AddNullToObject(src, f); /* deleted */
		}
		free(text);
		/* Are these the sources the result evaluated? */
		if (match) {
			const char *want = NULL;
			for (int k = 0; k < r->nsources; k++)
				if (!strcmp(r->sources[k].path, f))
					want = r->sources[k].sha256;
			if (!regular || sha256_file_hex(ws, hash, NULL) != 0)
				snprintf(hash, sizeof(hash), "-");
			match = want && !strcmp(want, hash);
		}
		/* diff -u, labelled a/PATH (baseline) and b/PATH (final). */
		char *la = xasprintf("a/%s", f), *lb = xasprintf("b/%s", f);
		char *argv[] = { (char *)"diff",
				 (char *)"-u",
				 (char *)"-N",
				 (char *)"--label",
				 la,
				 (char *)"--label",
				 lb,
				 base,
				 regular ? ws : (char *)"/dev/null",
				 NULL };
		struct proc_result pr;
		memset(&pr, 0, sizeof(pr));
		if (proc_run_capture(argv, NULL, NULL, 30000, EXPORT_DIFF_MAX,
				     &pr, NULL) == 0 &&
		    WIFEXITED(pr.status) && WEXITSTATUS(pr.status) <= 1) {
			if (pr.output)
				strbuf_add(&diff, pr.output, pr.output_len);
		} else {
			diff_ok = false;
		}
		proc_result_release(&pr);
		free(la);
		free(lb);
		free(ws);
		free(base);
	}
	cJSON_AddItemToObject(o, "final_sources", src);
	cJSON_AddItemToObject(o, "final_sources_truncated", trunc);
	cJSON_AddItemToObject(o, "final_sources_evaluated",
			      r ? cJSON_CreateBool(match) : cJSON_CreateNull());
	if (diff_ok) {
		char *clean = result_utf8_sanitize(strbuf_str(&diff));
		cJSON_AddStringToObject(o, "diff", clean);
		free(clean);
	} else {
		cJSON_AddNullToObject(o, "diff"); /* diff(1) failed */
	}
	strbuf_release(&diff);
	strvec_release(&files);
}

/* ---- one episode -------------------------------------------------------- */

static const struct agent_config *variant_config(const struct runconfig *cfg,
						 const char *variant)
{
	if (!cfg)
		return NULL;
	for (int i = 0; i < cfg->nvariants; i++)
		if (!strcmp(cfg->variants[i].name ? cfg->variants[i].name : "",
			    variant ? variant : ""))
			return &cfg->variants[i].agent;
	return &cfg->agent;
}

static cJSON *str_or_null(const char *s)
{
	return s ? cJSON_CreateString(s) : cJSON_CreateNull();
}

static const char *jstr(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static cJSON *episode(struct engine *e, const struct store_run *run,
		      const struct runconfig *cfg,
		      const struct store_attempt *a)
{
	cJSON *o = cJSON_CreateObject();
	cJSON *steps = cJSON_CreateArray();
	cJSON *start = NULL;
	char *task_dir = store_task_dir(engine_store(e), run->id, a->task_id,
					a->attempt);
	char *trace = xasprintf("%s/logs/trace.jsonl", task_dir);
	const struct agent_config *ac = variant_config(cfg, a->variant);
	struct task_result r;
	bool has_result = false;

	result_init(&r);
	if (a->result_json && result_from_json(a->result_json, &r, NULL) == 0)
		has_result = true;
	read_trace(trace, &start, steps);

	cJSON_AddStringToObject(o, "schema", "arena.episode/2");
	cJSON_AddStringToObject(o, "run_id", run->id);
	cJSON_AddStringToObject(o, "task_id", a->task_id);
	cJSON_AddNumberToObject(o, "attempt", a->attempt);
	cJSON_AddNumberToObject(o, "repeat", a->repeat);
	cJSON_AddItemToObject(o, "variant",
			      str_or_null(a->variant && *a->variant ? a->variant
								    : NULL));
	cJSON_AddStringToObject(o, "state", a->state);
	/* The model: as configured, else as the agent's trace says. */
	const char *model = ac && ac->model ? ac->model : jstr(start, "model");
	cJSON_AddItemToObject(o, "model", str_or_null(model));
	cJSON_AddItemToObject(o, "cli_version",
			      str_or_null(jstr(start, "cli_version")));
	cJSON *agent = cJSON_AddObjectToObject(o, "agent");
	cJSON_AddStringToObject(agent, "name",
				ac	     ? ac->template_name
				: run->agent ? run->agent
					     : "");
	static const char *const keys[] = { "model",
					    "effort",
					    "cli",
					    "cli_version",
					    "cli_version_tested",
					    "sandboxed",
					    "mcp",
					    "episode",
					    "argv" };
	for (size_t i = 0; start && i < ARRAY_SIZE(keys); i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(start,
								  keys[i]);
		const char *slash;

		if (!v)
			continue;
		/* The CLI by name ("claude"), not by where it is installed
		 * here: its version says which one it was. */
		if (!strcmp(keys[i], "cli") && cJSON_IsString(v) &&
		    (slash = strrchr(v->valuestring, '/')))
			cJSON_AddStringToObject(agent, "cli", slash + 1);
		else
			cJSON_AddItemToObject(agent, keys[i],
					      cJSON_Duplicate(v, 1));
	}
	cJSON *exec = a->agent_json ? cJSON_Parse(a->agent_json) : NULL;
	cJSON_AddItemToObject(o, "agent_execution",
			      exec ? exec : cJSON_CreateNull());
	if (has_result) {
		cJSON *res = cJSON_CreateObject();
		result_summary_add(res, &r,
				   RESULT_SUMMARY_HELD_OUT |
					   RESULT_SUMMARY_REWARD |
					   RESULT_SUMMARY_IDENTITY);
		cJSON_AddItemToObject(o, "result", res);
		cJSON_AddNumberToObject(o, "reward", r.reward);
		cJSON_AddNumberToObject(o, "score", r.score);
	} else {
		cJSON_AddNullToObject(o, "result");
		cJSON_AddNullToObject(o, "reward");
		cJSON_AddNullToObject(o, "score");
	}
	const cJSON *prompt = cJSON_GetObjectItemCaseSensitive(start, "prompt");
	cJSON_AddItemToObject(o, "prompt", cJSON_IsString(prompt)
			      ? cJSON_CreateString(prompt->valuestring)
			      : cJSON_CreateNull());
	cJSON_AddItemToObject(o, "steps", steps);
	add_sources(o, e, task_dir, a, has_result ? &r : NULL);
	relativize(o, run->id);
	cJSON_Delete(start);
	result_release(&r);
	free(trace);
	free(task_dir);
	return o;
}

int cmd_export(struct cli *c, int argc, char **argv)
{
	const char *run_arg = NULL, *format = "jsonl", *out_path = NULL;
	struct store_attempt *att = NULL;
	struct store_run run = { 0 };
	struct runconfig *cfg = NULL;
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
			return cli_usage_error("export",
					       "unexpected argument "
					       "or missing value: '%s'",
					       argv[i]);
	}
	if (!run_arg)
		return cli_usage_error("export", "name a run (or --latest)");
	if (strcmp(run_arg, "--latest") && !store_run_id_valid(run_arg))
		return cli_usage_error("export",
				       "'%s' is not a run id (they "
				       "look like run_20261129_093000)",
				       run_arg);
	if (strcmp(format, "jsonl"))
		return cli_usage_error("export",
				       "unknown --format '%s'; the "
				       "format is jsonl (one episode per "
				       "line)",
				       format);
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
	/* The config names each configuration's model; a config that no
	 * longer validates (its tasks moved) leaves the trace's word. */
	if (engine_run_config(e, &run, &cfg, NULL) != 0)
		cfg = NULL;
	for (int i = 0; i < n; i++) {
		cJSON *ep = episode(e, &run, cfg, &att[i]);
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
	if (cfg)
		runconfig_free(cfg);
	strbuf_release(&buf);
	store_attempts_free(att, n);
	store_run_release(&run);
	free(latest);
	engine_close(e);
	return rc;
}
