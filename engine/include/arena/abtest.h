/*
 * abtest.h - "is configuration B better than A?": the statistics of an A/B
 * comparison over many tasks and repeated agent attempts.
 * docs/statistics.md §7-§10 states the model, its assumptions and the
 * simulations that validate it; this header is the API.
 *
 * Input: one observation per attempt (task, arm, its verdict, score,
 * reward, log speedup and the timing standard error of that log speedup).
 * Output:
 *   - the effect of B against A on four metrics (log speedup, shown as a
 *     geometric-mean ratio; pass rate; score; reward), each the mean over
 *     tasks of the task's difference of attempt means, with a 95% interval
 *     from a cluster bootstrap over tasks (joined with Student's t
 *     interval), a p-value consistent with that interval, the share of
 *     bootstrap replicates favouring B and the minimal detectable effect
 *     (80% power);
 *   - per-task verdicts (win, tie, loss) whose false discovery rate across
 *     the tasks is controlled by Benjamini-Hochberg;
 *   - the variance components (timing, agent between attempts, task);
 *   - one headline sentence.
 * Everything is a deterministic function of the observations and the seed.
 */
#ifndef ARENA_ABTEST_H
#define ARENA_ABTEST_H

#include <stdbool.h>
#include <stdint.h>

#include "arena/result.h"
#include "arena/util.h"

struct cJSON;

#define AB_ALPHA 0.05		/* 95% intervals */
#define AB_FDR 0.05		/* false discovery rate of per-task verdicts */
#define AB_POWER 0.80		/* for minimal detectable effects */
#define AB_BOOTSTRAP_ITERS 4000
/* Below this many tasks a metric's interval is Student's t interval on
 * the task differences, not a bootstrap (a bootstrap of 2-4 values cannot
 * reach past their range). */
#define AB_MIN_BOOTSTRAP_TASKS 5
#define AB_MAX_TASKS 100000
#define AB_MAX_OBS 10000000

enum ab_arm { AB_A = 0, AB_B = 1 };

/* One attempt, as the statistics see it. */
struct ab_obs {
	int task;		/* index into the caller's task list */
	int arm;		/* AB_A or AB_B */
	bool correct;		/* result_correct() */
	double score;
	double reward;
	double log_speedup;	/* log(speedup_ratio) when correct and timed,
				 * else NAN */
	double log_se;		/* timing standard error of log_speedup, from
				 * its 95% interval; NAN when unknown */
	double noise_floor;	/* relative (0.01 = 1%); 0 when unknown */
};

/* Fills *o from a final result.  Returns false, leaving *o unspecified,
 * when the result carries no verdict (not_evaluated, infra_error): such
 * attempts say nothing about the agent and are left out. */
bool ab_obs_from_result(const struct task_result *r, int task, int arm,
			struct ab_obs *o);

enum ab_metric {
	AB_SPEEDUP = 0,		/* log speedup over correct, timed attempts */
	AB_PASS,		/* share of attempts correct */
	AB_SCORE,
	AB_REWARD,
	AB_NMETRICS
};

const char *ab_metric_name(enum ab_metric m);

/* The effect of B against A on one metric: B - A, in the metric's units
 * (log ratio for AB_SPEEDUP, a fraction for AB_PASS). */
struct ab_effect {
	bool defined;		/* at least two tasks entered */
	int ntasks;		/* tasks that entered */
	bool bootstrap;		/* interval from the bootstrap joined with
				 * t's (else t alone) */
	double point;		/* mean over tasks of the task differences */
	double lo, hi;		/* 1 - alpha interval */
	double se;		/* sd of the task differences / sqrt(ntasks) */
	double p_value;		/* two-sided, H0: no difference; p < alpha
				 * exactly when the interval excludes 0 */
	double prob_b_better;	/* share of bootstrap replicates above 0 */
	double mde;		/* minimal detectable |effect| at alpha with
				 * the configured power */
	double mean_a, mean_b;	/* each arm's mean over the same tasks */
};

enum ab_verdict {
	AB_UNTESTED = 0,	/* no test applies (e.g. wrong in both) */
	AB_TIE,			/* not a discovery at the FDR level */
	AB_WIN,			/* B better, a discovery */
	AB_LOSS,		/* B worse, a discovery */
};

const char *ab_verdict_name(enum ab_verdict v);

/* Where the per-task agent variance came from. */
enum ab_within_source {
	AB_WITHIN_NONE = 0,	/* not estimable: timing noise only */
	AB_WITHIN_REPEATS,	/* attempts repeated on the same task */
	AB_WITHIN_SPREAD,	/* one attempt per side: the spread of the
				 * task differences (an upper bound) */
};

const char *ab_within_source_name(enum ab_within_source s);

struct ab_task {
	bool common;		/* attempts with a verdict in both arms */
	int na, nb;		/* attempts with a verdict */
	int ca, cb;		/* of those, correct */
	int ta, tb;		/* of those, correct and timed */
	double log_ratio;	/* mean log speedup B - A; NAN unless ta, tb */
	double se;		/* its standard error (agent and timing) */
	double df;		/* degrees of freedom of that error */
	double noise_floor;	/* largest recorded, relative */
	double p_speed;		/* speedup test; NAN when it does not apply */
	double p_pass;		/* pass-rate test; NAN when it does not apply
				 * or cannot reach the FDR level */
	double p;		/* combined (Bonferroni over the two); NAN:
				 * untested */
	double q;		/* Benjamini-Hochberg adjusted p */
	enum ab_metric basis;	/* the test that decided: speedup or pass */
	enum ab_verdict verdict;
};

struct ab_options {
	double alpha;		/* interval level 1 - alpha */
	double fdr;		/* per-task false discovery rate */
	double power;		/* for minimal detectable effects */
	int iters;		/* bootstrap replicates */
	uint64_t seed;
	const char *label_a, *label_b;	/* names in the headline ("A") */
};

void ab_options_init(struct ab_options *o);

struct ab_result {
	int ntasks;		/* as given */
	struct ab_task *tasks;	/* ntasks entries */
	int ncommon;		/* tasks with attempts in both arms */
	int min_k, max_k;	/* attempts per task and arm, over common
				 * tasks */
	struct ab_effect eff[AB_NMETRICS];
	int wins, ties, losses, untested;
	/* Variance components of one attempt's log speedup. */
	double sd_timing;	/* root mean square timing standard error */
	double sd_within;	/* between attempts of one task and arm
				 * (agent and timing); NAN when unknown */
	double within_df;	/* its degrees of freedom (prior df of the
				 * moderated variances; may be INFINITY) */
	enum ab_within_source within_source;
	int within_tasks;	/* tasks whose repeats estimated it */
	double sd_task_effect;	/* spread of the true speedup effect across
				 * tasks (beyond within-task noise); NAN when
				 * not estimable */
	bool differs;		/* the speedup interval excludes 0 */
	double alpha, fdr, power;
	int iters;
	uint64_t seed;
	char *label_a, *label_b;
	char *headline;		/* one sentence */
	char *pass_line;	/* one sentence on the pass rate */
};

/* Analyses nobs observations of ntasks tasks.  Returns 0, or -EINVAL with
 * a message when an observation names a task or arm out of range or the
 * sizes exceed AB_MAX_TASKS / AB_MAX_OBS.  The caller releases *out with
 * ab_result_release(), also after a failure.  obs may be NULL when nobs
 * is 0 (everything is then undefined, and the headline says so). */
int ab_analyze(const struct ab_obs *obs, int nobs, int ntasks,
	       const struct ab_options *opt, struct ab_result *out,
	       struct errbuf *err);
void ab_result_release(struct ab_result *r);

/* The comparison as JSON (docs/results.md "A/B comparison"): options,
 * effects, variance components, headline, and one entry per common task
 * (task_ids[i] names task i).  Caller owns the returned object. */
struct cJSON *ab_result_json(const struct ab_result *r,
			     const char *const *task_ids);

/* A text block for a person: headline, pass-rate line, a table of the
 * four effects with intervals, p-values and minimal detectable effects,
 * the variance components, and the per-task discoveries (when
 * list_discoveries; task_ids names them). */
void ab_result_text(struct strbuf *sb, const struct ab_result *r,
		    const char *const *task_ids, bool list_discoveries);

#endif /* ARENA_ABTEST_H */
