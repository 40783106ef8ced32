/*
 * executor.c - executing a run: the attempts in the run's seeded order,
 * each leased from the store's queue (a worker that dies loses its lease),
 * one worker thread per GPU with --gpus, cancellation, and the reports
 * written when the run is done (engine_run_execute, engine_run_work,
 * engine_run_cancel).
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

/* Whether run_id's status is "cancelling", or also "cancelled" when
 * also_cancelled. */
static bool run_status_cancel(struct engine *e, const char *run_id,
			      bool also_cancelled)
{
	struct store_run r;
	bool cancel = false;

	if (store_run_get(e->store, run_id, &r, NULL) == 0) {
		cancel = strcmp(r.status, "cancelling") == 0 ||
			 (also_cancelled && strcmp(r.status, "cancelled") == 0);
		store_run_release(&r);
	}
	return cancel;
}

bool eng_run_cancel_requested(struct engine *e, const char *run_id)
{
	return run_status_cancel(e, run_id, true);
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
	/* Finished is final (DESIGN.md §3.11): a done attempt's result is
	 * never replaced, whatever its workspace holds now.  Evaluating it
	 * again is a post-hoc evaluation (`arena eval`), kept apart. */
	if (strcmp(a->state, "done") == 0)
		goto out;
	if (strcmp(a->state, "pending") == 0 ||
		   strcmp(a->state, "agent_running") == 0) {
		rc = attempt_run_agent(&c, obs, err);
		if (rc)
			goto out;
	}
	/* A cancelled agent has not finished: its attempt is not evaluated
	 * (it runs again on resume), even if a resume came meanwhile. */
	if (c.agent_cancelled || eng_run_cancel_requested(e, run_id))
		goto out;
	/* The attempt's lock: a `cat score` at this moment waits for this
	 * evaluation and then reads its result, instead of running a second
	 * one beside it (which would also disturb its timing). */
	char *lock = path_join(c.task_dir, ".eval.lock");
	int lfd = -1;
	rc = eng_lock_path(lock, LOCK_WAIT, &lfd, err);
	free(lock);
	if (rc)
		goto out;
	/* Another executor may have finished it while we waited. */
	struct store_attempt fresh;
	if (store_attempt_get(e->store, run_id, a->task_id, a->attempt, &fresh,
			      NULL) == 0) {
		bool done = strcmp(fresh.state, "done") == 0;
		store_attempt_release(&fresh);
		if (done) {
			eng_unlock_fd(lfd);
			goto out;
		}
	}
	rc = attempt_evaluate(&c, obs, &res, err);
	eng_unlock_fd(lfd);
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
		eng_progress(q->obs, q->run_id, a->task_id, a->attempt, NULL);
	}
	(void)store_lease_drop(q->e->store, q->run_id, a->task_id, a->attempt,
			       q->lease->owner, NULL);
	/* One task's failure (e.g. its package vanished) is recorded and
	 * the run goes on. */
	if (rc)
		eng_emit(q->e, q->obs, q->run_id, a->task_id, "error", "%s",
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
		if (eng_run_cancel_requested(q->e, q->run_id)) {
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

	if (q->cancelled || eng_run_cancel_requested(e, run_id)) {
		rc = store_run_set_status(e->store, run_id, "cancelled", err);
		if (!rc)
			eng_emit(e, obs, run_id, NULL, "cancelled",
				 "run cancelled");
	} else if ((q->only < 0 && q->leased_elsewhere == 0) ||
		   run_all_done(e, run_id)) {
		/* Not "finished" when the store refused to say so (a full
		 * disk): the caller reports the error, `resume` finishes. */
		rc = store_run_set_status(e->store, run_id, "done", err);
		if (!rc)
			eng_emit(e, obs, run_id, NULL, "done", "run finished");
	} else if (q->leased_elsewhere > 0) {
		eng_emit(e, obs, run_id, NULL, "waiting", "%d attempt(s) held by "
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
		rc = eng_lock_path(lock, LOCK_TRY, &fd, err);
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
	/* A cancel that arrived while this execution was starting wins
	 * (an executor that resumes a cancelled run goes on). */
	if (run_status_cancel(e, run_id, false) ||
	    (o->worker && strcmp(run.status, "cancelled") == 0)) {
		rc = store_run_set_status(e->store, run_id, "cancelled", err);
		eng_emit(e, obs, run_id, NULL, "cancelled", "run cancelled before "
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
		eng_emit(e, obs, run_id, NULL, "error", "%s", errbuf_str(err));
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
		eng_emit(e, obs, run_id, NULL, "worker", "worker %s started (%s%s)",
		     lease.owner, o->only >= 0 ? "one attempt" : "every "
		     "attempt not held by another", strbuf_str(&on));
	else
		eng_emit(e, obs, run_id, NULL, "started", "executing run (%s%s)",
		     strcmp(run.status, "created") ? "resumed" : "first start",
		     strbuf_str(&on));
	strbuf_release(&on);
	/* Which physical devices the indices mean (what Slurm handed out). */
	for (const char *const *v = (const char *const[]){
		     "CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", NULL };
	     o->worker && ngpus > 0 && *v; v++)
		if (getenv(*v))
			eng_emit(e, obs, run_id, NULL, "worker", "%s=%s", *v,
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
	eng_unlock_fd(fd);
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
		bool alive = eng_lock_is_held(lock);
		rc = store_run_set_status(e->store, run_id,
					  alive ? "cancelling" : "cancelled",
					  err);
		free(lock);
		free(dir);
	}
	store_run_release(&r);
	if (!rc)
		eng_emit(e, NULL, run_id, NULL, "cancel", "cancel requested");
	return rc;
}
