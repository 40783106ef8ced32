/*
 * report_ab.h - the A/B comparisons a run with several agent
 * configurations (`agents:`) shows in its reports: each configuration
 * against the first (the control), with arena/abtest.h's statistics.
 * Used by report.c (summary.json, report.txt) and report_html.c.
 */
#ifndef ARENA_REPORT_AB_H
#define ARENA_REPORT_AB_H

#include "arena/abtest.h"
#include "arena/report.h"

struct report_ab {
	int ntasks;
	const char **task_ids;	/* borrowed from the rows */
	int ncmp;		/* configurations - 1; 0 for a run with one */
	struct ab_result *cmp;	/* cmp[k]: configuration k + 1 against the
				 * first */
};

/* Builds the comparisons from the rows (deterministic: the bootstrap
 * seeds derive from run_id and the configurations' names).  The rows
 * must outlive *ab. */
void report_ab_build(struct report_ab *ab, const struct report_row *rows,
		     int n, const char *run_id);
void report_ab_release(struct report_ab *ab);

#endif /* ARENA_REPORT_AB_H */
