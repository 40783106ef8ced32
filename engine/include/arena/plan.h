/*
 * plan.h - power before the experiment (`arena plan`): how many tasks and
 * repeats an A/B comparison needs to detect a given effect on the
 * geometric-mean speedup and on the pass rate with a given power, from
 * the variance components of docs/statistics.md §9 (timing noise of one
 * attempt, agent variance between attempts, spread of the effect across
 * tasks, pass probabilities).  The components come from measured runs
 * (an A/A `noop` run for timing noise; past runs, ideally with repeats,
 * for the agent; past runs with two agent configurations for the spread
 * of effects) or, where none is given, from stated assumptions.
 *
 * The model is the one abtest.h estimates with: the effect is the mean
 * over tasks of per-task differences, each task's difference has variance
 *   speedup:  tau^2 + sigma_w^2 (1/K_A + 1/K_B),  K ~ Binomial(k, p_t) | K >= 1
 *             (only tasks with a correct attempt on both sides count)
 *   pass:     tau_p^2 + 2 E[p_t (1 - p_t)] / k
 * and the test is Student's t on the tasks at level alpha, two-sided.
 */
#ifndef ARENA_PLAN_H
#define ARENA_PLAN_H

#include <stdbool.h>

#include "arena/report.h"
#include "arena/util.h"

#define PLAN_MAX_REPEATS 16
#define PLAN_MAX_TASKS 1000000	/* "tasks needed" beyond this: unreachable */

/* Defaults used when nothing measured is given (docs/statistics.md §9
 * says where each comes from; none is a measurement of your agent). */
#define PLAN_DEFAULT_SD_TIMING 0.01	/* the A/A spread of short kernels */
#define PLAN_DEFAULT_SD_AGENT 0.25
#define PLAN_DEFAULT_SD_EFFECT 0.05
#define PLAN_DEFAULT_PASS_RATE 0.5
#define PLAN_DEFAULT_SD_PASS_EFFECT 0.05

/* One variance component and where it came from. */
struct plan_component {
	double value;
	bool measured;
	char *source;		/* one phrase: "run_x: 40 noop attempts" or
				 * "assumed: ..." (owned) */
};

struct plan_inputs {
	int ntasks;			/* the selection */
	double effect_ratio;		/* geomean speedup to detect, != 1 */
	double pass_effect;		/* pass-rate difference, a fraction */
	double alpha, power;
	int repeats[PLAN_MAX_REPEATS];
	int nrepeats;
	struct plan_component sd_timing;	/* one attempt, log speedup */
	struct plan_component sd_agent;		/* between attempts, beyond
						 * timing */
	struct plan_component sd_effect;	/* true effect across tasks */
	struct plan_component pass_rate;	/* mean pass probability */
	struct plan_component pass_within;	/* E[p_t (1 - p_t)] */
	struct plan_component sd_pass_effect;	/* pass effect across tasks */
	double *pass_probs;		/* per-task pass probabilities seen in
					 * past runs (owned), or NULL: every
					 * task at pass_rate */
	int npass_probs;
};

/* Fills every field with the defaults above (sources say "assumed"),
 * repeats 1, 2, 3, 5, effect 1.05x, pass effect 10 points, alpha 0.05,
 * power 0.8.  Release with plan_inputs_release. */
void plan_inputs_init(struct plan_inputs *in, int ntasks);
void plan_inputs_release(struct plan_inputs *in);

/* Replaces a component with a value given by the user. */
void plan_set(struct plan_component *c, double value, const char *source);

/* Measures the timing noise from an A/A run's rows (a `noop` agent: the
 * candidate is the baseline, so every log speedup is noise): the larger
 * of the mean squared log speedup and the mean squared timing error of
 * the attempts' intervals.  -ENOENT with a message when the run has no
 * correct, timed attempt. */
int plan_measure_noise(struct plan_inputs *in, const char *run_id,
		       const char *agent, const struct report_row *rows,
		       int n, struct errbuf *err);

/* Accumulates past runs' rows; call plan_past_finish once after the last
 * to set sd_agent (from tasks attempted several times by one
 * configuration), the pass probabilities and within-task pass variance,
 * and (from runs with several configurations) the spread of effects. */
struct plan_past {
	double ss, df;			/* log speedup within (task, config) */
	double pass_within_sum;		/* unbiased p(1-p) per cell, summed */
	int pass_within_cells;
	double pass_sum;
	int pass_cells;
	double *probs;
	int nprobs, cap;
	double tau2_sum, taup2_sum;	/* effect spreads from A/B runs */
	int ntau;
	struct strvec runs;
};
void plan_past_init(struct plan_past *p);
void plan_past_add(struct plan_past *p, const char *run_id,
		   const struct report_row *rows, int n);
void plan_past_finish(struct plan_past *p, struct plan_inputs *in);
void plan_past_release(struct plan_past *p);

struct plan_row {
	int repeats;
	long tasks_speed;	/* tasks needed for the speedup effect; -1:
				 * more than PLAN_MAX_TASKS */
	long tasks_pass;	/* for the pass-rate effect */
	double eligible;	/* share of tasks with a correct attempt on
				 * both sides (they carry the speedup) */
	double mde_ratio;	/* detectable speedup with in->ntasks tasks;
				 * NAN when fewer than 2 would count */
	double mde_pass;	/* detectable pass-rate difference; NAN when
				 * above 100 points (none is) */
	double power_speed;	/* power for the effects with in->ntasks */
	double power_pass;
};

/* One row per in->repeats[i].  -EINVAL with a message when an input is
 * out of range (effect 1.0, power outside (0, 1), ...). */
int plan_compute(const struct plan_inputs *in, struct plan_row *rows,
		 struct errbuf *err);

/* The plan for a person, and as JSON (caller frees).  rows as computed. */
char *plan_text(const struct plan_inputs *in, const struct plan_row *rows);
char *plan_json(const struct plan_inputs *in, const struct plan_row *rows);

#endif /* ARENA_PLAN_H */
