/*
 * cmd_slurm.c - `arena worker` and `arena slurm`: a run executed by
 * workers in separate processes, on this machine or through Slurm
 * (engine_run_work, engine_slurm_submit; docs/cli.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static int parse_count(const char *cmd, const char *opt, const char *v, int lo,
		       int *out)
{
	int64_t n;

	if (parse_i64(v, &n) || n < lo || n > 1000000)
		return cli_usage_error(cmd,
				       "%s '%s': give a whole number of "
				       "at least %d",
				       opt, v, lo);
	*out = (int)n;
	return 0;
}

int cmd_worker(struct cli *c, int argc, char **argv)
{
	struct engine_work w = { .only = -1 };
	struct engine_observer obs;
	const char *run_id = NULL;
	struct engine *e;
	struct errbuf err;
	int rc;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--index") && i + 1 < argc) {
			if (parse_count("worker", "--index", argv[++i], 0,
					&w.only))
				return 2;
		} else if (!strcmp(argv[i], "--gpu") && i + 1 < argc) {
			if (parse_count("worker", "--gpu", argv[++i], 0,
					&w.gpu))
				return 2;
			w.has_gpu = true;
		} else if (!strcmp(argv[i], "--lease-seconds") &&
			   i + 1 < argc) {
			int s = 0;
			if (parse_count("worker", "--lease-seconds", argv[++i],
					1, &s))
				return 2;
			w.lease_s = s;
		} else if (argv[i][0] != '-' && !run_id) {
			run_id = argv[i];
		} else {
			return cli_usage_error("worker",
					       "unexpected argument "
					       "or missing value: '%s'",
					       argv[i]);
		}
	}
	if (!run_id)
		return cli_usage_error("worker", "name the run to work on");
	if (!store_run_id_valid(run_id))
		return cli_usage_error("worker",
				       "'%s' is not a run id (they "
				       "look like run_20261129_093000)",
				       run_id);
	if (cli_open(c, &e))
		return 1;
	errbuf_init(&err);
	struct cli_progress *p = cli_progress_start(e, run_id, c->tty, &obs);
	rc = engine_run_work(e, run_id, &w, &obs, &err);
	cli_progress_stop(p);
	if (rc)
		cli_fail("%s", errbuf_str(&err));
	engine_close(e);
	return rc ? 1 : 0;
}

int cmd_slurm(struct cli *c, int argc, char **argv)
{
	struct slurm_opts o = { 0 };
	struct strvec extra = STRVEC_INIT;
	const char *what = NULL, *suffix = NULL;
	struct slurm_jobs jobs;
	struct engine *e;
	struct errbuf err;
	char *run_id = NULL;
	int rc = 1;

	o.extra = &extra;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		bool has = i + 1 < argc;
		if (!strcmp(a, "--run-suffix") && has)
			suffix = argv[++i];
		else if (!strcmp(a, "--partition") && has)
			o.partition = argv[++i];
		else if (!strcmp(a, "--sbatch") && has)
			o.sbatch = argv[++i];
		else if (!strcmp(a, "--sbatch-arg") && has)
			strvec_push(&extra, argv[++i]);
		else if (!strcmp(a, "--dry-run"))
			o.dry_run = true;
		else if (!strcmp(a, "--time") && has) {
			if (parse_count("slurm", "--time", argv[++i], 1,
					&o.time_min)) {
				rc = 2;
				goto done;
			}
		} else if (!strcmp(a, "--max-parallel") && has) {
			if (parse_count("slurm", "--max-parallel", argv[++i], 1,
					&o.max_parallel)) {
				rc = 2;
				goto done;
			}
		} else if (a[0] != '-' && !what) {
			what = a;
		} else {
			rc = cli_usage_error("slurm",
					     "unexpected argument or "
					     "missing value: '%s'",
					     a);
			goto done;
		}
	}
	if (!what) {
		rc = cli_usage_error("slurm", "name a run config (or a "
					      "created run)");
		goto done;
	}
	if (cli_open(c, &e))
		goto done;
	errbuf_init(&err);
	/* A run id that is no file: submit that run again (what is done is
	 * not repeated); anything else is a config to create a run from. */
	if (store_run_id_valid(what) && access(what, F_OK) != 0) {
		struct store_run r;
		if (store_run_get(engine_store(e), what, &r, &err) != 0) {
			cli_fail("%s", errbuf_str(&err));
			goto close;
		}
		store_run_release(&r);
		run_id = xstrdup(what);
	} else {
		struct runconfig *cfg;
		if (engine_config_load(e, what, &cfg, &err) != 0) {
			cli_fail("%s", errbuf_str(&err));
			goto close;
		}
		int crc = engine_run_create(e, cfg, suffix, &run_id, &err);
		runconfig_free(cfg);
		if (crc) {
			cli_fail("%s", errbuf_str(&err));
			goto close;
		}
	}
	printf("run %s (store %s)\n", run_id, store_root(engine_store(e)));
	if (engine_slurm_submit(e, run_id, &o, &jobs, &err) != 0) {
		cli_fail("%s\nrun %s is created but not running: `arena slurm "
			 "%s` submits it again, `arena worker %s` runs it here",
			 errbuf_str(&err), run_id, run_id, run_id);
		goto close;
	}
	if (o.dry_run) {
		printf("dry run: scripts written, nothing submitted; to submit "
		       "by hand:\n%s", jobs.commands);
		slurm_jobs_release(&jobs);
		rc = 0;
		goto close;
	}
	printf("array job %s: %d elements (one attempt each%s)\n"
	       "job %s after it: what is left, then the reports\n"
	       "progress: arena status %s\n", jobs.array_job, jobs.elements,
	       jobs.uses_gpu ? ", one GPU each" : "", jobs.aggregate_job,
	       run_id);
	slurm_jobs_release(&jobs);
	rc = 0;
close:
	engine_close(e);
done:
	free(run_id);
	strvec_release(&extra);
	return rc;
}
