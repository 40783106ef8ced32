/*
 * cmd_compare.c - `arena compare A B`: is B better than A?  A side is a run
 * or one agent configuration of a run (RUN:NAME); `arena compare RUN`
 * compares the first two configurations of a run with `agents:`.  Prints
 * the report of engine/src/compare.c (headline, effects with intervals,
 * p-values and minimal detectable effects, per-task verdicts under FDR
 * control, the per-task table, costs), or its JSON with --json; --html
 * FILE also writes the page (compare_report_html).  The text is the
 * mount's compare/<A>/<B>/report.txt.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena/compare.h"
#include "cli.h"

static bool side_valid(const char *side)
{
	const char *colon = strchr(side, ':');
	char *run;
	bool ok;

	if (!colon)
		return store_run_id_valid(side);
	if (!colon[1] || strchr(colon + 1, ':'))
		return false;
	run = xstrndup(side, (size_t)(colon - side));
	ok = store_run_id_valid(run);
	free(run);
	return ok;
}

/* `arena compare RUN`: the run's first two agent configurations. */
static int variant_sides(struct engine *e, const char *run, char **a,
			 char **b)
{
	struct strvec names;
	struct errbuf err;

	errbuf_init(&err);
	if (compare_run_variants(engine_store(e), run, &names, &err) != 0)
		return cli_fail("%s", errbuf_str(&err));
	if (names.n < 2) {
		strvec_release(&names);
		return cli_fail("run %s has one agent configuration; compare it "
				"with another run: arena compare %s RUN_B", run,
				run);
	}
	if (names.n > 2) {
		struct strbuf sb = STRBUF_INIT;

		for (size_t i = 0; i < names.n; i++)
			strbuf_addf(&sb, "%s%s", i ? ", " : "", names.v[i]);
		cli_fail("run %s has %zu agent configurations (%s); name the "
			 "two to compare, e.g. arena compare %s:%s %s:%s", run,
			 names.n, strbuf_str(&sb), run, names.v[0], run,
			 names.v[1]);
		strbuf_release(&sb);
		strvec_release(&names);
		return 1;
	}
	*a = xasprintf("%s:%s", run, names.v[0]);
	*b = xasprintf("%s:%s", run, names.v[1]);
	strvec_release(&names);
	return 0;
}

int cmd_compare(struct cli *c, int argc, char **argv)
{
	struct compare_report rep;
	struct engine *e;
	struct errbuf err;
	const char *pos[2], *html = NULL;
	char *side_a = NULL, *side_b = NULL, *text;
	int npos = 0, rc = 0;
	bool json = false;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			json = true;
		} else if (!strcmp(argv[i], "--html")) {
			if (i + 1 >= argc)
				return cli_usage_error("compare",
						       "--html needs "
						       "a file name");
			html = argv[++i];
		} else if (argv[i][0] == '-') {
			return cli_usage_error("compare",
					       "unknown option "
					       "'%s'",
					       argv[i]);
		} else if (npos == 2) {
			return cli_usage_error("compare",
					       "two sides at most "
					       "('%s' is a third)",
					       argv[i]);
		} else if (!side_valid(argv[i])) {
			return cli_usage_error("compare",
					       "'%s' is not a run id "
					       "or RUN:NAME (run ids look like "
					       "run_20261129_093000)",
					       argv[i]);
		} else {
			pos[npos++] = argv[i];
		}
	}
	if (npos == 0)
		return cli_usage_error("compare", "name the runs or "
						  "configurations to compare");
	if (npos == 1 && strchr(pos[0], ':'))
		return cli_usage_error("compare",
				       "'%s' is one side; name the "
				       "other one too",
				       pos[0]);
	if (cli_open(c, &e))
		return 1;
	if (npos == 1) {
		rc = variant_sides(e, pos[0], &side_a, &side_b);
	} else {
		side_a = xstrdup(pos[0]);
		side_b = xstrdup(pos[1]);
	}
	if (rc) {
		engine_close(e);
		return rc;
	}
	errbuf_init(&err);
	if (compare_runs(engine_store(e), side_a, side_b, &rep, &err) != 0) {
		rc = cli_fail("%s", errbuf_str(&err));
	} else {
		text = json ? compare_report_json(&rep)
			    : compare_report_text(&rep);
		fputs(text, stdout);
		if (json)
			fputc('\n', stdout);
		free(text);
		if (html) {
			char *page = compare_report_html(&rep);

			if (file_write_atomic_str(html, page, &err) != 0)
				rc = cli_fail("%s", errbuf_str(&err));
			else if (!json)
				printf("\nwritten: %s\n", html);
			free(page);
		}
	}
	compare_report_release(&rep);
	free(side_a);
	free(side_b);
	engine_close(e);
	return rc;
}
