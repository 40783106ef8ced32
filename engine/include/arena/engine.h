/*
 * engine.h - the engine's top-level API: what the CLI and the filesystem
 * call.  Nothing is computed twice in two places: `arena run` and `cp
 * config runs/new`, `arena eval` and `cat score` go through these same
 * functions.
 *
 * A run is created (engine_run_create: config validated, run directory,
 * one workspace + frozen baseline + TASK.md per task attempt, rows in the
 * store) and then executed (engine_run_execute: launch the agent, evaluate
 * what it left, write task_result.yaml and the reports).  Execution is
 * resumable at any point: it only does what the store says is not done,
 * and it re-evaluates attempts whose workspace changed since their result.
 */
#ifndef ARENA_ENGINE_H
#define ARENA_ENGINE_H

#include <stdbool.h>
#include "arena/config.h"
#include "arena/report.h"
#include "arena/result.h"
#include "arena/store.h"
#include "arena/task.h"
#include "arena/util.h"

struct engine;

/* Opens (creating if needed) the store at store_dir; tasks_root NULL means
 * task_default_root(). */
int engine_open(const char *store_dir, const char *tasks_root,
		struct engine **out, struct errbuf *err);
void engine_close(struct engine *e);
struct store *engine_store(struct engine *e);
const char *engine_tasks_root(const struct engine *e);
/* The store's cache directory (compiled artifacts, prepared AKA tasks). */
const char *engine_cache_dir(const struct engine *e);

/* How agents are shown their workspace.  The front end may set a view:
 * fn(ctx, run_id, task_dirname) returns the path (caller frees) through
 * which agents should reach that attempt's workspace - `arena mount`'s
 * executor gives the same directory seen through the mount, so that `cat
 * ../score` works there - or NULL for the real path.  Without a view (the
 * default) agents get the real path; evaluation always reads it.  The
 * engine itself knows nothing of mounts. */
typedef char *(*engine_workspace_view_fn)(void *ctx, const char *run_id,
					  const char *task_dirname);
void engine_set_workspace_view(struct engine *e, engine_workspace_view_fn fn,
			       void *ctx);

/* Parses and validates a run config completely: YAML, tasks, agent name
 * and the agent's own checks, device.  Nothing is created. */
int engine_config_parse(struct engine *e, const char *source, const char *text,
			size_t len, struct runconfig **out, struct errbuf *err);
int engine_config_load(struct engine *e, const char *path,
		       struct runconfig **out, struct errbuf *err);

/* Parses and validates the config a run was created with (as
 * engine_config_parse, under the run's config path). */
int engine_run_config(struct engine *e, const struct store_run *run,
		      struct runconfig **out, struct errbuf *err);

/* Creates a run from a validated config; *run_id is set (caller frees). */
int engine_run_create(struct engine *e, const struct runconfig *cfg,
		      const char *suffix, char **run_id, struct errbuf *err);

/* Called for every event a run records (may be NULL).  progress (may be
 * NULL) hears what an attempt does between events - "agent started",
 * "agent turn 3", "evaluating: timing" - which is not recorded: a status
 * line's business; what is NULL when the attempt stops running in this
 * process (done, failed or cancelled).  Both are called from the
 * workers' threads. */
struct engine_observer {
	void (*event)(void *ctx, const char *run_id, const char *task_id,
		      const char *kind, const char *message);
	void *ctx;
	void (*progress)(void *ctx, const char *run_id, const char *task_id,
			 int attempt, const char *what);
};

/* Executes or resumes a run until every attempt is done or the run is
 * cancelled.  -EBUSY when another live process is executing it. */
int engine_run_execute(struct engine *e, const char *run_id,
		       const struct engine_observer *obs, struct errbuf *err);
/* The same with one worker per device index in gpus (ngpus > 0: `arena
 * run --gpus 0,1`; ngpus 0: the config's `gpus:`, else one worker on its
 * `device:`): each worker takes the next attempt in the run's order
 * and evaluates it (and gives its agent) device <kind>:<index>, the kind
 * being the config's or the detected one; host tasks stay on the host. */
/* Checks that every device of gpus exists for every GPU task of config c
 * (and is its target_gpu_model): what `arena run` does with --gpus or the
 * config's gpus: before it creates the run, and every execution before it
 * starts.  A config's gpus: is not checked when the config is validated,
 * so that --gpus can stand in for it on another machine. */
int engine_check_gpus(struct engine *e, const struct runconfig *c,
		      const int *gpus, int ngpus, struct errbuf *err);
int engine_run_execute_on(struct engine *e, const char *run_id,
			  const int *gpus, int ngpus,
			  const struct engine_observer *obs,
			  struct errbuf *err);

/* One worker of a run that others may share (`arena worker`, a Slurm
 * array element): it takes no run lock; each attempt it runs, it holds
 * under a lease in the store (renewed while it works, lease_s long), and
 * attempts leased by a live worker elsewhere it leaves alone.  only >= 0
 * runs just the attempt with that index in the run's order (a Slurm
 * array index).  The worker that finds every attempt done marks the run
 * done and writes its reports. */
struct engine_work {
	int only;		/* -1: every attempt not held elsewhere */
	bool has_gpu;		/* evaluate on device index gpu */
	int gpu;
	double lease_s;		/* <= 0: the default (60 s) */
};
int engine_run_work(struct engine *e, const char *run_id,
		    const struct engine_work *w,
		    const struct engine_observer *obs, struct errbuf *err);

/* `arena slurm`: submits a created run to Slurm - an array of one
 * element per attempt (`arena worker RUN --index K`, one GPU each when
 * the run has GPU tasks) and a job after it (afterany) that runs what is
 * left and writes the reports.  Records the job ids as a run event. */
struct slurm_opts {
	const char *sbatch;		/* NULL: sbatch from $PATH */
	const char *partition;		/* NULL: the cluster's default */
	int time_min;			/* per job; 0: the partition's */
	int max_parallel;		/* array elements at once; 0: any */
	const struct strvec *extra;	/* more sbatch arguments, or NULL */
	bool dry_run;			/* write the scripts, submit nothing */
};
struct slurm_jobs {
	char *array_job, *aggregate_job;
	char *commands;			/* dry run: what would be run */
	int elements;
	bool uses_gpu;
};
int engine_slurm_submit(struct engine *e, const char *run_id,
			const struct slurm_opts *o, struct slurm_jobs *out,
			struct errbuf *err);
void slurm_jobs_release(struct slurm_jobs *j);

/* Asks a run to stop after the current step (sets its status). */
int engine_run_cancel(struct engine *e, const char *run_id,
		      struct errbuf *err);

/* A run's results as report rows: what every report renderer takes. */
struct run_rows {
	struct store_run run;
	struct store_attempt *attempts;
	struct task_result *results;
	struct report_row *rows;	/* rows[i].result NULL until done */
	int n;
	char created[32];
	struct report_meta meta;	/* points into run and created */
};
int engine_run_rows(struct engine *e, const char *run_id, struct run_rows *rr,
		    struct errbuf *err);
void run_rows_release(struct run_rows *rr);

/* Re-writes summary.csv, summary.json, report.txt and report.html of a
 * run. */
int engine_run_report(struct engine *e, const char *run_id,
		      struct errbuf *err);

/* The page across every run of the store, newest first (`arena report
 * --index`; report_index_html).  Caller frees *html. */
int engine_index_html(struct engine *e, char **html, struct errbuf *err);

/* Progress of a run. */
struct run_progress {
	char *status;
	int total;
	int done;		/* attempts with their final result */
	int running;		/* agent running or evaluating */
	int stale;		/* of the done ones: workspace edited after
				 * the final result (which stands) */
	bool executor_alive;	/* a process holds the run's lock, or a
				 * worker holds a live lease */
	bool executor_lock;	/* a process holds the run's lock */
	int workers;		/* processes holding live leases */
};
int engine_run_progress(struct engine *e, const char *run_id,
			struct run_progress *p, struct errbuf *err);
void run_progress_release(struct run_progress *p);

/* Evaluates a directory against a task (`arena eval`): visible cases,
 * baseline from the task package, cached by content hash. */
struct eval_options {
	bool quick;
	bool held_out;		/* include held-out cases */
	bool no_cache;
	bool has_seed;
	uint64_t seed;
	const struct strvec *defines;
	const char *log_dir;	/* keep the runner logs and timing.tsv here */
	bool aa;		/* A/A: the task's own baseline as the
				 * candidate (dir is ignored), never cached;
				 * its interval should contain 1.0 */
	bool timing_only;	/* with aa: no correctness trials and no
				 * reference checks (interval coverage) */
	double case_budget_s;	/* > 0: timing budget per case instead of
				 * the default (never cached) */
	const char *device;	/* NULL: the task's default device */
	bool has_gpu;		/* a GPU task runs on device index gpu of
				 * its kind (as `arena run --gpus`); cached
				 * like any evaluation, under that device */
	int gpu;
};
int engine_eval_dir(struct engine *e, const char *task_id, const char *dir,
		    const struct eval_options *opt, struct task_result *out,
		    struct errbuf *err);

/* The current result of one attempt of a run.  A done attempt's final
 * result is final: it is returned as stored, whatever the workspace holds
 * now (a post-hoc evaluation is engine_eval_dir's, recorded apart).
 * Before that (agent at work, or final evaluation not run yet) the
 * workspace's files are evaluated on the visible cases, cached by content
 * hash, and the attempt is not changed.  Concurrent callers share one
 * evaluation. */
int engine_task_result(struct engine *e, const char *run_id,
		       const char *task_id, int attempt,
		       struct task_result *out, struct errbuf *err);
/* For an attempt that is not done: the visible-case result that
 * engine_task_result() would take from the evaluation cache for the
 * workspace as it is now, or -ESTALE when it would have to evaluate.
 * hash (when not NULL) receives the workspace's sources hash.  Never
 * evaluates and never waits for a lock. */
int engine_task_result_cached(struct engine *e, const char *run_id,
			      const char *task_id, int attempt,
			      struct task_result *out, char hash[65],
			      struct errbuf *err);

/* The device a task runs on under a config's `device` ("host" for c). */
int engine_resolve_device(const char *configured, const struct task *t,
			  char **device, struct errbuf *err);

#endif /* ARENA_ENGINE_H */
