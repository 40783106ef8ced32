/*
 * evaluate.c - evaluations through the engine: the device a task runs on,
 * the store's evaluation cache keyed by (task, sources, defines, device,
 * evaluator version, held-out), a file lock per key so that concurrent
 * callers share one evaluation, and engine_eval_dir (`arena eval`, the
 * filesystem's evaluate-on-read).
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
#include "lease.h"
#include "workspace.h"

/* ---- trusted copies ---------------------------------------------------- */

int eng_task_trusted(struct engine *e, const char *run_id, const char *task_id,
		     struct task **out, struct errbuf *err)
{
	char *root = store_trusted_root(e->store), *hash = NULL;
	char fresh[65];
	int rc = run_id ? store_trusted_get(e->store, run_id, task_id, &hash,
					    err)
			: -ENOENT;

	*out = NULL;
	if (rc == -ENOENT) {
		struct task *t;
		rc = task_load(e->tasks_root, task_id, &t, err);
		if (!rc) {
			rc = task_trust_copy(t->dir, root, fresh, err);
			task_free(t);
		}
		if (!rc && run_id)
			rc = store_trusted_set(e->store, run_id, task_id, fresh,
					       err);
		/* A concurrent first evaluation may have recorded another
		 * copy: the first one recorded is the run's. */
		if (!rc && run_id)
			rc = store_trusted_get(e->store, run_id, task_id, &hash,
					       err);
		else if (!rc)
			hash = xstrdup(fresh);
	}
	if (!rc)
		rc = task_load_trusted(root, hash, task_id, out, err);
	free(hash);
	free(root);
	return rc;
}

/* ---- evaluation ------------------------------------------------------ */


/* The device a task runs on: the config's (or detection's), with a
 * worker's index in place of its own when the task runs on a GPU
 * (`arena run --gpus`): "cuda:0" on worker 3 is "cuda:3". */
int eng_device_for(const struct runconfig *cfg, const struct task *t,
	       bool has_gpu, int gpu, char **device,
	       struct errbuf *err)
{
	int rc = engine_resolve_device(cfg ? cfg->device : NULL, t, device,
				       err);
	char *colon;

	if (rc || !has_gpu || !*device || !(colon = strchr(*device, ':')))
		return rc;
	char *d = xasprintf("%.*s:%d", (int)(colon - *device), *device, gpu);
	free(*device);
	*device = d;
	return 0;
}

int engine_check_gpus(struct engine *e, const struct runconfig *c,
		      const int *gpus, int ngpus, struct errbuf *err)
{
	for (size_t i = 0; i < c->task_ids.n; i++) {
		struct task *t;
		int rc = task_load(e->tasks_root, c->task_ids.v[i], &t, err);
		if (rc)
			return rc;
		for (int k = 0; k < ngpus && !rc; k++) {
			char *dev = NULL;
			rc = eng_device_for(c, t, true, gpus[k], &dev, err);
			if (!rc)
				rc = eval_check_device_exists(dev, err);
			if (!rc && c->target_gpu_model)
				rc = eval_check_gpu_model(dev,
							  c->target_gpu_model,
							  err);
			free(dev);
		}
		task_free(t);
		if (rc)
			return rc;
	}
	return 0;
}

uint64_t eng_fresh_seed(void)
{
	uint64_t s;

	random_bytes(&s, sizeof(s));
	return s;
}

void eng_progress(const struct engine_observer *obs, const char *run_id,
		  const char *task_id, int attempt, const char *what)
{
	if (obs && obs->progress)
		obs->progress(obs->ctx, run_id, task_id, attempt, what);
}

/* eval_request.progress: "evaluating: <step>" (or "trying: <step>" for
 * an agent's own quick evaluations, which autotune runs). */
static void eval_progress(void *ctx, const char *step)
{
	const struct eval_target *tg = ctx;
	char *what = xasprintf("evaluating: %s", step);

	eng_progress(tg->obs, tg->run_id, tg->task_id, tg->attempt, what);
	free(what);
}

int eng_evaluate(const struct eval_target *tg, const struct strvec *defines,
		 bool quick, bool held_out, struct task_result *out,
		 struct errbuf *err)
{
	struct eval_request req;
	char *device = tg->device ? xstrdup(tg->device) : NULL;
	int rc = device ? 0
			: eng_device_for(tg->cfg, tg->task, tg->has_gpu,
					 tg->gpu, &device, err);

	if (rc)
		return rc;
	eval_request_init(&req);
	req.task = tg->task;
	req.candidate_dir = tg->candidate_dir;
	req.cache_dir = tg->e->cache_dir;
	req.lock_dir = tg->e->lock_dir;
	req.log_dir = tg->log_dir;
	req.device = device;
	req.defines = defines;
	req.seed = tg->has_seed ? tg->seed : eng_fresh_seed();
	/* A seed that other evaluations share (an attempt's) draws the
	 * same trials for each: a Python reference's outputs are computed
	 * once per process.  A fresh seed could never be served.  A C, CUDA
	 * or HIP reference is not cached: it runs faster than the cache
	 * hashes its bytes (c2c/layernorm's large trial: 150 ms without,
	 * 475 ms with the cache's digests; make test about 20% slower). */
	if (tg->has_seed && language_is_python(tg->task->reference_language))
		req.refcache = tg->e->refcache;
	req.include_held_out = held_out;
	req.quick = quick;
	req.candidate_is_baseline = tg->aa;
	req.aa_timing_only = tg->aa && tg->aa_timing_only;
	if (tg->cfg)
		req.timing = tg->cfg->timing;
	if (tg->obs && tg->obs->progress) {
		req.progress = eval_progress;
		req.progress_ctx = (void *)tg;
	}
	if (tg->case_budget_s > 0)
		req.timing.case_budget_s = tg->case_budget_s;
	/* The result goes back while the runners' contexts are torn down;
	 * engine_close waits for them. */
	req.defer_teardown = true;
	rc = eval_run(&req, out, err);
	free(device);
	return rc;
}

/* The agent-facing evaluator used by autotune. */
int eng_agent_evaluate(void *ctx, const struct strvec *defines, bool quick,
		       struct task_result *out, struct errbuf *err)
{
	return eng_evaluate(ctx, defines, quick, false, out, err);
}

/* The evaluation cache key of tg's sources as they are now; hash (when
 * not NULL) receives their sources hash. */
int eng_eval_key(const struct eval_target *tg, bool held_out, char key[65],
		 char hash[65], struct errbuf *err)
{
	struct task_result probe;
	char *device = NULL;
	int rc;

	result_init(&probe);
	rc = eval_hash_sources(tg->task, tg->candidate_dir, &probe, err);
	if (!rc)
		rc = eng_device_for(tg->cfg, tg->task, tg->has_gpu, tg->gpu,
				    &device, err);
	if (rc) {
		result_release(&probe);
		return rc;
	}
	eval_cache_key(tg->task, probe.sources_hash, NULL, device, held_out,
		       key);
	/* Another trusted copy (another reference, baseline or held-out
	 * file) changes the meaning of a result. */
	if (tg->task->trusted_hash) {
		char *k2 =
			xasprintf("%s|trusted=%s", key, tg->task->trusted_hash);
		sha256_hex(k2, strlen(k2), key);
		free(k2);
	}
	if (hash)
		memcpy(hash, probe.sources_hash, 65);
	result_release(&probe);
	free(device);
	return 0;
}

/* Evaluates under the evaluation lock for `key`, reading and filling the
 * cache, so that concurrent callers (threads or processes) for the same key
 * share one evaluation. */
int eng_evaluate_cached(const struct eval_target *tg, bool held_out,
		    bool use_cache, struct task_result *out,
		    struct errbuf *err)
{
	char key[65], *lock = NULL, *json = NULL;
	int fd = -1, rc;

	rc = eng_eval_key(tg, held_out, key, NULL, err);
	if (rc)
		return rc;

	lock = xasprintf("%s/evals/%s.lock", tg->e->cache_dir, key);
	rc = eng_lock_path(lock, LOCK_WAIT, &fd, err);
	free(lock);
	if (rc)
		return rc;
	if (use_cache &&
	    store_eval_get(tg->e->store, key, &json, NULL) == 0) {
		rc = result_from_json(json, out, err);
		free(json);
		if (rc == 0) {
			eng_unlock_fd(fd);
			return 0;
		}
		result_release(out);
		result_init(out);
	}
	rc = eng_evaluate(tg, NULL, false, held_out, out, err);
	if (rc == 0 && out->status != RS_INFRA_ERROR) {
		json = result_to_json(out);
		store_eval_put(tg->e->store, key, tg->task->id,
			       out->sources_hash, out->device, json, NULL);
		free(json);
	}
	eng_unlock_fd(fd);
	return rc;
}

int engine_eval_dir(struct engine *e, const char *task_id, const char *dir,
		    const struct eval_options *opt, struct task_result *out,
		    struct errbuf *err)
{
	struct eval_options none = { 0 };
	struct task *t;
	int rc;

	if (!opt)
		opt = &none;
	if (!opt->aa && !dir_exists(dir))
		return errf_code(err, ENOENT, "%s: no such directory", dir);
	rc = eng_task_trusted(e, NULL, task_id, &t, err);
	if (rc)
		return rc;
	/* A/A: the baseline, under the editable names, as the candidate
	 * (its own runner, untrusted like any candidate's; the evaluator's
	 * baseline still comes from the trusted copy). */
	char *abs = NULL, *base = NULL;
	if (opt->aa) {
		rc = workspace_baseline_dir(t, e->cache_dir, &base, err);
		if (rc) {
			task_free(t);
			return rc;
		}
		abs = xstrdup(base ? base : t->dir);
	} else {
		abs = path_real(dir);
	}
	struct eval_target tg = {
		.e = e,
		.task = t,
		.candidate_dir = abs,
		.log_dir = opt->log_dir,
		.has_seed = opt->has_seed,
		.seed = opt->seed,
		.case_budget_s = opt->case_budget_s,
		.aa = opt->aa,
		.aa_timing_only = opt->timing_only,
		.device = opt->device,
		.has_gpu = opt->has_gpu,
		.gpu = opt->gpu,
	};
	if (opt->quick || opt->aa || opt->case_budget_s > 0 || opt->device ||
	    (opt->defines && opt->defines->n))
		rc = eng_evaluate(&tg, opt->defines, opt->quick, opt->held_out, out,
			      err);
	else
		rc = eng_evaluate_cached(&tg, opt->held_out, !opt->no_cache, out,
				     err);
	if (rc == 0) {
		free(out->task_name);
		out->task_name = xstrdup(t->id);
	}
	free(abs);
	free(base);
	task_free(t);
	return rc;
}
