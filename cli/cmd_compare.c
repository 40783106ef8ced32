/*
 * cmd_compare.c - `arena compare RUN_A RUN_B`: the paired comparison of two
 * runs (per-task deltas, geometric-mean speedup ratio with a bootstrap
 * interval over tasks, win/tie/loss beyond the noise floor, whether the
 * runs are comparable).  The same report as the mount's
 * compare/<A>/<B>/report.txt.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena/compare.h"
#include "cli.h"

int cmd_compare(struct cli *c, int argc, char **argv)
{
	struct compare_report rep;
	struct engine *e;
	struct errbuf err;
	char *text;

	if (argc != 3 || !store_run_id_valid(argv[1]) ||
	    !store_run_id_valid(argv[2]))
		return cli_fail("usage: arena compare RUN_A RUN_B (run ids, "
				"as 'arena status' lists them)");
	if (cli_open(c, &e))
		return 1;
	errbuf_init(&err);
	if (compare_runs(engine_store(e), argv[1], argv[2], &rep, &err) != 0) {
		engine_close(e);
		return cli_fail("%s", errbuf_str(&err));
	}
	text = compare_report_text(&rep);
	fputs(text, stdout);
	free(text);
	compare_report_release(&rep);
	engine_close(e);
	return 0;
}
