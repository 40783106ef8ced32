/*
 * engine.c - runs, attempts and evaluations on top of the store
 * (arena/engine.h): opening the engine, configs, run creation, reports and
 * progress; engine_internal.h lists the files that do the rest.
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
#include "engine_internal.h"

#include <cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arena/paths.h"
#include "arena/report.h"
#include "lease.h"
#include "workspace.h"

/* ---- small helpers --------------------------------------------------- */


int eng_lock_path(const char *path, int mode, int *fd_out,
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
bool eng_lock_is_held(const char *path)
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

void eng_unlock_fd(int fd)
{
	if (fd >= 0)
		close(fd);	/* closing the description releases the lock */
}

void eng_emit(struct engine *e, const struct engine_observer *obs,
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
	eng_runlog_append(e, run_id, task_id, kind, strbuf_str(&sb));
	if (obs && obs->event)
		obs->event(obs->ctx, run_id, task_id, kind, strbuf_str(&sb));
	strbuf_release(&sb);
}

/* ---- task roots --------------------------------------------------------- */

/* The task roots a store's runs name (task_roots:, aka:PATH selectors),
 * one "name TAB path" line each in <store>/task_roots: every process that
 * opens the store registers them, so the filesystem daemon, workers and
 * `arena status` load aka/... tasks of runs they did not parse. */
static void roots_load(struct engine *e)
{
	char *path = path_join(store_root(e->store), "task_roots");
	char *text = NULL;
	size_t len = 0;
	struct errbuf err;

	errbuf_init(&err);
	if (file_read_all(path, 64 * 1024, &text, &len, &err) == 0) {
		for (char *line = text, *nl; line && *line; line = nl) {
			nl = strchr(line, '\n');
			if (nl)
				*nl++ = '\0';
			char *tab = strchr(line, '\t');
			if (!tab)
				continue;
			*tab = '\0';
			errbuf_init(&err);
			(void)task_root_add(line, tab + 1, &err);
		}
	}
	free(text);
	free(path);
}

static int roots_save(struct engine *e, struct errbuf *err)
{
	struct strvec v = STRVEC_INIT;
	struct strbuf sb = STRBUF_INIT;
	int rc = 0;

	task_root_list(&v);
	for (size_t i = 0; i < v.n; i++)
		strbuf_addf(&sb, "%s\n", v.v[i]);
	if (v.n) {
		char *path = path_join(store_root(e->store), "task_roots");
		rc = file_write_atomic_str(path, strbuf_str(&sb), err);
		free(path);
	}
	strbuf_release(&sb);
	strvec_release(&v);
	return rc;
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
	e->lock_dir = xstrdup(paths_lock_dir());
	e->refcache = eval_refcache_new(ENGINE_REFCACHE_BYTES);
	char *evals = path_join(e->cache_dir, "evals");
	rc = mkdir_p(evals, err);
	free(evals);
	if (rc) {
		engine_close(e);
		return rc;
	}
	roots_load(e);
	eng_places_hide_all(e);
	*out = e;
	return 0;
}

void engine_close(struct engine *e)
{
	if (!e)
		return;
	/* Runners of deferred teardowns (eng_evaluate) may still be
	 * reaped, holding device locks: nothing leaves before them. */
	eval_teardown_wait();
	store_close(e->store);
	free(e->tasks_root);
	free(e->cache_dir);
	free(e->lock_dir);
	eval_refcache_free(e->refcache);
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

const char *engine_cache_dir(const struct engine *e)
{
	return e->cache_dir;
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

char *eng_run_seed_key(const char *run_id)
{
	return xasprintf("run_seed/%s", run_id);
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

	if (!cfg->has_seed) {
		/* The run's secret seed: attempt_seed pairs the agent
		 * configurations of each (task, repeat) on it. */
		char *key = eng_run_seed_key(id);
		char val[24];

		snprintf(val, sizeof(val), "%" PRIu64, eng_fresh_seed());
		rc = store_meta_put(e->store, key, val, err);
		free(key);
		if (rc) {
			store_run_set_status(e->store, id, "failed", NULL);
			free(id);
			return rc;
		}
	}

	run_dir = store_run_dir(e->store, id);
	cfg_path = path_join(run_dir, "config.yaml");
	rc = file_write_atomic_str(cfg_path, cfg->text, err);
	if (!rc)
		rc = roots_save(e, err);
	if (!rc)
		rc = eng_places_create(e, cfg, id, err);
	for (size_t i = 0; !rc && i < cfg->task_ids.n; i++) {
		struct task *t;
		/* Every attempt is judged against the package as it is now:
		 * its trusted copy, made and recorded here. */
		rc = eng_task_trusted(e, id, cfg->task_ids.v[i], &t, err);
		/* Attempt numbers the (repeat, variant) slots:
		 * (repeat - 1) * nvariants + variant + 1. */
		for (int a = 1; !rc && a <= cfg->repeats * cfg->nvariants;
		     a++) {
			int v = (a - 1) % cfg->nvariants;
			int repeat = (a - 1) / cfg->nvariants + 1;
			char *dir = store_task_dir(e->store, id, t->id, a);
			rc = workspace_create(t, dir, err);
			if (!rc)
				rc = eng_places_link_attempt(e, id, dir, err);
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
	eng_emit(e, NULL, id, NULL, "created", "run created: %zu task(s) x %d "
		 "repeat(s) x %d agent configuration(s), first agent %s",
		 cfg->task_ids.n, cfg->repeats, cfg->nvariants,
		 cfg->agent.template_name);
	engine_run_report(e, id, NULL);
	*run_id = id;
	return 0;
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
	char *target_gpu = eng_places_target_gpu(&rr.run);
	char *aka_dir = eng_places_run_dir(e, run_id);
	rr.meta.target_gpu = target_gpu;
	rr.meta.aka_run_dir = aka_dir;
	rc = report_write_all(dir, &rr.meta, rr.rows, rr.n, err);
	free(aka_dir);
	free(target_gpu);
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
			p->done++;
			/* Informational: the final result stands. */
			if (task_load(e->tasks_root, as[i].task_id, &c.task,
				      NULL) == 0) {
				c.task_dir = store_task_dir(e->store, run_id,
							    as[i].task_id,
							    as[i].attempt);
				c.workspace = path_join(c.task_dir, "workspace");
				if (!attempt_is_current(&c))
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
	p->executor_alive = eng_lock_is_held(lock);
	p->executor_lock = p->executor_alive;
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
