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

/* Prints the run's report.txt, then where its files are. */
static void print_report(struct engine *e, const char *run_id,
			 const char *footer)
{
	char *dir = store_run_dir(engine_store(e), run_id);
	char *path = path_join(dir, "report.txt"), *text = NULL;

	if (file_read_all(path, (size_t)16 << 20, &text, NULL, NULL) == 0)
		fputs(text, stdout);
	printf("\n%s: %s/{summary.csv,summary.json,report.txt,report.html}\n",
	       footer, dir);
	free(text);
	free(path);
	free(dir);
}

static int execute_and_report(struct cli *c, struct engine *e,
			      const char *run_id, const int *gpus, int ngpus)
{
	struct engine_observer obs;
	struct cli_progress *p = cli_progress_start(e, run_id, c->tty, &obs);
	struct errbuf err;
	int rc;

	errbuf_init(&err);
	rc = engine_run_execute_on(e, run_id, gpus, ngpus, &obs, &err);
	cli_progress_stop(p);
	if (rc)
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
	int rc, gpus[CLI_MAX_GPUS], ngpus = 0;

	for (int i = 1; i < argc; i++) {
		bool has = i + 1 < argc;

		if (!strcmp(argv[i], "--run-suffix") && has)
			suffix = argv[++i];
		else if (!strcmp(argv[i], "--store") && has)
			c->store_dir = argv[++i];
		else if (!strcmp(argv[i], "--gpus") && has) {
			if ((rc = cli_parse_gpus("run", argv[++i], gpus,
						 &ngpus)))
				return rc;
		} else if (argv[i][0] != '-' && !config)
			config = argv[i];
		else if (argv[i][0] != '-')
			return cli_usage_error("run",
					       "one config at a time "
					       "('%s' is a second one)",
					       argv[i]);
		else
			return cli_usage_error("run",
					       "unknown option or "
					       "missing value: '%s'",
					       argv[i]);
	}
	if (!config)
		return cli_usage_error("run", "name the run config to run");
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
	rc = execute_and_report(c, e, run_id, gpus, ngpus);
	free(run_id);
	engine_close(e);
	return rc;
}

/* The RUN argument of resume, status, report and cancel, checked before
 * anything is opened: a run id, or --latest (*latest set).  Options other
 * commands allow are given in extra (as "--gpus", which takes a value);
 * anything else is a usage error.  *id stays NULL when required is false
 * and no run is named. */
static int parse_run_arg(const char *cmd, int argc, char **argv, bool required,
			 const char **id, bool *latest)
{
	*id = NULL;
	*latest = false;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--gpus") && !strcmp(cmd, "resume")) {
			i++; /* parsed by cmd_resume */
		} else if (!strcmp(argv[i], "--latest") && !*id && !*latest) {
			*latest = true;
		} else if (argv[i][0] == '-') {
			return cli_usage_error(cmd,
					       "unknown option or missing "
					       "value: '%s'",
					       argv[i]);
		} else if (*id || *latest) {
			return cli_usage_error(cmd,
					       "one run at a time ('%s' "
					       "is a second one)",
					       argv[i]);
		} else if (!store_run_id_valid(argv[i])) {
			return cli_usage_error(cmd,
					       "'%s' is not a run id "
					       "(they look like "
					       "run_20261129_093000)",
					       argv[i]);
		} else {
			*id = argv[i];
		}
	}
	if (required && !*id && !*latest)
		return cli_usage_error(cmd, "name a run (or --latest); 'arena "
					    "status' lists them");
	return 0;
}

/* The parsed run argument as an id (caller frees): --latest asks the
 * store. */
static int resolve_run(struct engine *e, const char *id, bool latest,
		       char **out)
{
	struct errbuf err;

	errbuf_init(&err);
	if (!latest) {
		*out = xstrdup(id);
		return 0;
	}
	if (store_run_latest(engine_store(e), out, &err))
		return cli_fail("%s", errbuf_str(&err));
	return 0;
}

int cmd_resume(struct cli *c, int argc, char **argv)
{
	struct engine *e;
	const char *arg;
	bool latest;
	char *id = NULL;
	int rc, gpus[CLI_MAX_GPUS], ngpus = 0;

	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--gpus")) {
			if (i + 1 >= argc)
				return cli_usage_error("resume",
						       "--gpus needs "
						       "a list, as in --gpus "
						       "0,1");
			if ((rc = cli_parse_gpus("resume", argv[++i], gpus,
						 &ngpus)))
				return rc;
		}
	if ((rc = parse_run_arg("resume", argc, argv, true, &arg, &latest)))
		return rc;
	if (cli_open(c, &e))
		return 1;
	rc = resolve_run(e, arg, latest, &id);
	if (!rc) {
		printf("resuming %s\n", id);
		rc = execute_and_report(c, e, id, gpus, ngpus);
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
	const char *arg;
	bool latest;
	int rc;

	if ((rc = parse_run_arg("status", argc, argv, false, &arg, &latest)))
		return rc;
	if (cli_open(c, &e))
		return 1;
	errbuf_init(&err);
	if (arg || latest) {
		char *id = NULL;
		rc = resolve_run(e, arg, latest, &id);
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

/* `arena report --index [--html FILE]`: the page across every run. */
static int report_index(struct cli *c, const char *html_path)
{
	struct engine *e;
	struct errbuf err;
	char *html = NULL, *path;
	int rc;

	if (cli_open(c, &e))
		return 1;
	errbuf_init(&err);
	path = html_path ? xstrdup(html_path)
			 : path_join(store_root(engine_store(e)), "index.html");
	rc = engine_index_html(e, &html, &err);
	if (!rc)
		rc = file_write_atomic_str(path, html, &err);
	if (rc)
		rc = cli_fail("%s", errbuf_str(&err));
	else
		printf("%s\n", path);
	free(html);
	free(path);
	engine_close(e);
	return rc;
}

int cmd_report(struct cli *c, int argc, char **argv)
{
	struct engine *e;
	struct errbuf err;
	const char *arg, *html = NULL;
	bool latest, index = false;
	char *id = NULL;
	int rc, nargs = 0;
	char **args = xcalloc((size_t)argc + 1, sizeof(*args));

	/* --index and --html are this command's; the rest is a run. */
	for (int i = 0; i < argc; i++) {
		if (i > 0 && !strcmp(argv[i], "--index")) {
			index = true;
		} else if (i > 0 && !strcmp(argv[i], "--html")) {
			if (i + 1 >= argc) {
				free(args);
				return cli_usage_error("report", "--html needs "
								 "a file name");
			}
			html = argv[++i];
		} else {
			args[nargs++] = argv[i];
		}
	}
	if (index) {
		rc = nargs > 1 ? cli_usage_error("report",
						 "--index covers "
						 "every run; name no run "
						 "('%s')",
						 args[1])
			       : report_index(c, html);
		free(args);
		return rc;
	}
	if (html) {
		free(args);
		return cli_usage_error("report",
				       "--html goes with --index (a "
				       "run's report.html is written in its "
				       "directory)");
	}
	rc = parse_run_arg("report", nargs, args, true, &arg, &latest);
	free(args);
	if (rc)
		return rc;
	if (cli_open(c, &e))
		return 1;
	rc = resolve_run(e, arg, latest, &id);
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
	const char *arg;
	bool latest;
	char *id = NULL;
	int rc;

	if ((rc = parse_run_arg("cancel", argc, argv, true, &arg, &latest)))
		return rc;
	if (cli_open(c, &e))
		return 1;
	rc = resolve_run(e, arg, latest, &id);
	errbuf_init(&err);
	if (!rc && engine_run_cancel(e, id, &err) != 0)
		rc = cli_fail("%s", errbuf_str(&err));
	else if (!rc)
		printf("cancel requested for %s\n", id);
	free(id);
	engine_close(e);
	return rc;
}
