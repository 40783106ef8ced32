/*
 * cmd_run.c - `arena run`, `resume`, `status`, `report` and `cancel`.
 *
 * `run` validates the whole config (every task, the agent) before creating
 * anything, prints the run id, executes with one line per event, and ends
 * with the run's report.  `status` shows a progress bar on a terminal and
 * plain lines otherwise.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* Prints the run's report.txt, then one line pointing at its files. */
static void print_report(struct engine *e, const char *run_id,
			 const char *footer)
{
	char *dir = store_run_dir(engine_store(e), run_id);
	char *path = path_join(dir, "report.txt"), *text = NULL;

	if (file_read_all(path, (size_t)16 << 20, &text, NULL, NULL) == 0)
		fputs(text, stdout);
	printf("\n%s: %s/%s\n", footer, dir,
	       strcmp(footer, "results") ? "{summary.csv,summary.json,"
					   "report.txt}" : "summary.csv");
	free(text);
	free(path);
	free(dir);
}

#define MAX_GPUS 64

/* "--gpus 0,1,3": device indices as the runtime counts them (after
 * CUDA_VISIBLE_DEVICES / HIP_VISIBLE_DEVICES), each once. */
static int parse_gpus(const char *list, int *gpus, int *n)
{
	const char *p = list;

	*n = 0;
	while (*p) {
		char *end;
		long v = strtol(p, &end, 10);
		if (end == p || v < 0 || v > 1023 || (*end && *end != ','))
			return cli_fail("--gpus '%s': give device indices "
					"separated by commas, as in --gpus 0,1,3",
					list);
		for (int k = 0; k < *n; k++)
			if (gpus[k] == (int)v)
				return cli_fail("--gpus '%s': device %ld is "
						"named twice", list, v);
		if (*n == MAX_GPUS)
			return cli_fail("--gpus '%s': at most %d devices",
					list, MAX_GPUS);
		gpus[(*n)++] = (int)v;
		p = *end ? end + 1 : end;
	}
	if (*n == 0)
		return cli_fail("--gpus needs at least one device index, as in "
				"--gpus 0,1");
	return 0;
}

static int execute_and_report(struct engine *e, const char *run_id,
			      const int *gpus, int ngpus)
{
	struct engine_observer obs = { .event = cli_print_event };
	struct errbuf err;

	errbuf_init(&err);
	if (engine_run_execute_on(e, run_id, gpus, ngpus, &obs, &err))
		return cli_fail("%s", errbuf_str(&err));
	fputs("\n", stdout);
	print_report(e, run_id, "results");
	return 0;
}

int cmd_run(struct cli *c, int argc, char **argv)
{
	const char *config = NULL, *suffix = NULL;
	struct runconfig *cfg;
	struct engine *e;
	struct errbuf err;
	char *run_id = NULL;
	int rc, gpus[MAX_GPUS], ngpus = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--run-suffix") && i + 1 < argc)
			suffix = argv[++i];
		else if (!strcmp(argv[i], "--store") && i + 1 < argc)
			c->store_dir = argv[++i];
		else if (!strcmp(argv[i], "--gpus") && i + 1 < argc) {
			if (parse_gpus(argv[++i], gpus, &ngpus))
				return 1;
		} else if (argv[i][0] != '-' && !config)
			config = argv[i];
		else
			return cli_fail("usage: arena run CONFIG "
					"[--run-suffix NAME] [--store DIR] "
					"[--gpus 0,1,...]");
	}
	if (!config)
		return cli_fail("usage: arena run CONFIG [--run-suffix NAME] "
				"[--store DIR] [--gpus 0,1,...]");
	if (cli_open(c, &e))
		return 1;
	errbuf_init(&err);
	rc = engine_config_load(e, config, &cfg, &err);
	if (rc) {
		engine_close(e);
		return cli_fail("%s", errbuf_str(&err));
	}
	/* The devices this run will use must exist before it is created:
	 * --gpus, else the config's gpus:. */
	const int *use = ngpus > 0 ? gpus : cfg->gpus;
	int nuse = ngpus > 0 ? ngpus : cfg->ngpus;
	if (nuse > 0 && (rc = engine_check_gpus(e, cfg, use, nuse, &err))) {
		char *where = ngpus > 0 ? xstrdup("--gpus")
					: xasprintf("%s: gpus", config);
		cli_fail("%s: %s", where, errbuf_str(&err));
		free(where);
		runconfig_free(cfg);
		engine_close(e);
		return 1;
	}
	rc = engine_run_create(e, cfg, suffix, &run_id, &err);
	runconfig_free(cfg);
	if (rc) {
		engine_close(e);
		return cli_fail("%s", errbuf_str(&err));
	}
	printf("run %s (store %s)\n", run_id, store_root(engine_store(e)));
	fflush(stdout);
	rc = execute_and_report(e, run_id, gpus, ngpus);
	free(run_id);
	engine_close(e);
	return rc;
}

/* RUN argument or --latest into an id (caller frees). */
static int pick_run(struct engine *e, int argc, char **argv, char **id)
{
	struct errbuf err;

	errbuf_init(&err);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--gpus")) {
			i++;	/* its list is not a run id */
			continue;
		}
		if (!strcmp(argv[i], "--latest")) {
			if (store_run_latest(engine_store(e), id, &err))
				return cli_fail("%s", errbuf_str(&err));
			return 0;
		}
		if (argv[i][0] != '-') {
			if (!store_run_id_valid(argv[i]))
				return cli_fail("'%s' is not a run id (they look "
						"like run_20261129_093000)",
						argv[i]);
			*id = xstrdup(argv[i]);
			return 0;
		}
	}
	return cli_fail("name a run (or --latest); 'arena status' lists them");
}

int cmd_resume(struct cli *c, int argc, char **argv)
{
	struct engine *e;
	char *id = NULL;
	int rc, gpus[MAX_GPUS], ngpus = 0;

	for (int i = 1; i + 1 < argc; i++)
		if (!strcmp(argv[i], "--gpus") &&
		    parse_gpus(argv[i + 1], gpus, &ngpus))
			return 1;
	if (cli_open(c, &e))
		return 1;
	rc = pick_run(e, argc, argv, &id);
	if (!rc) {
		printf("resuming %s\n", id);
		rc = execute_and_report(e, id, gpus, ngpus);
	}
	free(id);
	engine_close(e);
	return rc;
}

static void progress_bar(const struct run_progress *p)
{
	int width = 40, filled = p->total ? width * p->done / p->total : 0;

	printf("[");
	for (int i = 0; i < width; i++)
		putchar(i < filled ? '#' : '.');
	printf("] %d/%d", p->done, p->total);
}

static int status_one(struct cli *c, struct engine *e, const char *id,
		      bool brief)
{
	struct run_progress p;
	struct errbuf err;

	errbuf_init(&err);
	if (engine_run_progress(e, id, &p, &err))
		return cli_fail("%s", errbuf_str(&err));
	if (c->tty) {
		printf("%-32s %-10s ", id, p.status);
		progress_bar(&p);
	} else {
		printf("%s %s done=%d total=%d", id, p.status, p.done, p.total);
	}
	if (p.running)
		printf(" running=%d", p.running);
	if (p.stale)
		printf(" stale=%d", p.stale);
	if (p.workers)
		printf(" workers=%d", p.workers);
	if (!strcmp(p.status, "running") && !p.executor_alive)
		printf(" (no executor: 'arena resume %s')", id);
	printf("\n");
	if (!brief) {
		struct store_attempt *as;
		int n;
		if (store_attempt_list(engine_store(e), id, &as, &n, &err) == 0) {
			for (int i = 0; i < n; i++)
				printf("  %-28s #%d %s\n", as[i].task_id,
				       as[i].attempt, as[i].state);
			store_attempts_free(as, n);
		}
	}
	run_progress_release(&p);
	return 0;
}

int cmd_status(struct cli *c, int argc, char **argv)
{
	struct engine *e;
	struct strvec ids = STRVEC_INIT;
	struct errbuf err;
	int rc = 0;

	if (cli_open(c, &e))
		return 1;
	errbuf_init(&err);
	if (argc > 1) {
		char *id = NULL;
		rc = pick_run(e, argc, argv, &id);
		if (!rc)
			rc = status_one(c, e, id, false);
		free(id);
	} else if (store_run_list(engine_store(e), &ids, &err) != 0) {
		rc = cli_fail("%s", errbuf_str(&err));
	} else if (ids.n == 0) {
		printf("no runs yet in %s; start one with 'arena run "
		       "CONFIG'\n", store_root(engine_store(e)));
	} else {
		for (size_t i = 0; i < ids.n && !rc; i++)
			rc = status_one(c, e, ids.v[i], true);
	}
	strvec_release(&ids);
	engine_close(e);
	return rc;
}

int cmd_report(struct cli *c, int argc, char **argv)
{
	struct engine *e;
	struct errbuf err;
	char *id = NULL;
	int rc;

	if (cli_open(c, &e))
		return 1;
	rc = pick_run(e, argc, argv, &id);
	errbuf_init(&err);
	if (!rc && engine_run_report(e, id, &err) != 0)
		rc = cli_fail("%s", errbuf_str(&err));
	if (!rc)
		print_report(e, id, "written");
	free(id);
	engine_close(e);
	return rc;
}

int cmd_cancel(struct cli *c, int argc, char **argv)
{
	struct engine *e;
	struct errbuf err;
	char *id = NULL;
	int rc;

	if (cli_open(c, &e))
		return 1;
	rc = pick_run(e, argc, argv, &id);
	errbuf_init(&err);
	if (!rc && engine_run_cancel(e, id, &err) != 0)
		rc = cli_fail("%s", errbuf_str(&err));
	else if (!rc)
		printf("cancel requested for %s\n", id);
	free(id);
	engine_close(e);
	return rc;
}
