/*
 * attempt.c - one attempt of a run, step by step (the state machine is in
 * engine.c's opening comment): its directories and task, launching the
 * agent with its deadline and trace, the final evaluation (visible and
 * held-out cases, against the frozen baseline), task_result.yaml written
 * before the attempt is marked done, and whether a done attempt's result
 * is still current (engine_task_result).
 */
#include "engine_internal.h"

#include <cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arena/report.h"
#include "arena/result_view.h"
#include "lease.h"
#include "workspace.h"

/* ---- agent outcome <-> JSON ------------------------------------------ */

static char *outcome_to_json(const struct agent_outcome *o)
{
	cJSON *j = cJSON_CreateObject();
	char *s;

	cJSON_AddStringToObject(j, "status", o->status ? o->status : "failed");
	if (o->error)
		cJSON_AddStringToObject(j, "error", o->error);
	cJSON_AddNumberToObject(j, "duration_s", o->duration_s);
	cJSON_AddNumberToObject(j, "turns", o->turns);
	cJSON_AddNumberToObject(j, "input_tokens", (double)o->input_tokens);
	cJSON_AddNumberToObject(j, "output_tokens", (double)o->output_tokens);
	cJSON_AddNumberToObject(j, "cached_input_tokens",
				(double)o->cached_tokens);
	cJSON_AddNumberToObject(j, "cost_usd", o->cost_usd);
	cJSON_AddBoolToObject(j, "cost_known", o->cost_known);
	if (o->summary)
		cJSON_AddStringToObject(j, "summary", o->summary);
	cJSON_AddBoolToObject(j, "sandboxed", o->sandboxed);
	if (o->contained)
		cJSON_AddStringToObject(j, "contained", o->contained);
	if (o->leftovers)
		cJSON_AddNumberToObject(j, "leftover_processes_killed",
					o->leftovers);
	s = cJSON_PrintUnformatted(j);
	cJSON_Delete(j);
	return s;
}

static const char *json_str(const cJSON *j, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, k);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static double json_num(const cJSON *j, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, k);

	return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

/* Copies the agent's outcome into a result's agent_execution fields. */
static void result_apply_agent(struct task_result *r, const char *agent_json,
			       const char *agent_name, int starts)
{
	cJSON *j = agent_json ? cJSON_Parse(agent_json) : NULL;
	const char *summary = NULL;

	free(r->agent_status);
	free(r->agent_error);
	r->agent_status = NULL;
	r->agent_error = NULL;
	if (j) {
		const char *st = json_str(j, "status");
		const char *er = json_str(j, "error");
		r->agent_status = xstrdup(st ? st : "failed");
		r->agent_error = er ? xstrdup(er) : NULL;
		r->agent_duration_s = json_num(j, "duration_s");
		r->agent_turns = (int)json_num(j, "turns");
		r->agent_input_tokens = (int64_t)json_num(j, "input_tokens");
		r->agent_output_tokens = (int64_t)json_num(j, "output_tokens");
		r->agent_cached_tokens =
			(int64_t)json_num(j, "cached_input_tokens");
		r->agent_cost_usd = json_num(j, "cost_usd");
		r->agent_cost_known = cJSON_IsTrue(
			cJSON_GetObjectItemCaseSensitive(j, "cost_known"));
		r->agent_sandboxed = cJSON_IsTrue(
			cJSON_GetObjectItemCaseSensitive(j, "sandboxed"));
		summary = json_str(j, "summary");
	} else {
		r->agent_status = xstrdup("not_run");
	}
	r->agent_restarts = starts > 1 ? starts - 1 : 0;
	free(r->optimization_summary);
	r->optimization_summary = summary
		? xasprintf("Optimized by %s using arena's evaluator: %s",
			    agent_name, summary)
		: xasprintf("Optimized by %s using arena's evaluator",
			    agent_name);
	cJSON_Delete(j);
}

/* ---- run execution --------------------------------------------------- */


void attempt_ctx_release(struct attempt_ctx *c)
{
	task_free(c->task);
	free(c->task_dir);
	free(c->workspace);
	free(c->logs);
}

/* The evaluation seed of an attempt.  Every agent configuration of one
 * (task, repeat) gets the same seed, so they are judged on the same
 * inputs (docs/statistics.md §7: paired attempts).  The base is the
 * config's `seed:`, else the secret seed drawn when the run was created
 * (kept in the store, which no agent or candidate can read).  A run
 * created before runs had one gets a fresh seed per evaluation: false. */
static bool attempt_seed(const struct attempt_ctx *c, uint64_t *seed)
{
	uint64_t base;

	if (c->cfg->has_seed) {
		base = c->cfg->seed;
	} else {
		char *key = eng_run_seed_key(c->run_id), *val = NULL, *end;
		int rc = store_meta_get(c->e->store, key, &val, NULL);

		free(key);
		if (rc || !val) {
			free(val);
			return false;
		}
		errno = 0;
		base = strtoull(val, &end, 10);
		rc = errno || end == val || *end;
		free(val);
		if (rc)
			return false;
	}
	*seed = mix64(hash64_str(base, c->a->task_id) ^
		      (uint64_t)c->a->repeat);
	return true;
}

/* The agent configuration an attempt was created for. */
static const struct agent_config *attempt_agent(const struct runconfig *cfg,
						const struct store_attempt *a)
{
	for (int v = 0; v < cfg->nvariants; v++)
		if (a->variant && !strcmp(cfg->variants[v].name, a->variant))
			return &cfg->variants[v].agent;
	return &cfg->agent;
}

int attempt_prepare(struct attempt_ctx *c, struct errbuf *err)
{
	int rc =
		eng_task_trusted(c->e, c->run_id, c->a->task_id, &c->task, err);

	if (rc)
		return rc;
	if (c->cfg)
		c->agent = attempt_agent(c->cfg, c->a);
	c->task_dir = store_task_dir(c->e->store, c->run_id, c->a->task_id,
				     c->a->attempt);
	c->workspace = path_join(c->task_dir, "workspace");
	c->logs = path_join(c->task_dir, "logs");
	/* Repairs a creation interrupted half-way; keeps existing files. */
	rc = workspace_create(c->task, c->task_dir, err);
	if (!rc)
		rc = eng_places_link_attempt(c->e, c->run_id, c->task_dir, err);
	/* Runs created since this process opened the store. */
	eng_places_hide_all(c->e);
	return rc;
}

/* The workspace path an agent is given: the front end's view of it when
 * it set one (engine_set_workspace_view: `arena mount` shows agents the
 * workspace through the mount, so that `cat ../score` evaluates their
 * files), else the real path.  Evaluation always reads the real path. */
static char *agent_workspace(const struct attempt_ctx *c)
{
	if (c->e->ws_view) {
		char *name = store_task_dirname(c->a->task_id, c->a->attempt);
		char *ws = c->e->ws_view(c->e->ws_view_ctx, c->run_id, name);
		free(name);
		if (ws)
			return ws;
	}
	return xstrdup(c->workspace);
}

/* agent_launch.progress: the agent's own words ("agent turn 3"). */
static void agent_progress(void *ctx, const char *what)
{
	const struct eval_target *tg = ctx;

	eng_progress(tg->obs, tg->run_id, tg->task_id, tg->attempt, what);
}

static bool attempt_cancelled(void *ctx)
{
	struct attempt_ctx *c = ctx;

	return eng_run_cancel_requested(c->e, c->run_id);
}

int attempt_run_agent(struct attempt_ctx *c,
		      const struct engine_observer *obs,
		      struct errbuf *err)
{
	const struct agent_ops *ops = agent_find(c->agent->template_name);
	struct agent_outcome out;
	struct agent_launch l = { 0 };
	char *prompt, *prompt_file, *json;
	int rc;

	agent_outcome_init(&out);
	rc = store_attempt_update(c->e->store, c->run_id, c->a->task_id,
				  c->a->attempt, "agent_running", NULL, NULL,
				  NULL, true, err);
	if (rc)
		return rc;
	eng_progress(obs, c->run_id, c->a->task_id, c->a->attempt,
		     "agent started");
	eng_emit(c->e, obs, c->run_id, c->a->task_id, "agent_start",
		 "agent %s%s%s started%s", ops->name,
		 c->a->variant && *c->a->variant ? " as " : "",
		 c->a->variant ? c->a->variant : "",
		 c->a->agent_starts > 0 ? " again (previous launch interrupted)"
				    : "");
	char *ws = agent_workspace(c);
	prompt = prompt_render(c->task, ws, c->agent->max_iterations);
	prompt_file = path_join(c->logs, "prompt.txt");
	file_write_atomic_str(prompt_file, prompt, NULL);

	uint64_t seed = 0;
	bool has_seed = attempt_seed(c, &seed);
	struct eval_target tg = {
		.e = c->e,
		.task = c->task,
		.candidate_dir = c->workspace,
		.log_dir = c->logs,
		.cfg = c->cfg,
		.has_gpu = c->has_gpu,
		.gpu = c->gpu,
		.has_seed = has_seed,
		.seed = seed,
		.obs = obs,
		.run_id = c->run_id,
		.task_id = c->a->task_id,
		.attempt = c->a->attempt,
	};
	l.task = c->task;
	l.config = c->agent;
	l.workspace = ws;
	l.workspace_real = c->workspace;
	l.prompt = prompt;
	l.prompt_file = prompt_file;
	l.log_dir = c->logs;
	l.timeout_s = c->agent->timeout_seconds > 0
			      ? c->agent->timeout_seconds : 3600;
	l.evaluate = eng_agent_evaluate;
	l.evaluate_ctx = &tg;
	if (obs && obs->progress) {
		l.progress = agent_progress;
		l.progress_ctx = &tg;
	}
	l.cancelled = attempt_cancelled;
	l.cancelled_ctx = c;
	l.run_id = c->run_id;
	l.attempt = c->a->attempt;
	l.store_dir = store_root(c->e->store);
	l.tasks_root = c->e->tasks_root;
	char *device = NULL;
	eng_device_for(c->cfg, c->task, c->has_gpu, c->gpu, &device, NULL);
	l.device = device;

	double t0 = now_wall();
	struct errbuf lerr;
	errbuf_init(&lerr);
	rc = ops->launch(&l, &out, &lerr);
	if (rc) {
		/* Could not start: recorded as a failed agent; the workspace
		 * is still evaluated. */
		free(out.status);
		out.status = xstrdup("failed");
		free(out.error);
		out.error = xstrdup(errbuf_str(&lerr));
	}
	if (!out.status)
		out.status = xstrdup("completed");
	if (out.duration_s <= 0)
		out.duration_s = now_wall() - t0;
	c->a->agent_starts++;
	if (!strcmp(out.status, "cancelled")) {
		/* Not finished: the attempt stays agent_running, and a resume
		 * launches the agent again on the same workspace. */
		c->agent_cancelled = true;
		rc = 0;
		eng_emit(c->e, obs, c->run_id, c->a->task_id, "agent_end",
			 "agent %s stopped after %.1f s: %s", ops->name,
			 out.duration_s, out.error ? out.error : "cancelled");
	} else {
		json = outcome_to_json(&out);
		rc = store_attempt_update(c->e->store, c->run_id,
					  c->a->task_id, c->a->attempt,
					  "agent_done", json, NULL, NULL, false,
					  err);
		eng_emit(c->e, obs, c->run_id, c->a->task_id, "agent_end",
			 "agent %s %s in %.1f s%s%s", ops->name, out.status,
			 out.duration_s, out.error ? ": " : "",
			 out.error ? out.error : "");
		free(c->a->agent_json);
		c->a->agent_json = json;
	}
	free(prompt);
	free(prompt_file);
	free(device);
	free(ws);
	agent_outcome_release(&out);
	return rc;
}

/* The final evaluation of an attempt: visible and held-out cases, against
 * the attempt's frozen baseline.  Writes task_result.yaml, then marks the
 * attempt done with the result and its source hash. */
int attempt_evaluate(struct attempt_ctx *c,
		     const struct engine_observer *obs,
		     struct task_result *res, struct errbuf *err)
{
	uint64_t seed = 0;
	bool has_seed = attempt_seed(c, &seed);
	struct eval_target tg = {
		.e = c->e,
		.task = c->task,
		.candidate_dir = c->workspace,
		.log_dir = c->logs,
		.cfg = c->cfg,
		.has_gpu = c->has_gpu,
		.gpu = c->gpu,
		.has_seed = has_seed,
		.seed = seed,
		.obs = obs,
		.run_id = c->run_id,
		.task_id = c->a->task_id,
		.attempt = c->a->attempt,
	};
	char *yaml, *path, *json;
	int rc;

	eng_emit(c->e, obs, c->run_id, c->a->task_id, "eval_start",
		 "final evaluation started");
	eng_progress(obs, c->run_id, c->a->task_id, c->a->attempt,
		     "evaluating");
	rc = eng_evaluate(&tg, NULL, false, true, res, err);
	if (rc)
		return rc;
	free(res->task_name);
	res->task_name = xstrdup(c->a->task_id);
	result_apply_agent(res, c->a->agent_json, c->agent->template_name,
			   c->a->agent_starts);
	free(res->agent_variant);
	res->agent_variant = xstrdup(c->a->variant ? c->a->variant : "");
	result_score(res);
	yaml = result_to_yaml(res);
	path = path_join(c->task_dir, "task_result.yaml");
	rc = file_write_atomic_str(path, yaml, err);
	free(path);
	free(yaml);
	if (rc)
		return rc;
	json = result_to_json(res);
	rc = store_attempt_update(c->e->store, c->run_id, c->a->task_id,
				  c->a->attempt, "done", NULL, json,
				  res->sources_hash, false, err);
	free(json);
	/* "ok: score 320.00, speedup 2.000 [1.950, 2.050]", then "; " and
	 * result_why (a compiler's message shortened to "compile error"). */
	const char *why = result_why(res);
	if (why && why == res->compilation_error_message)
		why = "compile error";
	/* Marked where it names a held-out case by id alone, so that the
	 * mount withholds it (result_view.h). */
	char *said = result_event_text(res, why);
	eng_emit(c->e, obs, c->run_id, c->a->task_id, "eval_end",
		 "%s: score %.2f, speedup %.3f [%.3f, %.3f]%s%s",
		 result_status_name(res->status), res->score,
		 res->speedup_ratio, res->speedup_ci_lo, res->speedup_ci_hi,
		 said ? "; " : "", said ? said : "");
	free(said);
	return rc;
}

/* True when the workspace still hashes to what the stored result saw. */
bool attempt_is_current(struct attempt_ctx *c)
{
	struct task_result probe;
	bool same;

	if (!c->a->result_json || !c->a->sources_hash)
		return false;
	result_init(&probe);
	same = eval_hash_sources(c->task, c->workspace, &probe, NULL) == 0 &&
	       strcmp(probe.sources_hash, c->a->sources_hash) == 0;
	result_release(&probe);
	return same;
}

/* ---- one attempt's current result ------------------------------------ */

int engine_task_result(struct engine *e, const char *run_id,
		       const char *task_id, int attempt,
		       struct task_result *out, struct errbuf *err)
{
	struct store_run run;
	struct store_attempt a;
	struct runconfig *cfg = NULL;
	struct attempt_ctx c = { .e = e, .run_id = run_id, .a = &a };
	int rc;

	rc = store_run_get(e->store, run_id, &run, err);
	if (rc)
		return rc;
	rc = store_attempt_get(e->store, run_id, task_id, attempt, &a, err);
	if (rc) {
		store_run_release(&run);
		return rc;
	}
	/* Finished is final: the final result, whatever the workspace
	 * holds now.  Only an executor (attempt_evaluate) ever writes it. */
	if (strcmp(a.state, "done") == 0 && a.result_json) {
		rc = result_from_json(a.result_json, out, err);
		goto out;
	}
	rc = engine_run_config(e, &run, &cfg, err);
	c.cfg = cfg;
	if (!rc)
		rc = attempt_prepare(&c, err);
	if (rc)
		goto out;
	/* Not final yet (the agent works, or its final evaluation has not
	 * run): what it has now, on the visible cases, cached, without
	 * touching the attempt. */
	struct eval_target tg = {
		.e = e,
		.task = c.task,
		.candidate_dir = c.workspace,
		.log_dir = c.logs,
		.cfg = cfg,
	};
	rc = eng_evaluate_cached(&tg, false, true, out, err);
	if (!rc) {
		free(out->task_name);
		out->task_name = xstrdup(task_id);
	}
out:
	attempt_ctx_release(&c);
	runconfig_free(cfg);
	store_attempt_release(&a);
	store_run_release(&run);
	return rc;
}

int engine_task_result_cached(struct engine *e, const char *run_id,
			      const char *task_id, int attempt,
			      struct task_result *out, char hash[65],
			      struct errbuf *err)
{
	struct store_run run;
	struct store_attempt a;
	struct runconfig *cfg = NULL;
	struct attempt_ctx c = { .e = e, .run_id = run_id, .a = &a };
	char key[65], *json = NULL;
	int rc;

	rc = store_run_get(e->store, run_id, &run, err);
	if (rc)
		return rc;
	rc = store_attempt_get(e->store, run_id, task_id, attempt, &a, err);
	if (rc) {
		store_run_release(&run);
		return rc;
	}
	rc = engine_run_config(e, &run, &cfg, err);
	c.cfg = cfg;
	/* The run's trusted copy, as the evaluation that filled the cache
	 * loaded it. */
	if (!rc)
		rc = eng_task_trusted(e, run_id, task_id, &c.task, err);
	if (rc)
		goto out;
	c.task_dir = store_task_dir(e->store, run_id, task_id, attempt);
	c.workspace = path_join(c.task_dir, "workspace");
	struct eval_target tg = {
		.e = e,
		.task = c.task,
		.candidate_dir = c.workspace,
		.cfg = cfg,
	};
	rc = eng_eval_key(&tg, false, key, hash, err);
	if (rc)
		goto out;
	if (store_eval_get(e->store, key, &json, NULL) != 0) {
		rc = -ESTALE;
		goto out;
	}
	rc = result_from_json(json, out, err);
	free(json);
	if (!rc) {
		free(out->task_name);
		out->task_name = xstrdup(task_id);
	}
out:
	attempt_ctx_release(&c);
	runconfig_free(cfg);
	store_attempt_release(&a);
	store_run_release(&run);
	return rc;
}
