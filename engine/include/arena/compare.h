/*
 * compare.h - a paired comparison of two runs, or of two agent
 * configurations (DESIGN.md §10): what `compare/<A>/<B>/report.txt` shows
 * and what `arena compare A B` prints.
 *
 * A side is "RUN" or "RUN:VARIANT" (one agent configuration of a run with
 * `agents:`).  Tasks are paired by task id.  The statistics are those of
 * arena/abtest.h (docs/statistics.md §7-§10): the effect of B against A
 * on the geometric-mean speedup, the pass rate, the score and the reward,
 * each with a 95% cluster-bootstrap interval over tasks, a p-value and
 * its minimal detectable effect; per-task verdicts (win, tie, loss) that
 * control the false discovery rate across tasks; one headline sentence.
 * The bootstrap seed derives from the two sides' names, so the same two
 * sides always give the same report.  The comparison also says whether
 * the sides can be compared at all: same task set, same device, same
 * evaluator version.
 *
 * Everything comes from the results stored with the attempts (the last
 * final evaluation of each); nothing is evaluated here.  A side without
 * a variant aggregates every attempt of a task in the run (repeats and,
 * in a run with several agent configurations, every configuration).
 */
#ifndef ARENA_COMPARE_H
#define ARENA_COMPARE_H

#include <stdbool.h>
#include "arena/abtest.h"
#include "arena/report.h"
#include "arena/stats.h"
#include "arena/store.h"
#include "arena/util.h"

/* One run's view of one task, aggregated over its attempts (repeats). */
struct compare_side {
	bool present;		/* the run has this task */
	int attempts;		/* attempts of the task in the run */
	int evaluated;		/* attempts with a stored result */
	int ncorrect;		/* of those, correct */
	bool compiled;		/* every evaluated attempt compiled */
	bool correct;		/* every evaluated attempt is correct */
	double score;		/* mean over evaluated attempts */
	double speedup;		/* geometric mean over evaluated attempts */
	double ci_lo, ci_hi;	/* envelope of the attempts' intervals */
	double noise_floor;	/* largest recorded, relative (0.01 = 1%) */
	char *status;		/* status of the first evaluated attempt */
	struct report_costs costs; /* what its attempts' agents spent */
};

enum compare_verdict {
	CMP_PENDING = 0,	/* a side has no result yet: not counted */
	CMP_WIN,		/* B better: a discovery at the FDR level */
	CMP_TIE,
	CMP_LOSS,
	CMP_ONLY_A,		/* task only in run A: not counted */
	CMP_ONLY_B,		/* task only in run B: not counted */
	CMP_UNTESTED,		/* no test applies (e.g. wrong on both sides,
				 * or one attempt each with different
				 * correctness) */
};

const char *compare_verdict_name(enum compare_verdict v);

struct compare_task {
	char *task_id;
	struct compare_side a, b;
	double ratio;		/* b.speedup / a.speedup when both have
				 * correct, timed attempts, else 0 */
	enum compare_verdict verdict;
	double q;		/* the verdict's BH-adjusted p-value, NAN if
				 * untested */
};

struct compare_report {
	char *run_a, *run_b;
	char *variant_a, *variant_b;	/* NULL: every configuration */
	char *device_a, *device_b;	/* as configured in each run */
	int ntasks;			/* union of both runs' tasks, sorted */
	struct compare_task *tasks;
	int ncommon;			/* tasks in both runs */
	int npaired;			/* common tasks correct in both */
	struct interval ratio;		/* geomean of b/a over paired tasks
					 * (= ab's speedup effect); all 0
					 * when undefined */
	double mean_score_a, mean_score_b;	/* over evaluated common
						 * tasks */
	int fast1_a, fast1_b;		/* common tasks correct with speedup
					 * > 1 */
	int wins, ties, losses, untested, pending;
	bool comparable;
	struct strvec reasons;		/* why not comparable, one sentence
					 * each */
	struct ab_result ab;		/* the A/B statistics; ab.tasks[i]
					 * is tasks[i] */
	struct report_costs costs_a, costs_b; /* every attempt of each side
						 * with a result */
};

/* Builds the comparison of side b against side a from the store; a side
 * is "RUN" or "RUN:VARIANT".  -ENOENT (with a message) when a run or a
 * variant does not exist.  The caller releases *out with
 * compare_report_release(), also after a failure. */
int compare_runs(struct store *s, const char *side_a, const char *side_b,
		 struct compare_report *out, struct errbuf *err);
void compare_report_release(struct compare_report *r);

/* The agent configurations of a run, in the order of its config (the
 * first is the control).  Empty for a run with one configuration. */
int compare_run_variants(struct store *s, const char *run_id,
			 struct strvec *out, struct errbuf *err);

/* The report for a person (caller frees). */
char *compare_report_text(const struct compare_report *r);
/* The report as JSON (docs/results.md, "arena compare --json"; caller
 * frees). */
char *compare_report_json(const struct compare_report *r);
/* The report as a self-contained HTML page (arena/report_html.h's
 * conventions; numbers tagged with pointers into compare_report_json's
 * JSON).  Caller frees. */
char *compare_report_html(const struct compare_report *r);

#endif /* ARENA_COMPARE_H */
