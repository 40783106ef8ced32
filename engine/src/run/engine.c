/*
 * engine.c - runs, attempts and evaluations on top of the store
 * (arena/engine.h).
 *
 * State machine of an attempt (stored in the attempts table):
 *
 *   pending --agent starts--> agent_running --agent returns--> agent_done
 *     --final evaluation--> done
 *
 * Every transition is recorded before the work that follows it, so a
 * process killed at any point leaves a state from which
 * engine_run_execute() knows what to do: an attempt found in agent_running
 * had its agent interrupted and is launched again on the same workspace
 * (nothing the agent wrote is lost; agent_starts counts the restarts); an
 * attempt in agent_done is evaluated; a done attempt whose workspace no
 * longer matches the hash of its result is re-evaluated; a done attempt
 * that matches is left alone.  task_result.yaml is written atomically
 * before the attempt is marked done, and the database row is the truth.
 *
 * Locks (OFD record locks, released when their holder's descriptor
 * closes, so they vanish with the process that held them):
 *   runs/<id>/.lock                 one executor per run
 *   runs/<id>/tasks/<t>/.eval.lock  one final evaluation of an attempt at
 *                                   a time (the executor's or a reader's)
 *   cache/evals/<key>.lock          one evaluation per (task, sources, ...)
 *                                   at a time; a second caller waits, then
 *                                   reads the cache
 *   locks/<device>.lock             one timing phase per device (eval.c)
 *
 * Agent configurations: a run with several (`agents:`) numbers the
 * (repeat, configuration) slots of each task as attempts; every slot of
 * one (task, repeat) shares the evaluation seed, and the slots run in an
 * order drawn from the run seed.
 */
#include "arena/engine.h"

#include <cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arena/agent.h"
#include "arena/eval.h"
#include "arena/report.h"
#include "lease.h"
#include "workspace.h"

struct engine {
	struct store *store;
	char *tasks_root;
	char *cache_dir;
	char *lock_dir;
	engine_workspace_view_fn ws_view;	/* set by the front end */
	void *ws_view_ctx;
};

/* ---- small helpers --------------------------------------------------- */

/* Locks are open-file-description (OFD) record locks on the whole file:
 * released when the holder's descriptor closes or its process dies, shared
 * correctly between threads (each open is its own description), and
 * testable without taking them (F_OFD_GETLK), so asking whether a run has
 * an executor never gets in the executor's way. */
enum { LOCK_WAIT = 0, LOCK_TRY = 1 };

static int lock_path(const char *path, int mode, int *fd_out,
		     struct errbuf *err)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);

	if (fd < 0)
		return errf_code(err, errno, "%s: cannot open lock: %s", path,
				 strerror(errno));
	while (fcntl(fd, mode == LOCK_TRY ? F_OFD_SETLK : F_OFD_SETLKW,
		     &fl) != 0) {
		if (errno == EINTR)
			continue;
		int e = errno;
		close(fd);
		if (e == EAGAIN || e == EACCES)
			return -EBUSY;
		return errf_code(err, e, "%s: cannot lock: %s", path,
				 strerror(e));
	}
	*fd_out = fd;
	return 0;
}

/* True when some process holds the lock on path (it is not taken). */
static bool lock_is_held(const char *path)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool held = false;

	if (fd < 0)
		return false;
	if (fcntl(fd, F_OFD_GETLK, &fl) == 0)
		held = fl.l_type != F_UNLCK;
	close(fd);
	return held;
}

static void unlock_fd(int fd)
{
	if (fd >= 0)
		close(fd);	/* closing the description releases the lock */
}

static void emit(struct engine *e, const struct engine_observer *obs,
		 const char *run_id, const char *task_id, const char *kind,
		 const char *fmt, ...) __attribute__((format(printf, 6, 7)));

static void emit(struct engine *e, const struct engine_observer *obs,
		 const char *run_id, const char *task_id, const char *kind,
		 const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	/* Events are a log: a failure to record one must not stop a run. */
	store_event_add(e->store, run_id, task_id, kind, strbuf_str(&sb), NULL);
	if (obs && obs->event)
		obs->event(obs->ctx, run_id, task_id, kind, strbuf_str(&sb));
	strbuf_release(&sb);
}

/* ---- open / close ---------------------------------------------------- */

int engine_open(const char *store_dir, const char *tasks_root,
		struct engine **out, struct errbuf *err)
{
	struct engine *e = xcalloc(1, sizeof(*e));
	int rc = store_open(store_dir, &e->store, err);

	if (rc) {
		free(e);
		return rc;
	}
	e->tasks_root = xstrdup(tasks_root ? tasks_root : task_default_root());
	e->cache_dir = path_join(store_root(e->store), "cache");
	e->lock_dir = path_join(store_root(e->store), "locks");
	char *evals = path_join(e->cache_dir, "evals");
	rc = mkdir_p(evals, err);
	free(evals);
	if (!rc)
		rc = mkdir_p(e->lock_dir, err);
	if (rc) {
		engine_close(e);
		return rc;
	}
	*out = e;
	return 0;
}

void engine_close(struct engine *e)
{
	if (!e)
		return;
	store_close(e->store);
	free(e->tasks_root);
	free(e->cache_dir);
	free(e->lock_dir);
	free(e);
}

struct store *engine_store(struct engine *e)
{
	return e->store;
}

void engine_set_workspace_view(struct engine *e, engine_workspace_view_fn fn,
			       void *ctx)
{
	e->ws_view = fn;
	e->ws_view_ctx = ctx;
}

const char *engine_tasks_root(const struct engine *e)
{
	return e->tasks_root;
}

/* ---- configs --------------------------------------------------------- */

int engine_resolve_device(const char *configured, const struct task *t,
			  char **device, struct errbuf *err)
{
	/* The evaluator knows which devices exist and what runs on them. */
	return eval_resolve_device(configured, t, device, err);
}

static int config_check_agent(const struct runconfig *c,
			      const struct agent_config *a, const char *field,
			      struct errbuf *err)
{
	const struct agent_ops *ops = agent_find(a->template_name);

	if (!ops) {
		struct strbuf names = STRBUF_INIT;
		agent_list(&names);
		errf(err, "%s: %s.template: unknown agent '%s'; available: "
		     "%s", c->path, field, a->template_name,
		     strbuf_str(&names));
		strbuf_release(&names);
		return -EINVAL;
	}
	if (ops->validate) {
		int rc = ops->validate(a, err);
		if (rc) {
			errbuf_prefix(err, "%s: %s", c->path, field);
			return rc;
		}
	}
	return 0;
}

static int config_check(struct engine *e, struct runconfig *c,
			struct errbuf *err)
{
	for (int v = 0; v < c->nvariants; v++) {
		char field[32];
		if (c->nvariants == 1)
			snprintf(field, sizeof(field), "agent");
		else
			snprintf(field, sizeof(field), "agents[%d]", v);
		int rc = config_check_agent(c, &c->variants[v].agent, field,
					    err);
		if (rc)
			return rc;
	}
	for (size_t i = 0; i < c->task_ids.n; i++) {
		struct task *t;
		char *dev = NULL;
		int rc = task_load(e->tasks_root, c->task_ids.v[i], &t, err);
		if (rc) {
			errbuf_prefix(err, "%s: tasks", c->path);
			return rc;
		}
		rc = engine_resolve_device(c->device, t, &dev, err);
		task_free(t);
		if (rc) {
			free(dev);
			errbuf_prefix(err, "%s: device", c->path);
			return rc;
		}
		/* The config's target_gpu_model must be the device found. */
		if (c->target_gpu_model)
			rc = eval_check_gpu_model(dev, c->target_gpu_model, err);
		free(dev);
		if (rc) {
			errbuf_prefix(err, "%s: target_gpu_model", c->path);
			return rc;
		}
	}
	return 0;
}

int engine_config_parse(struct engine *e, const char *source, const char *text,
			size_t len, struct runconfig **out, struct errbuf *err)
{
	struct runconfig *c;
	int rc = runconfig_parse(source, text, len, e->tasks_root, &c, err);

	if (rc)
		return rc;
	rc = config_check(e, c, err);
	if (rc) {
		runconfig_free(c);
		return rc;
	}
	*out = c;
	return 0;
}

int engine_config_load(struct engine *e, const char *path,
		       struct runconfig **out, struct errbuf *err)
{
	char *text;
	size_t len;
	int rc = file_read_all(path, RUNCONFIG_MAX_BYTES, &text, &len, err);

	if (rc)
		return rc;
	rc = engine_config_parse(e, path, text, len, out, err);
	free(text);
	return rc;
}

/* ---- run creation ---------------------------------------------------- */

int engine_run_config(struct engine *e, const struct store_run *run,
		      struct runconfig **out, struct errbuf *err)
{
	const char *yaml = run->config_yaml ? run->config_yaml : "";

	return engine_config_parse(e, run->config_path ? run->config_path
						       : "config.yaml",
				   yaml, strlen(yaml), out, err);
}

int engine_run_create(struct engine *e, const struct runconfig *cfg,
		      const char *suffix, char **run_id, struct errbuf *err)
{
	struct store_run r = { 0 };
	char *run_dir = NULL, *cfg_path = NULL;
	int rc;

	r.config_path = cfg->path;
	r.config_yaml = cfg->text;
	r.agent = cfg->agent.template_name;
	r.device = cfg->device ? cfg->device : (char *)"auto";
	r.status = (char *)"created";
	r.ntasks = (int)cfg->task_ids.n * cfg->repeats * cfg->nvariants;
	rc = store_run_create(e->store, &r, suffix, err);
	if (rc)
		return rc;
	char *id = r.id;

	run_dir = store_run_dir(e->store, id);
	cfg_path = path_join(run_dir, "config.yaml");
	rc = file_write_atomic_str(cfg_path, cfg->text, err);
	for (size_t i = 0; !rc && i < cfg->task_ids.n; i++) {
		struct task *t;
		rc = task_load(e->tasks_root, cfg->task_ids.v[i], &t, err);
		/* Attempt numbers the (repeat, variant) slots:
		 * (repeat - 1) * nvariants + variant + 1. */
		for (int a = 1; !rc && a <= cfg->repeats * cfg->nvariants;
		     a++) {
			int v = (a - 1) % cfg->nvariants;
			int repeat = (a - 1) / cfg->nvariants + 1;
			char *dir = store_task_dir(e->store, id, t->id, a);
			rc = workspace_create(t, dir, err);
			free(dir);
			if (!rc)
				rc = store_attempt_insert(e->store, id, t->id, a,
							  cfg->variants[v].name,
							  repeat, err);
		}
		if (t)
			task_free(t);
	}
	free(cfg_path);
	free(run_dir);
	if (rc) {
		store_run_set_status(e->store, id, "failed", NULL);
		free(id);
		return rc;
	}
	emit(e, NULL, id, NULL, "created", "run created: %zu task(s) x %d "
	     "repeat(s) x %d agent configuration(s), first agent %s",
	     cfg->task_ids.n, cfg->repeats, cfg->nvariants,
	     cfg->agent.template_name);
	engine_run_report(e, id, NULL);
	*run_id = id;
	return 0;
}

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
	cJSON_AddNumberToObject(j, "cost_usd", o->cost_usd);
	if (o->summary)
		cJSON_AddStringToObject(j, "summary", o->summary);
	cJSON_AddBoolToObject(j, "sandboxed", o->sandboxed);
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
		r->agent_cost_usd = json_num(j, "cost_usd");
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

/* ---- evaluation ------------------------------------------------------ */

struct eval_target {
	struct engine *e;
	const struct task *task;
	const char *candidate_dir;
	const char *baseline_dir;	/* NULL: task package */
	const char *log_dir;
	const struct runconfig *cfg;	/* NULL: defaults */
	bool has_gpu;			/* a worker's device (--gpus) */
	int gpu;
	uint64_t seed;
	bool has_seed;
};

/* The device a task runs on: the config's (or detection's), with a
 * worker's index in place of its own when the task runs on a GPU
 * (`arena run --gpus`): "cuda:0" on worker 3 is "cuda:3". */
static int device_for(const struct runconfig *cfg, const struct task *t,
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
			rc = device_for(c, t, true, gpus[k], &dev, err);
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

static uint64_t fresh_seed(void)
{
	uint64_t s;

	random_bytes(&s, sizeof(s));
	return s;
}

static int evaluate(const struct eval_target *tg, const struct strvec *defines,
		    bool quick, bool held_out, struct task_result *out,
		    struct errbuf *err)
{
	struct eval_request req;
	char *device = NULL;
	int rc = device_for(tg->cfg, tg->task, tg->has_gpu, tg->gpu, &device,
			    err);

	if (rc)
		return rc;
	eval_request_init(&req);
	req.task = tg->task;
	req.candidate_dir = tg->candidate_dir;
	req.baseline_dir = tg->baseline_dir;
	req.cache_dir = tg->e->cache_dir;
	req.lock_dir = tg->e->lock_dir;
	req.log_dir = tg->log_dir;
	req.device = device;
	req.defines = defines;
	req.seed = tg->has_seed ? tg->seed : fresh_seed();
	req.include_held_out = held_out;
	req.quick = quick;
	if (tg->cfg)
		req.timing = tg->cfg->timing;
	rc = eval_run(&req, out, err);
	free(device);
	return rc;
}

/* The agent-facing evaluator used by autotune. */
static int agent_evaluate_cb(void *ctx, const struct strvec *defines,
			     bool quick, struct task_result *out,
			     struct errbuf *err)
{
	return evaluate(ctx, defines, quick, false, out, err);
}

/* Evaluates under the evaluation lock for `key`, reading and filling the
 * cache, so that concurrent callers (threads or processes) for the same key
 * share one evaluation. */
static int evaluate_cached(const struct eval_target *tg, bool held_out,
			   bool use_cache, struct task_result *out,
			   struct errbuf *err)
{
	struct task_result probe;
	char key[65], *lock = NULL, *json = NULL;
	char *device = NULL;
	int fd = -1, rc;

	result_init(&probe);
	rc = eval_hash_sources(tg->task, tg->candidate_dir, &probe, err);
	if (!rc)
		rc = device_for(tg->cfg, tg->task, tg->has_gpu, tg->gpu, &device,
			    err);
	if (rc) {
		result_release(&probe);
		return rc;
	}
	eval_cache_key(tg->task, probe.sources_hash, NULL, device, held_out,
		       key);
	/* A baseline other than the task's changes the meaning of a result;
	 * fold its path into the key. */
	if (tg->baseline_dir) {
		char *k2 = xasprintf("%s|%s", key, tg->baseline_dir);
		sha256_hex(k2, strlen(k2), key);
		free(k2);
	}
	result_release(&probe);
	free(device);

	lock = xasprintf("%s/evals/%s.lock", tg->e->cache_dir, key);
	rc = lock_path(lock, LOCK_WAIT, &fd, err);
	free(lock);
	if (rc)
		return rc;
	if (use_cache &&
	    store_eval_get(tg->e->store, key, &json, NULL) == 0) {
		rc = result_from_json(json, out, err);
		free(json);
		if (rc == 0) {
			unlock_fd(fd);
			return 0;
		}
		result_release(out);
		result_init(out);
	}
	rc = evaluate(tg, NULL, false, held_out, out, err);
	if (rc == 0 && out->status != RS_INFRA_ERROR) {
		json = result_to_json(out);
		store_eval_put(tg->e->store, key, tg->task->id,
			       out->sources_hash, out->device, json, NULL);
		free(json);
	}
	unlock_fd(fd);
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
	rc = task_load(e->tasks_root, task_id, &t, err);
	if (rc)
		return rc;
	char *abs = NULL, *base = NULL;
	rc = workspace_baseline_dir(t, e->cache_dir, &base, err);
	if (rc) {
		task_free(t);
		return rc;
	}
	/* A/A: the baseline, under the editable names, as the candidate
	 * (its own runner, untrusted like any candidate's). */
	abs = opt->aa ? xstrdup(base ? base : t->dir) : path_real(dir);
	struct eval_target tg = {
		.e = e, .task = t, .candidate_dir = abs, .baseline_dir = base,
		.log_dir = opt->log_dir, .has_seed = opt->has_seed,
		.seed = opt->seed,
	};
	if (opt->quick || opt->aa || (opt->defines && opt->defines->n))
		rc = evaluate(&tg, opt->defines, opt->quick, opt->held_out, out,
			      err);
	else
		rc = evaluate_cached(&tg, opt->held_out, !opt->no_cache, out,
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

/* ---- run execution --------------------------------------------------- */

struct attempt_ctx {
	struct engine *e;
	const struct runconfig *cfg;
	bool has_gpu;				/* a worker's device (--gpus) */
	int gpu;
	const struct agent_config *agent;	/* this attempt's variant */
	const char *run_id;
	struct store_attempt *a;
	struct task *task;
	char *task_dir;
	char *workspace;
	char *baseline;
	char *logs;
};

static void attempt_ctx_release(struct attempt_ctx *c)
{
	task_free(c->task);
	free(c->task_dir);
	free(c->workspace);
	free(c->baseline);
	free(c->logs);
}

/* The evaluation seed of an attempt.  Every agent configuration of one
 * (task, repeat) gets the same seed, so they are judged on the same
 * inputs. */
static uint64_t attempt_seed(const struct runconfig *cfg, const char *task_id,
			     int repeat)
{
	if (!cfg->has_seed)
		return fresh_seed();
	return mix64(hash64_str(cfg->seed, task_id) ^ (uint64_t)repeat);
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

static int attempt_prepare(struct attempt_ctx *c, struct errbuf *err)
{
	int rc = task_load(c->e->tasks_root, c->a->task_id, &c->task, err);

	if (rc)
		return rc;
	if (c->cfg)
		c->agent = attempt_agent(c->cfg, c->a);
	c->task_dir = store_task_dir(c->e->store, c->run_id, c->a->task_id,
				     c->a->attempt);
	c->workspace = path_join(c->task_dir, "workspace");
	c->baseline = path_join(c->task_dir, "baseline");
	c->logs = path_join(c->task_dir, "logs");
	/* Repairs a creation interrupted half-way; keeps existing files. */
	return workspace_create(c->task, c->task_dir, err);
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

static int attempt_run_agent(struct attempt_ctx *c,
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
	emit(c->e, obs, c->run_id, c->a->task_id, "agent_start",
	     "agent %s%s%s started%s", ops->name,
	     c->a->variant && *c->a->variant ? " as " : "",
	     c->a->variant ? c->a->variant : "",
	     c->a->agent_starts > 0 ? " again (previous launch interrupted)"
				    : "");
	char *ws = agent_workspace(c);
	prompt = prompt_render(c->task, ws, c->agent->max_iterations);
	prompt_file = path_join(c->logs, "prompt.txt");
	file_write_atomic_str(prompt_file, prompt, NULL);

	struct eval_target tg = {
		.e = c->e, .task = c->task, .candidate_dir = c->workspace,
		.baseline_dir = c->baseline, .log_dir = c->logs, .cfg = c->cfg,
		.has_gpu = c->has_gpu, .gpu = c->gpu,
		.has_seed = c->cfg->has_seed,
		.seed = attempt_seed(c->cfg, c->a->task_id, c->a->repeat),
	};
	l.task = c->task;
	l.config = c->agent;
	l.workspace = ws;
	l.prompt = prompt;
	l.prompt_file = prompt_file;
	l.log_dir = c->logs;
	l.timeout_s = c->agent->timeout_seconds > 0
			      ? c->agent->timeout_seconds : 3600;
	l.evaluate = agent_evaluate_cb;
	l.evaluate_ctx = &tg;
	l.run_id = c->run_id;
	l.attempt = c->a->attempt;
	l.store_dir = store_root(c->e->store);
	l.tasks_root = c->e->tasks_root;
	char *device = NULL;
	device_for(c->cfg, c->task, c->has_gpu, c->gpu, &device, NULL);
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
	json = outcome_to_json(&out);
	rc = store_attempt_update(c->e->store, c->run_id, c->a->task_id,
				  c->a->attempt, "agent_done", json, NULL, NULL,
				  false, err);
	emit(c->e, obs, c->run_id, c->a->task_id, "agent_end",
	     "agent %s %s in %.1f s%s%s", ops->name, out.status,
	     out.duration_s, out.error ? ": " : "",
	     out.error ? out.error : "");
	free(c->a->agent_json);
	c->a->agent_json = json;
	c->a->agent_starts++;
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
static int attempt_evaluate(struct attempt_ctx *c,
			    const struct engine_observer *obs,
			    struct task_result *res, struct errbuf *err)
{
	struct eval_target tg = {
		.e = c->e, .task = c->task, .candidate_dir = c->workspace,
		.baseline_dir = c->baseline, .log_dir = c->logs, .cfg = c->cfg,
		.has_gpu = c->has_gpu, .gpu = c->gpu,
		.has_seed = c->cfg->has_seed,
		.seed = attempt_seed(c->cfg, c->a->task_id, c->a->repeat),
	};
	char *yaml, *path, *json;
	int rc;

	emit(c->e, obs, c->run_id, c->a->task_id, "eval_start",
	     "final evaluation started");
	rc = evaluate(&tg, NULL, false, true, res, err);
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
	emit(c->e, obs, c->run_id, c->a->task_id, "eval_end",
	     "%s: score %.2f, speedup %.3f [%.3f, %.3f]%s%s",
	     result_status_name(res->status), res->score, res->speedup_ratio,
	     res->speedup_ci_lo, res->speedup_ci_hi,
	     res->correctness_error_message ? "; " : "",
	     res->correctness_error_message ? res->correctness_error_message
					    : res->compilation_error_message
						      ? "compile error" : "");
	return rc;
}

/* True when the workspace still hashes to what the stored result saw. */
static bool attempt_is_current(struct attempt_ctx *c)
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

struct attempt_order {
	uint64_t key;
	int index;
	const struct store_attempt *a;
};

static int attempt_order_cmp(const void *x, const void *y)
{
	const struct attempt_order *p = x, *q = y;
	int c = strcmp(p->a->task_id, q->a->task_id);

	if (c)
		return c;
	if (p->a->repeat != q->a->repeat)
		return p->a->repeat < q->a->repeat ? -1 : 1;
	if (p->key != q->key)
		return p->key < q->key ? -1 : 1;
	return p->index - q->index;
}

/* Orders attempts by task and repeat and, inside one (task, repeat), the
 * agent configurations in an order drawn from the run's seed (or the run
 * id), so no configuration is always first on a warm or cold machine. */
static void order_attempts(const struct runconfig *cfg, const char *run_id,
			   struct store_attempt *as, int n)
{
	struct attempt_order *ord = xcalloc((size_t)n + 1, sizeof(*ord));
	struct store_attempt *copy = xcalloc((size_t)n + 1, sizeof(*copy));
	uint64_t seed = cfg->has_seed ? cfg->seed : hash64_str(0, run_id);

	for (int i = 0; i < n; i++) {
		ord[i].index = i;
		ord[i].a = &as[i];
		ord[i].key = hash64_str(mix64(seed ^ (uint64_t)as[i].repeat),
					as[i].variant ? as[i].variant : "");
		ord[i].key ^= hash64_str(seed, as[i].task_id);
	}
	qsort(ord, (size_t)n, sizeof(*ord), attempt_order_cmp);
	for (int i = 0; i < n; i++)
		copy[i] = as[ord[i].index];
	memcpy(as, copy, (size_t)n * sizeof(*as));
	free(copy);
	free(ord);
}

static bool run_cancel_requested(struct engine *e, const char *run_id)
{
	struct store_run r;
	bool cancel = false;

	if (store_run_get(e->store, run_id, &r, NULL) == 0) {
		cancel = strcmp(r.status, "cancelling") == 0;
		store_run_release(&r);
	}
	return cancel;
}

static int run_one_attempt(struct engine *e, const struct runconfig *cfg,
			   const char *run_id, struct store_attempt *a,
			   bool has_gpu, int gpu,
			   const struct engine_observer *obs,
			   struct errbuf *err)
{
	struct attempt_ctx c = { .e = e, .cfg = cfg, .run_id = run_id, .a = a,
				 .has_gpu = has_gpu, .gpu = gpu };
	struct task_result res;
	int rc;

	result_init(&res);
	rc = attempt_prepare(&c, err);
	if (rc)
		goto out;
	if (strcmp(a->state, "done") == 0) {
		if (attempt_is_current(&c))
			goto out;
		emit(e, obs, run_id, a->task_id, "stale",
		     "workspace changed since its result: re-evaluating");
	} else if (strcmp(a->state, "pending") == 0 ||
		   strcmp(a->state, "agent_running") == 0) {
		rc = attempt_run_agent(&c, obs, err);
		if (rc)
			goto out;
	}
	if (run_cancel_requested(e, run_id))
		goto out;
	/* The attempt's lock: a `cat score` at this moment waits for this
	 * evaluation and then reads its result, instead of running a second
	 * one beside it (which would also disturb its timing). */
	char *lock = path_join(c.task_dir, ".eval.lock");
	int lfd = -1;
	rc = lock_path(lock, LOCK_WAIT, &lfd, err);
	free(lock);
	if (rc)
		goto out;
	/* A reader may have evaluated these very sources while we waited. */
	struct store_attempt fresh;
	if (store_attempt_get(e->store, run_id, a->task_id, a->attempt, &fresh,
			      NULL) == 0) {
		c.a = &fresh;
		bool current = attempt_is_current(&c);
		c.a = a;
		store_attempt_release(&fresh);
		if (current) {
			unlock_fd(lfd);
			goto out;
		}
	}
	rc = attempt_evaluate(&c, obs, &res, err);
	unlock_fd(lfd);
out:
	result_release(&res);
	attempt_ctx_release(&c);
	return rc;
}

/* The attempts of one execution, shared by its workers: each takes the
 * next attempt in the run's order until none is left or the run is
 * cancelled (`arena run --gpus 0,1`: one worker per device).  Every
 * attempt is run under a lease in the store, so executions in other
 * processes (`arena worker`, Slurm array elements) never run it twice. */
struct run_queue {
	struct engine *e;
	const struct runconfig *cfg;
	const char *run_id;
	const struct engine_observer *obs;
	struct store_attempt *as;
	int n, next;
	int only;		/* index of the one attempt to run, or -1 */
	const struct lease_keeper *lease;
	int leased_elsewhere;	/* attempts skipped: another worker's */
	bool cancelled;
	pthread_mutex_t mu;	/* next, counters, and the reports */
};

/* Runs attempt a under a lease: skipped when another worker holds it,
 * and re-read after the lease is taken (that worker may have finished
 * it meanwhile). */
static void run_leased(struct run_queue *q, struct store_attempt *a,
		       bool has_gpu, int gpu)
{
	struct errbuf aerr;
	struct store_attempt fresh;
	int rc;

	errbuf_init(&aerr);
	rc = store_lease_take(q->e->store, q->run_id, a->task_id, a->attempt,
			      q->lease->owner, q->lease->ttl_s, &aerr);
	if (rc == -EBUSY) {
		/* A killed process on this host (`arena run` before a
		 * resume) holds it: no need to wait for its lease to end. */
		char *holder = NULL;
		if (store_lease_owner(q->e->store, q->run_id, a->task_id,
				      a->attempt, &holder, NULL) == 0 &&
		    lease_owner_dead_here(holder)) {
			errbuf_init(&aerr);
			rc = store_lease_take_from(q->e->store, q->run_id,
						   a->task_id, a->attempt,
						   q->lease->owner,
						   q->lease->ttl_s, holder,
						   &aerr);
		}
		free(holder);
	}
	if (rc == -EBUSY) {
		pthread_mutex_lock(&q->mu);
		q->leased_elsewhere++;
		pthread_mutex_unlock(&q->mu);
		return;
	}
	if (rc == 0)
		rc = store_attempt_get(q->e->store, q->run_id, a->task_id,
				       a->attempt, &fresh, &aerr);
	if (rc == 0) {
		rc = run_one_attempt(q->e, q->cfg, q->run_id, &fresh, has_gpu,
				     gpu, q->obs, &aerr);
		store_attempt_release(&fresh);
	}
	(void)store_lease_drop(q->e->store, q->run_id, a->task_id, a->attempt,
			       q->lease->owner, NULL);
	/* One task's failure (e.g. its package vanished) is recorded and
	 * the run goes on. */
	if (rc)
		emit(q->e, q->obs, q->run_id, a->task_id, "error", "%s",
		     errbuf_str(&aerr));
}

struct run_worker {
	struct run_queue *q;
	bool has_gpu;
	int gpu;
	pthread_t th;
	bool started;		/* th runs it */
};

static void *run_worker_main(void *arg)
{
	struct run_worker *w = arg;
	struct run_queue *q = w->q;

	for (;;) {
		pthread_mutex_lock(&q->mu);
		int i = q->cancelled || q->next >= q->n ? -1 : q->next++;
		pthread_mutex_unlock(&q->mu);
		if (i < 0)
			break;
		if (run_cancel_requested(q->e, q->run_id)) {
			pthread_mutex_lock(&q->mu);
			q->cancelled = true;
			pthread_mutex_unlock(&q->mu);
			break;
		}
		if (q->only >= 0 && i != q->only)
			continue;
		run_leased(q, &q->as[i], w->has_gpu, w->gpu);
		pthread_mutex_lock(&q->mu);
		engine_run_report(q->e, q->run_id, NULL);
		pthread_mutex_unlock(&q->mu);
	}
	return NULL;
}

/* Runs the queue on one worker per device of gpus (none: one worker on
 * the config's device), the first in this thread. */
static void run_workers(struct run_queue *q, const int *gpus, int ngpus)
{
	struct run_worker *w;
	int nw = ngpus > 0 ? ngpus : 1;

	w = xcalloc((size_t)nw, sizeof(*w));
	for (int k = 0; k < nw; k++)
		w[k] = (struct run_worker){ .q = q, .has_gpu = ngpus > 0,
					    .gpu = ngpus > 0 ? gpus[k] : 0 };
	for (int k = 1; k < nw; k++)
		w[k].started = pthread_create(&w[k].th, NULL, run_worker_main,
					      &w[k]) == 0;
	run_worker_main(&w[0]);
	for (int k = 1; k < nw; k++)
		if (w[k].started)
			pthread_join(w[k].th, NULL);
	free(w);
}

/* How one execution of a run goes: an executor's (`arena run`, `resume`:
 * holds the run's lock, runs every attempt) or a worker's (`arena worker`,
 * a Slurm array element: no run lock, every attempt or just one). */
struct exec_opts {
	const int *gpus;
	int ngpus;
	int only;		/* attempt index in the run's order, or -1 */
	double lease_s;
	bool worker;
};

static bool run_all_done(struct engine *e, const char *run_id)
{
	struct store_attempt *as = NULL;
	int n = 0;
	bool all = store_attempt_list(e->store, run_id, &as, &n, NULL) == 0;

	for (int i = 0; all && i < n; i++)
		all = strcmp(as[i].state, "done") == 0;
	store_attempts_free(as, n);
	return all;
}

/* The run's status once this execution has stopped: cancelled; done when
 * it went through every attempt itself (those that failed stay failed,
 * as they always have) or every attempt is done, whoever ran them; else
 * still running for the workers that hold the rest. */
static int execution_finish(struct engine *e, const char *run_id,
			    const struct run_queue *q,
			    const struct engine_observer *obs,
			    struct errbuf *err)
{
	int rc = 0;

	if (q->cancelled || run_cancel_requested(e, run_id)) {
		rc = store_run_set_status(e->store, run_id, "cancelled", err);
		emit(e, obs, run_id, NULL, "cancelled", "run cancelled");
	} else if ((q->only < 0 && q->leased_elsewhere == 0) ||
		   run_all_done(e, run_id)) {
		rc = store_run_set_status(e->store, run_id, "done", err);
		emit(e, obs, run_id, NULL, "done", "run finished");
	} else if (q->leased_elsewhere > 0) {
		emit(e, obs, run_id, NULL, "waiting", "%d attempt(s) held by "
		     "other workers; the last worker to finish completes the "
		     "run", q->leased_elsewhere);
	}
	engine_run_report(e, run_id, NULL);
	return rc;
}

static int execute(struct engine *e, const char *run_id,
		   const struct exec_opts *o, const struct engine_observer *obs,
		   struct errbuf *err)
{
	struct store_run run;
	struct runconfig *cfg = NULL;
	struct store_attempt *as = NULL;
	struct lease_keeper lease = { 0 };
	const int *gpus = o->gpus;
	int ngpus = o->ngpus;
	int n = 0, fd = -1, rc;

	rc = store_run_get(e->store, run_id, &run, err);
	if (rc)
		return rc;
	if (!o->worker) {
		char *run_dir = store_run_dir(e->store, run_id);
		char *lock = path_join(run_dir, ".lock");
		free(run_dir);
		rc = lock_path(lock, LOCK_TRY, &fd, err);
		free(lock);
		if (rc == -EBUSY) {
			errf_code(err, EBUSY, "run %s is being executed by "
				  "another process; 'arena status %s' shows "
				  "its progress", run_id, run_id);
			goto out;
		}
		if (rc)
			goto out;
	}
	rc = engine_run_config(e, &run, &cfg, err);
	if (rc) {
		errbuf_prefix(err, "run %s: its config no longer validates",
			      run_id);
		goto out;
	}
	/* A cancel that arrived while this execution was starting wins. */
	if (run_cancel_requested(e, run_id) ||
	    (o->worker && strcmp(run.status, "cancelled") == 0)) {
		rc = store_run_set_status(e->store, run_id, "cancelled", err);
		emit(e, obs, run_id, NULL, "cancelled", "run cancelled before "
		     "this %s started", o->worker ? "worker" : "executor");
		goto out;
	}
	/* --gpus wins over the config's gpus: (a resume may move a run);
	 * every device must exist before anything starts. */
	if (ngpus == 0 && cfg->ngpus > 0 && !o->worker) {
		gpus = cfg->gpus;
		ngpus = cfg->ngpus;
	}
	if (ngpus > 0 && (rc = engine_check_gpus(e, cfg, gpus, ngpus, err))) {
		errbuf_prefix(err, "run %s: gpus", run_id);
		emit(e, obs, run_id, NULL, "error", "%s", errbuf_str(err));
		goto out;
	}
	rc = store_attempt_list(e->store, run_id, &as, &n, err);
	if (rc)
		goto out;
	if (o->only >= n) {
		rc = errf_code(err, ERANGE, "run %s has %d attempts (0-%d); "
			       "there is no attempt %d", run_id, n, n - 1,
			       o->only);
		goto out;
	}
	order_attempts(cfg, run_id, as, n);
	rc = lease_keeper_start(&lease, store_root(e->store), o->lease_s, err);
	if (rc)
		goto out;
	rc = store_run_set_status(e->store, run_id, "running", err);
	if (rc)
		goto out;
	struct strbuf on = STRBUF_INIT;
	for (int k = 0; k < ngpus; k++)
		strbuf_addf(&on, "%s%d", k ? "," : "; one worker per device: ",
			    gpus[k]);
	if (o->worker)
		emit(e, obs, run_id, NULL, "worker", "worker %s started (%s%s)",
		     lease.owner, o->only >= 0 ? "one attempt" : "every "
		     "attempt not held by another", strbuf_str(&on));
	else
		emit(e, obs, run_id, NULL, "started", "executing run (%s%s)",
		     strcmp(run.status, "created") ? "resumed" : "first start",
		     strbuf_str(&on));
	strbuf_release(&on);
	/* Which physical devices the indices mean (what Slurm handed out). */
	for (const char *const *v = (const char *const[]){
		     "CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", NULL };
	     o->worker && ngpus > 0 && *v; v++)
		if (getenv(*v))
			emit(e, obs, run_id, NULL, "worker", "%s=%s", *v,
			     getenv(*v));
	struct run_queue q = { .e = e, .cfg = cfg, .run_id = run_id,
			       .obs = obs, .as = as, .n = n, .only = o->only,
			       .lease = &lease };
	pthread_mutex_init(&q.mu, NULL);
	run_workers(&q, gpus, ngpus);
	pthread_mutex_destroy(&q.mu);
	lease_keeper_stop(&lease);
	rc = execution_finish(e, run_id, &q, obs, err);
out:
	lease_keeper_stop(&lease);
	store_attempts_free(as, n);
	runconfig_free(cfg);
	store_run_release(&run);
	unlock_fd(fd);
	return rc;
}

int engine_run_execute(struct engine *e, const char *run_id,
		       const struct engine_observer *obs, struct errbuf *err)
{
	return engine_run_execute_on(e, run_id, NULL, 0, obs, err);
}

int engine_run_execute_on(struct engine *e, const char *run_id,
			  const int *gpus, int ngpus,
			  const struct engine_observer *obs, struct errbuf *err)
{
	struct exec_opts o = { .gpus = gpus, .ngpus = ngpus, .only = -1,
			       .lease_s = LEASE_DEFAULT_TTL_S };

	return execute(e, run_id, &o, obs, err);
}

int engine_run_work(struct engine *e, const char *run_id,
		    const struct engine_work *w,
		    const struct engine_observer *obs, struct errbuf *err)
{
	struct exec_opts o = { .gpus = w->has_gpu ? &w->gpu : NULL,
			       .ngpus = w->has_gpu ? 1 : 0,
			       .only = w->only, .lease_s = w->lease_s,
			       .worker = true };

	return execute(e, run_id, &o, obs, err);
}

int engine_run_cancel(struct engine *e, const char *run_id,
		      struct errbuf *err)
{
	struct store_run r;
	int rc = store_run_get(e->store, run_id, &r, err);

	if (rc)
		return rc;
	if (strcmp(r.status, "done") && strcmp(r.status, "cancelled")) {
		/* With no executor alive nobody would see "cancelling". */
		char *dir = store_run_dir(e->store, run_id);
		char *lock = path_join(dir, ".lock");
		bool alive = lock_is_held(lock);
		rc = store_run_set_status(e->store, run_id,
					  alive ? "cancelling" : "cancelled",
					  err);
		free(lock);
		free(dir);
	}
	store_run_release(&r);
	if (!rc)
		emit(e, NULL, run_id, NULL, "cancel", "cancel requested");
	return rc;
}

/* ---- reports and progress -------------------------------------------- */

int engine_run_rows(struct engine *e, const char *run_id, struct run_rows *rr,
		    struct errbuf *err)
{
	int rc;

	memset(rr, 0, sizeof(*rr));
	rc = store_run_get(e->store, run_id, &rr->run, err);
	if (rc)
		return rc;
	rc = store_attempt_list(e->store, run_id, &rr->attempts, &rr->n, err);
	if (rc) {
		store_run_release(&rr->run);
		return rc;
	}
	rr->results = xcalloc((size_t)rr->n + 1, sizeof(*rr->results));
	rr->rows = xcalloc((size_t)rr->n + 1, sizeof(*rr->rows));
	for (int i = 0; i < rr->n; i++) {
		const struct store_attempt *a = &rr->attempts[i];
		rr->rows[i].task_id = a->task_id;
		rr->rows[i].attempt = a->attempt;
		rr->rows[i].variant = a->variant;
		result_init(&rr->results[i]);
		if (a->result_json &&
		    result_from_json(a->result_json, &rr->results[i], NULL) == 0)
			rr->rows[i].result = &rr->results[i];
	}
	time_stamp_iso(rr->created, rr->run.created_at);
	rr->meta.run_id = rr->run.id;
	rr->meta.agent = rr->run.agent;
	rr->meta.device = rr->run.device;
	rr->meta.created_at = rr->created;
	rr->meta.status = rr->run.status;
	return 0;
}

void run_rows_release(struct run_rows *rr)
{
	for (int i = 0; i < rr->n; i++)
		result_release(&rr->results[i]);
	free(rr->results);
	free(rr->rows);
	store_attempts_free(rr->attempts, rr->n);
	store_run_release(&rr->run);
	memset(rr, 0, sizeof(*rr));
}

int engine_run_report(struct engine *e, const char *run_id, struct errbuf *err)
{
	struct run_rows rr;
	int rc = engine_run_rows(e, run_id, &rr, err);

	if (rc)
		return rc;
	char *dir = store_run_dir(e->store, run_id);
	rc = report_write_all(dir, &rr.meta, rr.rows, rr.n, err);
	free(dir);
	run_rows_release(&rr);
	return rc;
}

int engine_run_progress(struct engine *e, const char *run_id,
			struct run_progress *p, struct errbuf *err)
{
	struct store_run run;
	struct store_attempt *as = NULL;
	int n = 0, rc;

	memset(p, 0, sizeof(*p));
	rc = store_run_get(e->store, run_id, &run, err);
	if (rc)
		return rc;
	rc = store_attempt_list(e->store, run_id, &as, &n, err);
	if (rc)
		goto out;
	p->status = xstrdup(run.status);
	p->total = n;
	for (int i = 0; i < n; i++) {
		if (strcmp(as[i].state, "done") == 0) {
			struct attempt_ctx c = { .e = e, .run_id = run_id,
						 .a = &as[i] };
			if (task_load(e->tasks_root, as[i].task_id, &c.task,
				      NULL) == 0) {
				c.task_dir = store_task_dir(e->store, run_id,
							    as[i].task_id,
							    as[i].attempt);
				c.workspace = path_join(c.task_dir, "workspace");
				if (attempt_is_current(&c))
					p->done++;
				else
					p->stale++;
			}
			attempt_ctx_release(&c);
		} else if (strcmp(as[i].state, "pending") != 0) {
			p->running++;
		}
	}
	char *run_dir = store_run_dir(e->store, run_id);
	char *lock = path_join(run_dir, ".lock");
	free(run_dir);
	p->executor_alive = lock_is_held(lock);
	free(lock);
	/* Workers holding live leases, less those of this host that are
	 * gone (a killed executor's leases outlive it until they expire). */
	struct strvec owners = STRVEC_INIT;
	if (store_lease_owners(e->store, run_id, &owners, NULL) == 0)
		for (size_t i = 0; i < owners.n; i++)
			p->workers += !lease_owner_dead_here(owners.v[i]);
	strvec_release(&owners);
	if (p->workers > 0)
		p->executor_alive = true;
out:
	store_attempts_free(as, n);
	store_run_release(&run);
	return rc;
}

void run_progress_release(struct run_progress *p)
{
	free(p->status);
	p->status = NULL;
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
	int rc, fd = -1;

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
	if (!rc)
		rc = attempt_prepare(&c, err);
	if (rc)
		goto out;
	if (attempt_is_current(&c)) {
		rc = result_from_json(a.result_json, out, err);
		goto out;
	}
	if (strcmp(a.state, "done") && strcmp(a.state, "agent_done")) {
		/* The agent is still at work: evaluate what it has now on the
		 * visible cases, cached, without touching the attempt. */
		struct eval_target tg = {
			.e = e, .task = c.task, .candidate_dir = c.workspace,
			.baseline_dir = c.baseline, .log_dir = c.logs,
			.cfg = cfg,
		};
		rc = evaluate_cached(&tg, false, true, out, err);
		if (!rc) {
			free(out->task_name);
			out->task_name = xstrdup(task_id);
		}
		goto out;
	}
	/* Stale final result: re-evaluate under the attempt's lock so that
	 * concurrent readers share one evaluation. */
	char *lock = path_join(c.task_dir, ".eval.lock");
	rc = lock_path(lock, LOCK_WAIT, &fd, err);
	free(lock);
	if (rc)
		goto out;
	store_attempt_release(&a);
	rc = store_attempt_get(e->store, run_id, task_id, attempt, &a, err);
	if (!rc && attempt_is_current(&c))
		rc = result_from_json(a.result_json, out, err);
	else if (!rc) {
		rc = attempt_evaluate(&c, NULL, out, err);
		if (!rc)
			engine_run_report(e, run_id, NULL);
	}
	unlock_fd(fd);
out:
	attempt_ctx_release(&c);
	runconfig_free(cfg);
	store_attempt_release(&a);
	store_run_release(&run);
	return rc;
}
