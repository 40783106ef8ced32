/*
 * report.h - run reports: summary.csv, summary.json and report.txt.
 *
 * summary.csv keeps AgentKernelArena's columns first (Task Name, Task Type,
 * Score, Speedup, Optimization_summary) and adds arena's (Status, Compiled,
 * Correct, Speedup CI Low/High, Reward, Pairs, Held-out Correct, Agent
 * Status, Attempt).  summary.json holds overall and per-family statistics
 * (pass rates, mean / median / geometric-mean speedup, percentiles).
 * report.txt is for a person.  All three are pure functions of the run's
 * results, so rewriting them is always safe.
 */
#ifndef ARENA_REPORT_H
#define ARENA_REPORT_H

#include "arena/result.h"

struct report_row {
	const char *task_id;		/* "c2c/saxpy" */
	int attempt;			/* 1-based slot number */
	const struct task_result *result;	/* NULL: not finished yet */
	const char *variant;		/* agent configuration; NULL or "" if
					 * the run has one */
};

struct report_meta {
	const char *run_id;
	const char *agent;
	const char *device;
	const char *created_at;
	const char *status;		/* run status */
};

char *report_csv(const struct report_row *rows, int n);
char *report_json(const struct report_meta *m, const struct report_row *rows,
		  int n);
char *report_text(const struct report_meta *m, const struct report_row *rows,
		  int n);

/* Writes summary.csv, summary.json and report.txt into dir atomically. */
int report_write_all(const char *dir, const struct report_meta *m,
		     const struct report_row *rows, int n, struct errbuf *err);

#endif /* ARENA_REPORT_H */
