/*
 * report_internal.h - what the report room's files share (private to
 * engine/src/report): the facts about one row and the statistics over a
 * group of rows that every rendering reports the same way (report.c,
 * report_rows.c), and AgentKernelArena's dashboard files (report_aka.c).
 */
#ifndef ARENA_REPORT_INTERNAL_H
#define ARENA_REPORT_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "arena/report.h"
#include "arena/task.h"

struct group {
	char *name;		/* family, or NULL for the whole run */
	int total, evaluated, pending, compiled, correct, rejected;
	int gt1, significant, slower, within; /* faster beyond noise,
						 * slower beyond it, neither */
	struct report_costs costs;
	int verdicts[RS_INFRA_ERROR + 1]; /* rows by result status */
	double total_score;
	double reward_sum;
	int reward_n;
	double *speedups;	/* correct, timed rows */
	int nspeedups;
	/* held-out: rows evaluated on held-out cases, and among rows
	 * correct on the visible cases, how many held-out ones passed. */
	int ho_evaluated, ho_correct, ho_visible_correct;
	int ho_visible_and_held_correct;
	double *retention;	/* held_out_speedup / speedup_ratio */
	int nretention;
};

struct speedup_stats {
	double mean, median, geomean, std_dev, p25, p75, p90;
};

/* The run's rows grouped by family, in order of first appearance. */
struct grouping {
	struct group all;
	struct group *fam;
	int nfam;
};

/* The rows grouped by agent configuration (variant); nvar stays 0 when
 * the run has a single, unnamed one. */
struct variants {
	struct group *var;
	int nvar;
};


void group_speedup_stats(struct group *g, struct speedup_stats *st);
void grouping_build(struct grouping *gr, const struct report_row *rows,
		    int n);
void grouping_release(struct grouping *gr);
double rate(int count, int total);
/* A timed row against its baseline, beyond the measured noise: its
 * interval wholly above 1 + noise_floor (faster), wholly below
 * 1 - noise_floor (slower), or neither (same). */
enum versus { VS_NONE = 0, VS_FASTER, VS_SLOWER, VS_SAME };
enum versus row_versus(const struct report_row *row);
const char *versus_name(enum versus v); /* "faster", ...; NULL: none */
bool row_compiled(const struct report_row *row);
bool row_correct(const struct report_row *row);
bool row_has_ci(const struct task_result *r);
bool row_has_speedup(const struct report_row *row);
char *row_reason(const struct report_row *row);
const char *row_status(const struct report_row *row);
const char *row_variant(const struct report_row *row);
char *task_family(const char *task_id);
/* The cases of r checked but not timed (below the timing floor, or a
 * shape an AKA harness checks but does not time): the visible ones by id appended to ids (", "-separated; ids may be NULL),
 * the held-out ones only counted in *held - reports reach places where
 * held-out ids must not.  Returns the number of visible ones. */
int report_correctness_only(const struct task_result *r, struct strbuf *ids,
			    int *held);
void variants_build(struct variants *vs, const struct report_row *rows,
		    int n);
void variants_release(struct variants *vs);

/* Python's statistics.quantiles(data, n=100)[i - 1] (method "exclusive")
 * for sorted data of n >= 1 values: the i-th percentile, as
 * AgentKernelArena computes its P25/P75/P90. */
double report_py_percentile(const double *s, int n, int i);

/* AgentKernelArena's dashboard files (report_aka.c) in dir/reports. */
int report_write_aka(const char *dir, const struct report_meta *m,
		     const struct report_row *rows, int n, struct errbuf *err);

#endif /* ARENA_REPORT_INTERNAL_H */
