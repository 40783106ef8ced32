/*
 * engine_internal.h - what the run room's files share (private to
 * engine/src/run): the engine handle, the locks, events, the evaluation
 * of one target, and one attempt's steps.  arena/engine.h is the public
 * interface.
 *
 *   engine.c     open/close, configs, run creation, reports and progress
 *   attempt.c    one attempt: prepare, launch the agent, evaluate, record;
 *                its current result (engine_task_result)
 *   evaluate.c   evaluations with the store's cache and the per-key lock
 *                (engine_eval_dir, and the agent's evaluations)
 *   executor.c   executing a run: order, leases, workers, cancel
 */
#ifndef ARENA_ENGINE_INTERNAL_H
#define ARENA_ENGINE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "arena/agent.h"
#include "arena/engine.h"
#include "arena/eval.h"

struct engine {
	struct store *store;
	char *tasks_root;
	char *cache_dir;
	char *lock_dir;
	engine_workspace_view_fn ws_view;	/* set by the front end */
	void *ws_view_ctx;
	/* Reference outputs of correctness trials shared by this process's
	 * evaluations that have a seed of their own (a run's attempts:
	 * every evaluation of an attempt draws the same trials), at most
	 * ENGINE_REFCACHE_BYTES; docs/evaluator.md, "Reuse across
	 * evaluations". */
	struct eval_refcache *refcache;
};
#define ENGINE_REFCACHE_BYTES ((size_t)512 << 20)

/* Locks are open-file-description (OFD) record locks on the whole file:
 * released when the holder's descriptor closes or its process dies, shared
 * correctly between threads (each open is its own description), and
 * testable without taking them (F_OFD_GETLK), so asking whether a run has
 * an executor never gets in the executor's way. */
enum { LOCK_WAIT = 0, LOCK_TRY = 1 };

/* ---- engine.c ---------------------------------------------------------- */

int eng_lock_path(const char *path, int mode, int *fd_out,
		  struct errbuf *err);
bool eng_lock_is_held(const char *path);
void eng_unlock_fd(int fd);
/* ---- run_places.c -------------------------------------------------------- */

/* AgentKernelArena's log_directory and workspace_directory_prefix for a
 * run being created: the log's path and AKA's run directory kept in the
 * run directory, AKA's run directory made. */
int eng_places_create(struct engine *e, const struct runconfig *cfg,
		      const char *run_id, struct errbuf *err);
/* The run's own file naming its AKA run directory. */
#define AKA_RUN_DIR_FILE "aka_run_dir"
/* The run's AKA run directory (workspace_directory_prefix), or NULL when
 * it has none (caller frees). */
char *eng_places_run_dir(struct engine *e, const char *run_id);
/* Links the attempt directory task_dir into the run's AKA run directory
 * under its own name; nothing without one, nothing when the link is
 * there already. */
int eng_places_link_attempt(struct engine *e, const char *run_id,
			    const char *task_dir, struct errbuf *err);
/* Hides every run's places from every process this one confines from
 * now on (confine_hide_always): the directories <store>/places lists
 * (made from the runs' kept paths where a store has none yet). */
void eng_places_hide_all(struct engine *e);
/* The run config's target_gpu_model, or NULL (caller frees). */
char *eng_places_target_gpu(const struct store_run *run);
/* Appends an event to the run's log_directory log, when it has one. */
void eng_runlog_append(struct engine *e, const char *run_id,
		       const char *task_id, const char *kind,
		       const char *message);

void eng_emit(struct engine *e, const struct engine_observer *obs,
	      const char *run_id, const char *task_id, const char *kind,
	      const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

/* ---- evaluate.c -------------------------------------------------------- */

/* What to evaluate and how (the executor's final evaluation, an agent's
 * evaluation through the bridge, engine_eval_dir). */
struct eval_target {
	struct engine *e;
	const struct task *task;
	const char *candidate_dir;
	const char *log_dir;
	const struct runconfig *cfg;	/* NULL: defaults */
	bool has_gpu;			/* a worker's device (--gpus) */
	int gpu;
	uint64_t seed;
	bool has_seed;
	/* Who hears the evaluation's steps (may be NULL), and about which
	 * attempt. */
	const struct engine_observer *obs;
	const char *run_id, *task_id;
	int attempt;
	double case_budget_s; /* > 0: instead of the config's */
	bool aa;	      /* the candidate is the task's baseline */
	bool aa_timing_only;  /* aa: timing alone (eval_request's) */
	const char *device;   /* NULL: the config's or the task's */
};

/* Tells obs (when it listens) what an attempt does now: "agent turn 3",
 * "evaluating: timing". */
void eng_progress(const struct engine_observer *obs, const char *run_id,
		  const char *task_id, int attempt, const char *what);

/* Task task_id as an evaluation must see it: loaded from its trusted copy
 * (task_load_trusted) - the one recorded for (run_id, task_id), or, when
 * none is (a run made before trusted copies, `arena eval` without a run),
 * a copy of the catalogue's package made now, recorded for run_id when
 * one is given.  *out is the caller's. */
int eng_task_trusted(struct engine *e, const char *run_id, const char *task_id,
		     struct task **out, struct errbuf *err);
int eng_device_for(const struct runconfig *cfg, const struct task *t,
		   bool has_gpu, int gpu, char **device,
		   struct errbuf *err);
uint64_t eng_fresh_seed(void);
/* The key of a run's secret seed in the store's meta table (caller
 * frees): drawn when a run without `seed:` is created, so that the agent
 * configurations of one (task, repeat) share their evaluation seed. */
char *eng_run_seed_key(const char *run_id);
int eng_evaluate(const struct eval_target *tg, const struct strvec *defines,
		 bool quick, bool held_out, struct task_result *out,
		 struct errbuf *err);
/* The evaluation cache key of tg's sources as they are now (hash, when
 * not NULL, receives their sources hash). */
int eng_eval_key(const struct eval_target *tg, bool held_out, char key[65],
		 char hash[65], struct errbuf *err);
int eng_evaluate_cached(const struct eval_target *tg, bool held_out,
			bool use_cache, struct task_result *out,
			struct errbuf *err);
/* agent_evaluate_fn for an agent's launch: ctx is its eval_target. */
int eng_agent_evaluate(void *ctx, const struct strvec *defines, bool quick,
		       struct task_result *out, struct errbuf *err);

/* ---- attempt.c --------------------------------------------------------- */

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
	char *logs;
	bool agent_cancelled;	/* the agent was stopped by a cancel */
};

/* Whether a cancel of run_id arrived since this execution set it running
 * (executor.c): its status is "cancelling" (an executor holds the run's
 * lock) or "cancelled" (a cancel that found no lock holder: only workers,
 * `arena worker` or Slurm jobs, hold its attempts). */
bool eng_run_cancel_requested(struct engine *e, const char *run_id);

void attempt_ctx_release(struct attempt_ctx *c);
int attempt_prepare(struct attempt_ctx *c, struct errbuf *err);
int attempt_run_agent(struct attempt_ctx *c,
		      const struct engine_observer *obs,
		      struct errbuf *err);
int attempt_evaluate(struct attempt_ctx *c,
		     const struct engine_observer *obs,
		     struct task_result *res, struct errbuf *err);
bool attempt_is_current(struct attempt_ctx *c);

#endif /* ARENA_ENGINE_INTERNAL_H */
