/*
 * slurm.c - `arena slurm`: a run executed by a Slurm job array (DESIGN.md
 * §9).  One array element per attempt, each `arena worker RUN --index K`
 * on one device (Slurm's --gres=gpu:1 narrows CUDA_VISIBLE_DEVICES /
 * HIP_VISIBLE_DEVICES to it, so the worker uses index 0), and one job
 * that depends on the whole array (afterany) and runs a worker over
 * whatever is left - an element that failed or was cancelled - then
 * writes the reports.  Slurm schedules; the store's leases keep any two
 * workers off one attempt.  The scripts land in runs/<run>/slurm/, with
 * each job's output beside them.
 */
#include "arena/engine.h"
#include "arena/proc.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "arena/paths.h"
#include "arena/store.h"
#include "arena/task.h"

/* 'text' with every ' closed, escaped and reopened: safe in sh. */
static void sh_quote(struct strbuf *b, const char *text)
{
	strbuf_addf(b, "'");
	for (const char *p = text; *p; p++) {
		if (*p == '\'')
			strbuf_addf(b, "'\\''");
		else
			strbuf_addf(b, "%c", *p);
	}
	strbuf_addf(b, "'");
}

static void script_header(struct strbuf *b, const char *run_id,
			  const char *what)
{
	strbuf_addf(b, "#!/bin/sh\n# Written by `arena slurm` for %s: %s.\n"
		    "# Resubmitting it by hand is safe: the store's leases "
		    "keep two workers off\n# one attempt, and finished "
		    "attempts are not repeated.\n", run_id, what);
}

/* The arena command line every job runs: this binary, this store, these
 * tasks, by absolute path (jobs start in another directory). */
static void arena_prefix(struct strbuf *b, struct engine *e)
{
	char *self = paths_self();

	sh_quote(b, self ? self : "arena");
	free(self);
	strbuf_addf(b, " --store ");
	sh_quote(b, store_root(engine_store(e)));
	strbuf_addf(b, " --tasks-dir ");
	char *tasks = path_real(engine_tasks_root(e));
	sh_quote(b, tasks ? tasks : engine_tasks_root(e));
	free(tasks);
}

/* Whether any task of the run's config is evaluated on a GPU. */
static int run_uses_gpu(struct engine *e, const struct runconfig *cfg,
			bool *uses, struct errbuf *err)
{
	*uses = false;
	for (size_t i = 0; i < cfg->task_ids.n && !*uses; i++) {
		struct task *t;
		char *dev = NULL;
		int rc = task_load(engine_tasks_root(e), cfg->task_ids.v[i], &t,
				   err);
		if (rc)
			return rc;
		rc = engine_resolve_device(cfg->device, t, &dev, err);
		task_free(t);
		if (rc)
			return rc;
		*uses = dev && strcmp(dev, "host") != 0;
		free(dev);
	}
	return 0;
}

/* What both jobs ask for: output beside the scripts, one GPU when the
 * run has GPU tasks, the user's partition and time limit. */
static void job_options(struct strvec *args, const struct slurm_opts *o,
			const char *dir, const char *output, bool gpu)
{
	strvec_pushf(args, "--output=%s/%s", dir, output);
	strvec_pushf(args, "--chdir=%s", dir);
	if (gpu)
		strvec_push(args, "--gres=gpu:1");
	if (o->partition)
		strvec_pushf(args, "--partition=%s", o->partition);
	if (o->time_min > 0)
		strvec_pushf(args, "--time=%d", o->time_min);
}

/* Runs sbatch --parsable with args (options), the user's own options,
 * then script; *job gets the job id it prints.  A dry run appends the
 * command line to dry instead, and the job id is a shell variable. */
static int sbatch(const struct slurm_opts *o, struct strvec *args,
		  const char *script, char **job, struct strbuf *dry,
		  struct errbuf *err)
{
	struct strvec argv = STRVEC_INIT;
	struct proc_result pr;
	int rc;

	strvec_push(&argv, o->sbatch ? o->sbatch : "sbatch");
	strvec_push(&argv, "--parsable");
	for (size_t i = 0; i < args->n; i++)
		strvec_push(&argv, args->v[i]);
	for (size_t i = 0; o->extra && i < o->extra->n; i++)
		strvec_push(&argv, o->extra->v[i]);
	strvec_push(&argv, script);
	*job = NULL;
	if (o->dry_run) {
		/* The first command's output is the id the second uses. */
		bool first = dry->len == 0;
		strbuf_addf(dry, "%s", first ? "ARRAY_JOB=$(" : "");
		for (size_t i = 0; i < argv.n; i++) {
			strbuf_addf(dry, "%s", i ? " " : "");
			if (strstr(argv.v[i], "$ARRAY_JOB"))
				strbuf_addf(dry, "\"%s\"", argv.v[i]);
			else
				sh_quote(dry, argv.v[i]);
		}
		strbuf_addf(dry, "%s\n", first ? ")" : "");
		*job = xstrdup("$ARRAY_JOB");
		strvec_release(&argv);
		return 0;
	}
	rc = proc_run_capture(argv.v, NULL, NULL, 60000, 1 << 16, &pr, err);
	if (rc) {
		errbuf_prefix(err, "cannot run %s (is Slurm installed? `apt-get "
			      "install slurm-client`, or --sbatch PATH)",
			      argv.v[0]);
		strvec_release(&argv);
		return rc;
	}
	char none[1] = "", *out = pr.output ? pr.output : none;
	for (size_t n = strlen(out); n > 0 && isspace((unsigned char)out[n - 1]);)
		out[--n] = '\0';
	if (!pr.timed_out && WIFEXITED(pr.status) &&
	    WEXITSTATUS(pr.status) == 127) {
		rc = errf_code(err, ENOENT, "%s: %s (is Slurm installed? "
			       "`apt-get install slurm-client`, or --sbatch "
			       "PATH)", argv.v[0], *out ? out : "not found");
	} else if (pr.timed_out || !WIFEXITED(pr.status) ||
		   WEXITSTATUS(pr.status)) {
		char how[96];
		proc_describe_status(pr.status, how, sizeof(how));
		rc = errf_code(err, EIO, "%s %s: %s", argv.v[0],
			       pr.timed_out ? "did not answer in 60 s" : how,
			       *out ? out : "(no output)");
	} else {
		size_t len = strspn(out, "0123456789");
		if (len == 0)
			rc = errf_code(err, EIO, "%s printed no job id: '%s'",
				       argv.v[0], out);
		else
			*job = xasprintf("%.*s", (int)len, out);
	}
	proc_result_release(&pr);
	strvec_release(&argv);
	return rc;
}

int engine_slurm_submit(struct engine *e, const char *run_id,
			const struct slurm_opts *o, struct slurm_jobs *out,
			struct errbuf *err)
{
	struct store_run run;
	struct runconfig *cfg = NULL;
	struct strbuf el = STRBUF_INIT, ag = STRBUF_INIT, dry = STRBUF_INIT;
	struct strvec args = STRVEC_INIT;
	char *dir = NULL, *el_path = NULL, *ag_path = NULL;
	bool gpu = false;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = store_run_get(engine_store(e), run_id, &run, err);
	if (rc)
		return rc;
	rc = engine_run_config(e, &run, &cfg, err);
	if (!rc)
		rc = run_uses_gpu(e, cfg, &gpu, err);
	if (rc)
		goto out;
	if (run.ntasks < 1) {
		rc = errf_code(err, EINVAL, "run %s has no attempts", run_id);
		goto out;
	}
	char *run_dir = store_run_dir(engine_store(e), run_id);
	dir = path_join(run_dir, "slurm");
	free(run_dir);
	if ((rc = mkdir_p(dir, err)))
		goto out;

	script_header(&el, run_id, "one array element = one attempt, by its "
		      "index in the run's order");
	strbuf_addf(&el, "exec ");
	arena_prefix(&el, e);
	strbuf_addf(&el, " worker %s --index \"$SLURM_ARRAY_TASK_ID\"%s\n",
		    run_id, gpu ? " --gpu 0" : "");
	script_header(&ag, run_id, "after the array, whatever is left, then "
		      "the reports");
	arena_prefix(&ag, e);
	strbuf_addf(&ag, " worker %s%s\nrc=$?\n", run_id, gpu ? " --gpu 0" : "");
	arena_prefix(&ag, e);
	strbuf_addf(&ag, " report %s\nexit $rc\n", run_id);
	el_path = path_join(dir, "element.sh");
	ag_path = path_join(dir, "aggregate.sh");
	if ((rc = file_write_atomic_str(el_path, strbuf_str(&el), err)) ||
	    (rc = file_write_atomic_str(ag_path, strbuf_str(&ag), err)))
		goto out;
	chmod(el_path, 0755);
	chmod(ag_path, 0755);

	strvec_pushf(&args, "--job-name=arena-%s", run_id);
	if (o->max_parallel > 0)
		strvec_pushf(&args, "--array=0-%d%%%d", run.ntasks - 1,
			     o->max_parallel);
	else
		strvec_pushf(&args, "--array=0-%d", run.ntasks - 1);
	job_options(&args, o, dir, "element-%a.out", gpu);
	rc = sbatch(o, &args, el_path, &out->array_job, &dry, err);
	if (rc)
		goto out;
	strvec_release(&args);
	strvec_pushf(&args, "--job-name=arena-%s-report", run_id);
	strvec_pushf(&args, "--dependency=afterany:%s", out->array_job);
	job_options(&args, o, dir, "aggregate.out", gpu);
	rc = sbatch(o, &args, ag_path, &out->aggregate_job, &dry, err);
	if (rc) {
		errbuf_prefix(err, "the array (job %s) is submitted, but not "
			      "the job after it; `arena worker %s` finishes "
			      "the run by hand", out->array_job, run_id);
		goto out;
	}
	out->elements = run.ntasks;
	out->uses_gpu = gpu;
	if (o->dry_run) {
		out->commands = xstrdup(strbuf_str(&dry));
		goto out;
	}
	char *msg = xasprintf("submitted to Slurm: array job %s (%d elements%s),"
			      " then job %s for what is left and the reports;"
			      " scripts and output in %s", out->array_job,
			      run.ntasks, gpu ? ", one GPU each" : "",
			      out->aggregate_job, dir);
	(void)store_event_add(engine_store(e), run_id, NULL, "slurm", msg,
			      NULL);
	free(msg);
out:
	strvec_release(&args);
	strbuf_release(&el);
	strbuf_release(&ag);
	strbuf_release(&dry);
	free(el_path);
	free(ag_path);
	free(dir);
	runconfig_free(cfg);
	store_run_release(&run);
	return rc;
}

void slurm_jobs_release(struct slurm_jobs *j)
{
	free(j->array_job);
	free(j->aggregate_job);
	free(j->commands);
	memset(j, 0, sizeof(*j));
}
