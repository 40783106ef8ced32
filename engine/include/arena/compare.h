/*
 * compare.h - a paired comparison of two runs (DESIGN.md §10): what
 * `compare/<A>/<B>/report.txt` shows and what `arena compare A B` prints.
 *
 * Tasks are paired by task id.  For every task present in both runs the
 * comparison reports the score delta, the speedup ratio B/A and a verdict
 * (B wins, ties or loses).  Over the tasks that are correct in both runs
 * it reports the geometric mean of the ratios with a percentile bootstrap
 * interval over tasks (deterministic: the seed derives from the two run
 * ids).  It also says whether the two runs can be compared at all: same
 * task set, same device, same evaluator version.
 *
 * Everything comes from the results stored with the attempts (the last
 * final evaluation of each); nothing is evaluated here.  A task's side
 * aggregates all its attempts in the run (repeats and, in a run with
 * several agent configurations, every configuration).
 */
#ifndef ARENA_COMPARE_H
#define ARENA_COMPARE_H

#include <stdbool.h>
#include "arena/stats.h"
#include "arena/store.h"
#include "arena/util.h"

#define COMPARE_BOOTSTRAP_ITERS 2000
#define COMPARE_ALPHA 0.05

/* One run's view of one task, aggregated over its attempts (repeats). */
struct compare_side {
	bool present;		/* the run has this task */
	int attempts;		/* attempts of the task in the run */
	int evaluated;		/* attempts with a stored result */
	bool compiled;		/* every evaluated attempt compiled */
	bool correct;		/* every evaluated attempt is correct */
	double score;		/* mean over evaluated attempts */
	double speedup;		/* geometric mean over evaluated attempts */
	double ci_lo, ci_hi;	/* envelope of the attempts' intervals */
	double noise_floor;	/* largest recorded, relative (0.01 = 1%) */
	char *status;		/* status of the first evaluated attempt */
};

enum compare_verdict {
	CMP_PENDING = 0,	/* a side has no result yet: not counted */
	CMP_WIN,		/* B better than A beyond both intervals */
	CMP_TIE,
	CMP_LOSS,
	CMP_ONLY_A,		/* task only in run A: not counted */
	CMP_ONLY_B,		/* task only in run B: not counted */
};

const char *compare_verdict_name(enum compare_verdict v);

struct compare_task {
	char *task_id;
	struct compare_side a, b;
	double ratio;		/* b.speedup / a.speedup when both correct,
				 * else 0 */
	enum compare_verdict verdict;
};

struct compare_report {
	char *run_a, *run_b;
	char *device_a, *device_b;	/* as configured in each run */
	int ntasks;			/* union of both runs' tasks, sorted */
	struct compare_task *tasks;
	int ncommon;			/* tasks in both runs */
	int npaired;			/* common tasks correct in both */
	struct interval ratio;		/* geomean of b/a over paired tasks;
					 * all 0 when npaired == 0 */
	double mean_score_a, mean_score_b;	/* over evaluated common
						 * tasks */
	int fast1_a, fast1_b;		/* common tasks correct with speedup
					 * > 1 */
	int wins, ties, losses, pending;
	bool comparable;
	struct strvec reasons;		/* why not comparable, one sentence
					 * each */
};

/* Builds the comparison of run_b against run_a from the store.  -ENOENT
 * (with a message) when a run does not exist.  The caller releases *out
 * with compare_report_release(), also after a failure. */
int compare_runs(struct store *s, const char *run_a, const char *run_b,
		 struct compare_report *out, struct errbuf *err);
void compare_report_release(struct compare_report *r);

/* The report for a person (caller frees). */
char *compare_report_text(const struct compare_report *r);

#endif /* ARENA_COMPARE_H */
