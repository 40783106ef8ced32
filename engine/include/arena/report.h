/*
 * report.h - run reports: summary.csv, summary.json and report.txt (and
 * report.html, arena/report_html.h, written beside them).
 *
 * summary.csv keeps AgentKernelArena's columns first (Task Name, Task Type,
 * Score, Speedup, Optimization_summary) and adds arena's (status, interval,
 * reward, the verdict against the baseline beyond noise, what the agent
 * spent); one type per column, a missing value an empty cell.
 * summary.json holds overall, per-family and per-configuration statistics
 * (pass rates, speedups beyond noise, geometric-mean speedup,
 * percentiles, costs), the A/B comparisons of a run with several agent
 * configurations, and every attempt with its visible cases.  report.txt
 * is for a person.  All are pure functions of the run's results, so
 * rewriting them is always safe.  docs/results.md documents every column
 * and field.
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

/* What the agents of some attempts spent, summed over the attempts with
 * a result: report_costs_add() adds one.  Costs are summed only over the
 * attempts whose cost is known (cost_known of attempts). */
struct report_costs {
	int attempts;
	int64_t turns, input_tokens, cached_tokens, output_tokens;
	double cost_usd;
	int cost_known;
	double agent_s, eval_s; /* agent and final-evaluation wall time */
};
void report_costs_add(struct report_costs *c, const struct task_result *r);
/* As summary.json holds it (docs/results.md): attempts, turns,
 * input_tokens, cached_input_tokens, output_tokens, cost_usd (null when
 * no attempt's cost is known), cost_known_attempts, agent_seconds,
 * eval_seconds.  Caller owns the object. */
struct cJSON;
struct cJSON *report_costs_json(const struct report_costs *c);

struct report_meta {
	const char *run_id;
	const char *agent;
	const char *device;
	const char *created_at;
	const char *status;		/* run status */
	/* AgentKernelArena's dashboard files (report_write_all): the GPU
	 * they name (the config's target_gpu_model; NULL: device) and a
	 * second directory whose reports/ gets them too (the run's
	 * workspace_directory_prefix place; NULL: none). */
	const char *target_gpu;
	const char *aka_run_dir;
};

char *report_csv(const struct report_row *rows, int n);
char *report_json(const struct report_meta *m, const struct report_row *rows,
		  int n);
char *report_text(const struct report_meta *m, const struct report_row *rows,
		  int n);

/* Writes summary.csv, summary.json, report.txt and report.html
 * (arena/report_html.h) into dir, each atomically, and AgentKernelArena's
 * dashboard files into dir/reports/ (and m->aka_run_dir/reports/). */
int report_write_all(const char *dir, const struct report_meta *m,
		     const struct report_row *rows, int n, struct errbuf *err);

#endif /* ARENA_REPORT_H */
