/*
 * test_abtest.c - the A/B statistics (engine/src/abtest.c) and the
 * distributions under them (engine/src/stats_dist.c).
 *
 * The distribution functions are checked against values computed with
 * mpmath at 30 digits.  The A/B statistics are validated by simulation
 * (docs/statistics.md §10): synthetic experiments with known effects and
 * known variance components (task, agent between attempts, timing within
 * an attempt) are fed to ab_analyze, and the tests count how often the
 * intervals contain the true effect, how often an A/A reports a
 * difference, and the false discovery proportion of the per-task verdicts.
 *
 * Every simulation uses fixed seeds, so a test is deterministic: a failure
 * is a change in behaviour, never bad luck.  The bands are binomial: with
 * R simulated runs a rate with true value 0.95 has standard error
 * sqrt(0.95 * 0.05 / R); each band is at least 3.4 of those wide on
 * either side, so an estimator that is right passes for any seed with
 * probability > 0.999, and one that is off by a few points fails.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "arena/abtest.h"
#include "arena/plan.h"
#include "arena/stats.h"
#include "arena/stats_dist.h"

/* ---- distributions --------------------------------------------------- */

static void normal_quantile_matches_tables(void **state)
{
	(void)state;
	assert_true(fabs(stats_norm_quantile(0.975) - 1.959963984540054) <
		    1e-12);
	assert_true(fabs(stats_norm_quantile(0.8) - 0.8416212335729143) <
		    1e-12);
	assert_true(fabs(stats_norm_quantile(1e-10) + 6.361340902404056) <
		    1e-9);
	assert_true(fabs(stats_norm_quantile(1 - 1e-10) - 6.361340902404056) <
		    1e-5);
	assert_true(stats_norm_quantile(0.5) == 0);
	assert_true(isinf(stats_norm_quantile(0)));
	assert_true(isnan(stats_norm_quantile(1.5)));
	for (double p = 0.001; p < 1; p += 0.0137)
		assert_true(fabs(stats_norm_cdf(stats_norm_quantile(p)) - p) <
			    1e-13);
	assert_true(fabs(stats_norm_cdf(-8) - 6.220960574271784e-16) < 1e-25);
}

static void t_distribution_matches_mpmath(void **state)
{
	(void)state;
	assert_true(fabs(stats_t_cdf(-2, 5) - 0.05096973941492918) < 1e-13);
	assert_true(fabs(stats_t_cdf(-10, 3) - 0.001064199529207075) < 1e-14);
	assert_true(fabs(stats_t_cdf(1.5, 1000) - 0.9330349805889584) < 1e-12);
	assert_true(fabs(stats_t_cdf(-40, 2) - 0.0003122073360923703) <
		    1e-15);
	assert_true(fabs(stats_beta_inc(2.5, 3.5, 0.3) - 0.2967529892956664) <
		    1e-13);
	/* Textbook quantiles. */
	assert_true(fabs(stats_t_quantile(0.975, 1) - 12.70620473617470) <
		    1e-9);
	assert_true(fabs(stats_t_quantile(0.975, 4) - 2.776445105197793) <
		    1e-10);
	assert_true(fabs(stats_t_quantile(0.975, 9) - 2.262157162798205) <
		    1e-10);
	assert_true(fabs(stats_t_quantile(0.025, 30) + 2.042272456301237) <
		    1e-10);
	assert_true(fabs(stats_t_quantile(0.975, INFINITY) - 1.959963984540054)
		    < 1e-12);
	assert_true(isnan(stats_t_cdf(1, 0)));
}

static void digamma_and_trigamma_match_closed_forms(void **state)
{
	const double euler = 0.5772156649015329;

	(void)state;
	assert_true(fabs(stats_digamma(1) + euler) < 1e-12);
	assert_true(fabs(stats_digamma(0.5) + euler + 2 * log(2)) < 1e-12);
	assert_true(fabs(stats_trigamma(1) - M_PI * M_PI / 6) < 1e-12);
	assert_true(fabs(stats_trigamma(0.5) - M_PI * M_PI / 2) < 1e-12);
	assert_true(fabs(stats_trigamma_inverse(0.37) - 3.172570869858990) <
		    1e-9);
	assert_true(fabs(stats_trigamma(stats_trigamma_inverse(50)) - 50) <
		    1e-9);
}

static void fisher_exact_matches_the_tea_tasting_example(void **state)
{
	(void)state;
	/* Fisher's lady tasting tea: 3 of 4 right, two-sided. */
	assert_true(fabs(stats_fisher_exact(3, 1, 1, 3) - 0.4857142857142857)
		    < 1e-12);
	assert_true(fabs(stats_fisher_exact(4, 0, 0, 4) - 2.0 / 70) < 1e-12);
	assert_true(stats_fisher_exact(2, 2, 2, 2) == 1);
	assert_true(stats_fisher_exact(3, 0, 3, 0) == 1);
	/* 3 attempts against 3 can never reach 5%; 5 against 5 can. */
	assert_true(fabs(stats_fisher_min_p(3, 3) - 0.1) < 1e-12);
	assert_true(fabs(stats_fisher_min_p(5, 5) - 2.0 / 252) < 1e-12);
	assert_true(stats_fisher_min_p(1, 1) == 1);
}

static void bh_adjustment_of_a_known_list(void **state)
{
	double p[] = { 0.01, 0.04, 0.03, 0.005, NAN };
	double q[5];

	(void)state;
	stats_bh_adjust(p, 5, q);
	/* ranks: .005 (1), .01 (2), .03 (3), .04 (4), NaN as 1 (5) */
	assert_true(fabs(q[3] - 0.025) < 1e-15);
	assert_true(fabs(q[0] - 0.025) < 1e-15);
	assert_true(fabs(q[2] - 0.05) < 1e-15);
	assert_true(fabs(q[1] - 0.05) < 1e-15);
	assert_true(q[4] == 1);
}

/* ---- the simulator --------------------------------------------------- */

/* One synthetic experiment: every task has a base log speedup, a true
 * effect of B, a per-task agent sd, and pass probabilities; each attempt
 * draws its agent deviation and its timing error, and reports the timing
 * error's sd through its interval (log_se). */
struct sim {
	int ntasks, k;			/* tasks; attempts per arm and task */
	double effect;			/* mean true log-speedup effect */
	double sd_effect;		/* its spread across tasks */
	double sd_base;			/* spread of the tasks' log speedups */
	double sd_agent;		/* between attempts (median over tasks) */
	double sd_agent_spread;		/* log-sd of the per-task agent sd */
	double sd_timing;		/* each attempt's timing error */
	double pass_lo, pass_hi;	/* A's pass probability ~ U(lo, hi) */
	double pass_effect;		/* B's is A's + this */
	double null_share;		/* tasks whose effect is exactly 0 (the
					 * rest get `effect` + spread) */
	double noise_floor;
	int iters;			/* bootstrap replicates; 0: default */
};

struct sim_out {
	struct ab_obs *obs;
	int n;
	bool *is_null;			/* per task: true effect 0 */
};

static void sim_draw(const struct sim *s, struct rng *g, struct sim_out *o)
{
	o->obs = xcalloc((size_t)s->ntasks * s->k * 2, sizeof(*o->obs));
	o->is_null = xcalloc((size_t)s->ntasks, sizeof(bool));
	o->n = 0;
	for (int t = 0; t < s->ntasks; t++) {
		double base = s->sd_base * rng_normal(g);
		bool null = rng_uniform(g) < s->null_share;
		double eff = null ? 0 : s->effect + s->sd_effect * rng_normal(g);
		double sda = s->sd_agent * exp(s->sd_agent_spread *
					       rng_normal(g));
		double pa = s->pass_lo + (s->pass_hi - s->pass_lo) *
					 rng_uniform(g);

		o->is_null[t] = null;
		for (int arm = 0; arm < 2; arm++) {
			double p = arm ? pa + s->pass_effect : pa;

			for (int i = 0; i < s->k; i++) {
				struct ab_obs *ob = &o->obs[o->n++];
				double y = base + (arm ? eff : 0) +
					   sda * rng_normal(g) +
					   s->sd_timing * rng_normal(g);
				double sp = exp(y);

				ob->task = t;
				ob->arm = arm;
				ob->correct = rng_uniform(g) < p;
				ob->noise_floor = s->noise_floor;
				ob->log_speedup = ob->correct ? y : NAN;
				ob->log_se = ob->correct ? s->sd_timing : NAN;
				ob->score = ob->correct ? 120 + 100 * sp : 20;
				ob->reward = ob->correct
						     ? fmax(-0.5, fmin(1, log2(sp) / 3))
						     : -0.5;
			}
		}
	}
}

static void sim_free(struct sim_out *o)
{
	free(o->obs);
	free(o->is_null);
}

static void sim_default(struct sim *s)
{
	memset(s, 0, sizeof(*s));
	s->ntasks = 40;
	s->k = 3;
	s->effect = 0.10;
	s->sd_effect = 0.05;
	s->sd_base = 0.5;
	s->sd_agent = 0.20;
	s->sd_timing = 0.01;
	s->pass_lo = 0.3;
	s->pass_hi = 0.8;
	s->pass_effect = 0.1;
	s->noise_floor = 0.01;
	/* A quarter of the shipped replicates keeps the simulations fast;
	 * intervals_cover_true_effects_95_percent_of_the_time runs the
	 * shipped number. */
	s->iters = 1000;
}

/* The expected score difference B - A of the simulator (the score is
 * 120 + 100 x speedup when correct, 20 otherwise; speedups are lognormal
 * and independent of correctness). */
static double sim_true_score_effect(const struct sim *s)
{
	double pa = (s->pass_lo + s->pass_hi) / 2, pb = pa + s->pass_effect;
	double v = s->sd_base * s->sd_base + s->sd_timing * s->sd_timing;
	/* E[sda^2] for sda = sd_agent * exp(spread * Z). */
	double va = s->sd_agent * s->sd_agent *
		    exp(2 * s->sd_agent_spread * s->sd_agent_spread);
	double ea = exp((v + va) / 2);
	double eb = ea * exp(s->effect + s->sd_effect * s->sd_effect / 2);

	return 100 * (pb - pa) + 100 * (pb * eb - pa * ea);
}

struct coverage {
	int runs;
	int covered[AB_NMETRICS];
	int defined[AB_NMETRICS];
	int differs;		/* speedup interval excludes 0 */
	int any_discovery;	/* some per-task win or loss */
	int p_consistent;	/* p < alpha iff the interval excludes 0 */
	double fdp_sum;		/* false discovery proportions */
	double power_sum;	/* share of non-null tasks discovered */
	int power_runs;
};

static void simulate(const struct sim *s, int runs, uint64_t seed,
		     struct coverage *c)
{
	struct rng g;
	double truth[AB_NMETRICS];

	memset(c, 0, sizeof(*c));
	truth[AB_SPEEDUP] = (1 - s->null_share) * s->effect;
	truth[AB_PASS] = s->pass_effect;
	truth[AB_SCORE] = sim_true_score_effect(s);
	truth[AB_REWARD] = NAN;	/* not in closed form: not checked */
	rng_seed(&g, seed);
	for (int r = 0; r < runs; r++) {
		struct sim_out o;
		struct ab_result res;
		struct ab_options opt;
		struct errbuf err;
		int fd = 0, disc = 0, nonnull = 0, found = 0;

		sim_draw(s, &g, &o);
		ab_options_init(&opt);
		if (s->iters)
			opt.iters = s->iters;
		opt.seed = seed * 1000003 + (uint64_t)r;
		errbuf_init(&err);
		assert_int_equal(ab_analyze(o.obs, o.n, s->ntasks, &opt, &res,
					    &err), 0);
		c->runs++;
		for (int m = 0; m < AB_NMETRICS; m++) {
			const struct ab_effect *e = &res.eff[m];

			if (!e->defined)
				continue;
			c->defined[m]++;
			c->covered[m] += e->lo <= truth[m] && truth[m] <= e->hi;
			bool excl = e->lo > 0 || e->hi < 0;
			bool sig = e->p_value < opt.alpha;
			/* The p-value is computed on the same rule; allow
			 * disagreement only at the bootstrap's resolution. */
			c->p_consistent += excl == sig ||
					   fabs(e->p_value - opt.alpha) < 0.003;
		}
		c->differs += res.differs;
		c->any_discovery += res.wins + res.losses > 0;
		for (int t = 0; t < s->ntasks; t++) {
			enum ab_verdict v = res.tasks[t].verdict;
			bool d = v == AB_WIN || v == AB_LOSS;

			disc += d;
			fd += d && o.is_null[t];
			nonnull += !o.is_null[t] && res.tasks[t].common;
			found += d && !o.is_null[t];
		}
		c->fdp_sum += disc ? (double)fd / disc : 0;
		if (nonnull) {
			c->power_sum += (double)found / nonnull;
			c->power_runs++;
		}
		ab_result_release(&res);
		sim_free(&o);
	}
}

/* Lower and upper edges of a band of `sds` binomial standard errors
 * around p over n trials. */
static double band(double p, int n, double sds)
{
	return sds * sqrt(p * (1 - p) / n);
}

/* ---- validation by simulation ---------------------------------------- */

#define RUNS 600

static void assert_coverage(const struct coverage *c, enum ab_metric m)
{
	double rate = (double)c->covered[m] / c->defined[m];
	double b = band(0.95, c->defined[m], 3.4);

	print_message("  %s: %d of %d intervals cover the truth (%.3f; band "
		      "%.3f..%.3f)\n", ab_metric_name(m), c->covered[m],
		      c->defined[m], rate, 0.95 - b, 0.95 + b);
	assert_true(c->defined[m] >= RUNS * 9 / 10);
	assert_true(rate >= 0.95 - b);
	assert_true(rate <= 0.95 + b);
}

static void intervals_cover_true_effects_95_percent_of_the_time(void **state)
{
	struct sim s;
	struct coverage c;

	(void)state;
	sim_default(&s);
	s.iters = 0;
	simulate(&s, RUNS, 11, &c);
	assert_coverage(&c, AB_SPEEDUP);
	assert_coverage(&c, AB_PASS);
	assert_coverage(&c, AB_SCORE);
	assert_true(c.p_consistent == c.defined[AB_SPEEDUP] +
				      c.defined[AB_PASS] + c.defined[AB_SCORE] +
				      c.defined[AB_REWARD]);
}

static void coverage_holds_with_one_attempt_and_few_tasks(void **state)
{
	struct sim s;
	struct coverage c;

	(void)state;
	sim_default(&s);
	s.ntasks = 15;
	s.k = 1;
	s.pass_lo = 0.7;
	s.pass_hi = 0.8;
	s.sd_agent_spread = 0.5;
	simulate(&s, RUNS, 12, &c);
	assert_coverage(&c, AB_SPEEDUP);
	assert_coverage(&c, AB_PASS);
}

static void coverage_holds_with_heterogeneous_agent_variance(void **state)
{
	struct sim s;
	struct coverage c;

	(void)state;
	sim_default(&s);
	s.ntasks = 80;
	s.k = 2;
	s.sd_agent_spread = 0.7;
	s.sd_effect = 0.15;
	simulate(&s, RUNS, 13, &c);
	assert_coverage(&c, AB_SPEEDUP);
	assert_coverage(&c, AB_PASS);
}

static void aa_reports_no_difference_in_95_percent_of_runs(void **state)
{
	struct sim s;
	struct coverage c;
	double none, quiet;

	(void)state;
	sim_default(&s);
	s.effect = 0;
	s.sd_effect = 0;
	s.pass_effect = 0;
	simulate(&s, RUNS, 21, &c);
	none = 1 - (double)c.differs / c.runs;
	quiet = 1 - (double)c.any_discovery / c.runs;
	print_message("  A/A: %d of %d runs report no speedup difference "
		      "(%.3f); %d of %d have no per-task discovery (%.3f)\n",
		      c.runs - c.differs, c.runs, none,
		      c.runs - c.any_discovery, c.runs, quiet);
	/* A 5% test says "no difference" in 95% of A/A runs on average;
	 * the band allows for the simulation's own sampling error. */
	assert_true(none >= 0.95 - band(0.95, c.runs, 3.4));
	/* Under the complete null the FDR is the chance of any discovery. */
	assert_true(quiet >= 0.95 - band(0.95, c.runs, 3.4));
}

static void aa_with_one_attempt_reports_no_difference(void **state)
{
	struct sim s;
	struct coverage c;

	(void)state;
	sim_default(&s);
	s.k = 1;
	s.effect = 0;
	s.sd_effect = 0;
	s.pass_effect = 0;
	s.sd_agent = 0.3;
	simulate(&s, RUNS, 22, &c);
	print_message("  A/A, one attempt: %d of %d runs report no "
		      "difference, %d have no per-task discovery\n",
		      c.runs - c.differs, c.runs, c.runs - c.any_discovery);
	assert_true(1 - (double)c.differs / c.runs >=
		    0.95 - band(0.95, c.runs, 3.4));
	assert_true(1 - (double)c.any_discovery / c.runs >=
		    0.95 - band(0.95, c.runs, 3.4));
}

/* FDR: 60% of tasks have no effect, 40% a large one; agent variance
 * differs between tasks (the moderated variances must cope).  The mean
 * false discovery proportion must stay at or below 5% (plus the
 * simulation's error: a proportion in [0, 1] has sd <= 0.5, so the mean of
 * RUNS has sd <= 0.5 / sqrt(RUNS) ~ 0.02, and much less in practice), and
 * the verdicts must still find most real effects: a test that never
 * rejects would pass the FDR check alone. */
static void per_task_verdicts_control_the_false_discovery_rate(void **state)
{
	struct sim s;
	struct coverage c;
	double fdr, power;

	(void)state;
	sim_default(&s);
	s.k = 3;
	s.effect = 0.6;
	s.sd_effect = 0.1;
	s.null_share = 0.6;
	s.sd_agent = 0.15;
	s.sd_agent_spread = 0.5;
	s.pass_lo = 0.9;
	s.pass_hi = 1.0;
	s.pass_effect = 0;
	simulate(&s, RUNS, 31, &c);
	fdr = c.fdp_sum / c.runs;
	power = c.power_sum / c.power_runs;
	print_message("  FDR %.4f (nominal 0.05), power %.3f\n", fdr, power);
	assert_true(fdr <= 0.05 + 0.01);
	assert_true(power > 0.5);
}

/* With one attempt per side the agent variance of a task is not
 * estimable; the spread of the task differences stands in for it, which
 * also holds the real effects, so the verdicts are conservative: they
 * find only tasks that stand out from all the others (here 10% of tasks
 * with a 4.5x effect).  The FDR must hold and some effects be found. */
static void per_task_fdr_holds_with_one_attempt_per_side(void **state)
{
	struct sim s;
	struct coverage c;
	double fdr, power;

	(void)state;
	sim_default(&s);
	s.k = 1;
	s.effect = 1.5;
	s.sd_effect = 0.1;
	s.null_share = 0.9;
	s.sd_agent = 0.15;
	s.pass_lo = 0.9;
	s.pass_hi = 1.0;
	s.pass_effect = 0;
	simulate(&s, RUNS, 32, &c);
	fdr = c.fdp_sum / c.runs;
	power = c.power_sum / c.power_runs;
	print_message("  one attempt: FDR %.4f, power %.3f\n", fdr, power);
	assert_true(fdr <= 0.05 + 0.01);
	assert_true(power > 0.1);
}

/* The design choice of docs/statistics.md §8: resampling attempts inside
 * the resampled tasks, and redrawing each attempt's timing error from its
 * interval, counts agent and timing variance twice.  On the same data, in
 * a scenario where the agent dominates (3 attempts, no effect spread),
 * the two-stage interval is about sqrt(1 + (k-1)/k) = 1.29 times as wide
 * as the cluster bootstrap's and covers more than it should. */
static void two_stage_resampling_would_overcover(void **state)
{
	struct sim s;
	struct rng g, b;
	int covered = 0, covered_cluster = 0;
	const int runs = 200, iters = 1000;
	double *rep = xcalloc(iters, sizeof(double));
	double wsum = 0, wsum_cluster = 0;

	(void)state;
	sim_default(&s);
	s.sd_effect = 0;
	s.sd_agent = 0.3;
	s.pass_lo = s.pass_hi = 1;
	s.pass_effect = 0;
	rng_seed(&g, 41);
	rng_seed(&b, 42);
	for (int r = 0; r < runs; r++) {
		struct sim_out o;
		struct ab_result res;
		int n = s.ntasks, k = s.k;
		double lo, hi;

		sim_draw(&s, &g, &o);
		assert_int_equal(ab_analyze(o.obs, o.n, n, NULL, &res, NULL),
				 0);
		wsum_cluster += res.eff[AB_SPEEDUP].hi - res.eff[AB_SPEEDUP].lo;
		covered_cluster += res.eff[AB_SPEEDUP].lo <= s.effect &&
				   s.effect <= res.eff[AB_SPEEDUP].hi;
		ab_result_release(&res);
		/* obs are laid out task by task, A's k then B's k. */
		for (int it = 0; it < iters; it++) {
			double sum = 0;

			for (int i = 0; i < n; i++) {
				int t = (int)rng_range(&b, 0, n - 1);
				double m[2] = { 0, 0 };

				for (int arm = 0; arm < 2; arm++)
					for (int j = 0; j < k; j++) {
						const struct ab_obs *ob =
							&o.obs[(t * 2 + arm) * k +
							       rng_range(&b, 0, k - 1)];
						m[arm] += ob->log_speedup +
							  ob->log_se *
								  rng_normal(&b);
					}
				sum += (m[1] - m[0]) / k;
			}
			rep[it] = sum / n;
		}
		stats_sort(rep, iters);
		lo = stats_quantile_sorted(rep, iters, 0.025);
		hi = stats_quantile_sorted(rep, iters, 0.975);
		wsum += hi - lo;
		covered += lo <= s.effect && s.effect <= hi;
		sim_free(&o);
	}
	free(rep);
	print_message("  two-stage bootstrap with timing draws: %d of %d "
		      "cover, mean width %.4f; cluster bootstrap: %d of %d, "
		      "width %.4f (ratio %.3f)\n", covered, runs, wsum / runs,
		      covered_cluster, runs, wsum_cluster / runs,
		      wsum / wsum_cluster);
	assert_true(wsum / wsum_cluster > 1.2);
	assert_true(covered >= covered_cluster);
}

/* `arena plan` and the comparison agree: plan the tasks needed for a 1.10x
 * effect with 2 repeats, then simulate experiments of that size with the
 * same components; the share whose interval excludes 1 is the planned
 * power (80%), within the simulation's binomial band. */
static void plan_power_matches_simulated_experiments(void **state)
{
	struct plan_inputs in;
	struct plan_row row;
	struct sim s;
	struct coverage c;
	double rate;

	(void)state;
	plan_inputs_init(&in, 100);
	in.effect_ratio = 1.10;
	in.nrepeats = 1;
	in.repeats[0] = 2;
	plan_set(&in.pass_rate, 1, "test");
	plan_set(&in.pass_within, 0, "test");
	plan_set(&in.sd_timing, 0.01, "test");
	plan_set(&in.sd_agent, 0.2, "test");
	plan_set(&in.sd_effect, 0.05, "test");
	assert_int_equal(plan_compute(&in, &row, NULL), 0);
	plan_inputs_release(&in);

	sim_default(&s);
	s.ntasks = (int)row.tasks_speed;
	s.k = 2;
	s.effect = log(1.10);
	s.sd_effect = 0.05;
	s.sd_agent = 0.2;
	s.pass_lo = s.pass_hi = 1;
	s.pass_effect = 0;
	simulate(&s, 400, 51, &c);
	rate = (double)c.differs / c.runs;
	print_message("  plan: %ld tasks for 1.10x at 2 repeats; simulated "
		      "power %.3f (planned 0.80)\n", row.tasks_speed, rate);
	assert_true(fabs(rate - 0.8) <= band(0.8, c.runs, 3.4));
}

/* ---- behaviour ------------------------------------------------------- */

static void analysis_is_deterministic_in_its_seed(void **state)
{
	struct sim s;
	struct sim_out o;
	struct rng g;
	struct ab_result r1, r2, r3;
	struct ab_options opt;

	(void)state;
	sim_default(&s);
	rng_seed(&g, 5);
	sim_draw(&s, &g, &o);
	ab_options_init(&opt);
	opt.seed = 77;
	assert_int_equal(ab_analyze(o.obs, o.n, s.ntasks, &opt, &r1, NULL), 0);
	assert_int_equal(ab_analyze(o.obs, o.n, s.ntasks, &opt, &r2, NULL), 0);
	opt.seed = 78;
	assert_int_equal(ab_analyze(o.obs, o.n, s.ntasks, &opt, &r3, NULL), 0);
	for (int m = 0; m < AB_NMETRICS; m++) {
		assert_true(r1.eff[m].lo == r2.eff[m].lo);
		assert_true(r1.eff[m].hi == r2.eff[m].hi);
		assert_true(r1.eff[m].point == r3.eff[m].point);
	}
	assert_string_equal(r1.headline, r2.headline);
	/* Another seed, other replicates (the intervals' ends may both be
	 * t's, but the shares of replicates differ). */
	int differ = 0;
	for (int m = 0; m < AB_NMETRICS; m++)
		differ += r1.eff[m].prob_b_better != r3.eff[m].prob_b_better;
	assert_true(differ > 0);
	ab_result_release(&r1);
	ab_result_release(&r2);
	ab_result_release(&r3);
	sim_free(&o);
}

static void headline_states_ratio_interval_and_probability(void **state)
{
	struct sim s;
	struct sim_out o;
	struct rng g;
	struct ab_result r;
	struct ab_options opt;

	(void)state;
	sim_default(&s);
	s.ntasks = 120;
	s.effect = log(1.18);
	rng_seed(&g, 6);
	sim_draw(&s, &g, &o);
	ab_options_init(&opt);
	opt.label_a = "plain";
	opt.label_b = "with_tool";
	assert_int_equal(ab_analyze(o.obs, o.n, s.ntasks, &opt, &r, NULL), 0);
	print_message("  %s\n  %s\n", r.headline, r.pass_line);
	assert_true(r.differs);
	assert_non_null(strstr(r.headline, "with_tool is faster than plain: "));
	assert_non_null(strstr(r.headline, "in geomean speedup over "));
	assert_non_null(strstr(r.headline, " tasks x 3 attempts (95% interval; "
				       "p"));
	assert_non_null(strstr(r.headline, "probability"));
	assert_non_null(strstr(r.pass_line, "points ["));
	ab_result_release(&r);
	sim_free(&o);

	/* No effect: the headline says so and gives the detectable one. */
	s.effect = 0;
	s.sd_effect = 0;
	rng_seed(&g, 7);
	sim_draw(&s, &g, &o);
	assert_int_equal(ab_analyze(o.obs, o.n, s.ntasks, &opt, &r, NULL), 0);
	print_message("  %s\n", r.headline);
	if (!r.differs) {
		assert_non_null(strstr(r.headline, "No speedup difference"));
		assert_non_null(strstr(r.headline, "80% power"));
	}
	ab_result_release(&r);
	sim_free(&o);
}

static void minimal_detectable_effect_shrinks_with_tasks(void **state)
{
	struct sim s;
	struct sim_out o;
	struct rng g;
	struct ab_result r;
	double mde[2];

	(void)state;
	sim_default(&s);
	for (int i = 0; i < 2; i++) {
		s.ntasks = i ? 160 : 40;
		rng_seed(&g, 8);
		sim_draw(&s, &g, &o);
		assert_int_equal(ab_analyze(o.obs, o.n, s.ntasks, NULL, &r,
					    NULL), 0);
		mde[i] = r.eff[AB_SPEEDUP].mde;
		ab_result_release(&r);
		sim_free(&o);
	}
	/* Four times the tasks: about half the detectable effect. */
	assert_true(mde[1] < 0.65 * mde[0]);
	assert_true(mde[1] > 0.35 * mde[0]);
}

static void repeats_estimate_the_agent_variance(void **state)
{
	struct sim s;
	struct sim_out o;
	struct rng g;
	struct ab_result r;

	(void)state;
	sim_default(&s);
	s.ntasks = 200;
	s.k = 4;
	s.sd_agent = 0.25;
	s.pass_lo = s.pass_hi = 1;
	s.pass_effect = 0;
	rng_seed(&g, 9);
	sim_draw(&s, &g, &o);
	assert_int_equal(ab_analyze(o.obs, o.n, s.ntasks, NULL, &r, NULL), 0);
	assert_int_equal(r.within_source, AB_WITHIN_REPEATS);
	assert_int_equal(r.within_tasks, 200);
	/* agent 0.25 and timing 0.01 add in variance. */
	assert_true(fabs(r.sd_within - sqrt(0.25 * 0.25 + 0.0001)) < 0.015);
	assert_true(fabs(r.sd_timing - 0.01) < 1e-12);
	assert_true(fabs(r.sd_task_effect - 0.05) < 0.04);
	ab_result_release(&r);
	sim_free(&o);
}

static void one_attempt_per_side_is_labelled_as_spread(void **state)
{
	struct sim s;
	struct sim_out o;
	struct rng g;
	struct ab_result r;
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	sim_default(&s);
	s.k = 1;
	s.pass_lo = s.pass_hi = 1;
	s.pass_effect = 0;
	rng_seed(&g, 10);
	sim_draw(&s, &g, &o);
	assert_int_equal(ab_analyze(o.obs, o.n, s.ntasks, NULL, &r, NULL), 0);
	assert_int_equal(r.within_source, AB_WITHIN_SPREAD);
	ab_result_text(&sb, &r, NULL, false);
	assert_non_null(strstr(sb.buf, "one attempt per side"));
	strbuf_release(&sb);
	ab_result_release(&r);
	sim_free(&o);
}

/* A deterministic agent repeats identical results (the evaluation cache
 * returns the same timing): the within variance is 0, and the per-task
 * error must fall back to the attempts' own timing intervals rather than
 * call every hair's breadth a discovery. */
static void identical_repeats_fall_back_to_timing_noise(void **state)
{
	struct ab_obs obs[24];
	struct ab_result r;
	int n = 0;

	(void)state;
	for (int t = 0; t < 4; t++)
		for (int arm = 0; arm < 2; arm++)
			for (int i = 0; i < 3; i++) {
				struct ab_obs *o = &obs[n++];

				memset(o, 0, sizeof(*o));
				o->task = t;
				o->arm = arm;
				o->correct = true;
				/* B 0.3% faster, inside a 1% floor */
				o->log_speedup = 0.1 * t + (arm ? 0.003 : 0);
				o->log_se = 0.004;
				o->noise_floor = 0.01;
				o->score = 120 + 100 * exp(o->log_speedup);
			}
	assert_int_equal(ab_analyze(obs, n, 4, NULL, &r, NULL), 0);
	for (int t = 0; t < 4; t++) {
		assert_true(r.tasks[t].se > 0.004 / sqrt(3) * 0.99);
		assert_int_equal(r.tasks[t].verdict, AB_TIE);
	}
	ab_result_release(&r);
}

static void correctness_alone_decides_with_enough_attempts(void **state)
{
	struct ab_obs obs[40];
	struct ab_result r;
	int n = 0;

	(void)state;
	/* One task: A always wrong, B always right, 10 attempts each. */
	for (int arm = 0; arm < 2; arm++)
		for (int i = 0; i < 10; i++) {
			struct ab_obs *o = &obs[n++];

			memset(o, 0, sizeof(*o));
			o->task = 0;
			o->arm = arm;
			o->correct = arm == 1;
			o->log_speedup = arm ? 0.1 : NAN;
			o->log_se = arm ? 0.01 : NAN;
			o->score = arm ? 230 : 20;
		}
	assert_int_equal(ab_analyze(obs, n, 1, NULL, &r, NULL), 0);
	assert_int_equal(r.tasks[0].verdict, AB_WIN);
	assert_int_equal(r.tasks[0].basis, AB_PASS);
	assert_true(r.tasks[0].p < 1e-4);
	ab_result_release(&r);

	/* One attempt each: Fisher cannot reach 5%; the task is untested
	 * (the old rule called it a win). */
	obs[1] = obs[10];
	assert_int_equal(ab_analyze(obs, 2, 1, NULL, &r, NULL), 0);
	assert_int_equal(r.tasks[0].verdict, AB_UNTESTED);
	assert_int_equal(r.untested, 1);
	ab_result_release(&r);
}

static void bad_input_is_refused_with_a_sentence(void **state)
{
	struct ab_obs o;
	struct ab_result r;
	struct errbuf err;

	(void)state;
	memset(&o, 0, sizeof(o));
	o.task = 3;
	errbuf_init(&err);
	assert_int_equal(ab_analyze(&o, 1, 2, NULL, &r, &err), -EINVAL);
	assert_non_null(strstr(errbuf_str(&err), "names task 3 of 2"));
	ab_result_release(&r);
	o.task = 0;
	o.arm = 2;
	errbuf_init(&err);
	assert_int_equal(ab_analyze(&o, 1, 2, NULL, &r, &err), -EINVAL);
	assert_non_null(strstr(errbuf_str(&err), "arm 2"));
	ab_result_release(&r);
	errbuf_init(&err);
	assert_int_equal(ab_analyze(NULL, 0, AB_MAX_TASKS + 1, NULL, &r, &err),
			 -EINVAL);
	ab_result_release(&r);
	/* Nothing at all is not an error: the headline says so. */
	assert_int_equal(ab_analyze(NULL, 0, 0, NULL, &r, NULL), 0);
	assert_non_null(strstr(r.headline, "nothing to compare"));
	assert_false(r.eff[AB_SPEEDUP].defined);
	ab_result_release(&r);
}

static void json_carries_effects_variance_and_tasks(void **state)
{
	struct sim s;
	struct sim_out o;
	struct rng g;
	struct ab_result r;
	const char **ids;
	cJSON *j;
	char *txt;

	(void)state;
	sim_default(&s);
	s.ntasks = 6;
	rng_seed(&g, 3);
	sim_draw(&s, &g, &o);
	ids = xcalloc(6, sizeof(*ids));
	for (int i = 0; i < 6; i++)
		ids[i] = i % 2 ? "c2c/odd" : "c2c/even";
	assert_int_equal(ab_analyze(o.obs, o.n, 6, NULL, &r, NULL), 0);
	j = ab_result_json(&r, ids);
	txt = cJSON_PrintUnformatted(j);
	assert_non_null(strstr(txt, "\"headline\":"));
	assert_non_null(strstr(txt, "\"effects\":{\"speedup\":{"));
	assert_non_null(strstr(txt, "\"mde_ratio\":"));
	assert_non_null(strstr(txt, "\"pass_rate\":{"));
	assert_non_null(strstr(txt, "\"within_source\":\"repeats\""));
	assert_non_null(strstr(txt, "\"task\":\"c2c/odd\""));
	assert_null(strstr(txt, "nan"));
	assert_null(strstr(txt, "inf"));
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(j, "tasks")),
			 6);
	free(txt);
	cJSON_Delete(j);
	free(ids);
	ab_result_release(&r);
	sim_free(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(normal_quantile_matches_tables),
		cmocka_unit_test(t_distribution_matches_mpmath),
		cmocka_unit_test(digamma_and_trigamma_match_closed_forms),
		cmocka_unit_test(fisher_exact_matches_the_tea_tasting_example),
		cmocka_unit_test(bh_adjustment_of_a_known_list),
		cmocka_unit_test(
			intervals_cover_true_effects_95_percent_of_the_time),
		cmocka_unit_test(coverage_holds_with_one_attempt_and_few_tasks),
		cmocka_unit_test(
			coverage_holds_with_heterogeneous_agent_variance),
		cmocka_unit_test(aa_reports_no_difference_in_95_percent_of_runs),
		cmocka_unit_test(aa_with_one_attempt_reports_no_difference),
		cmocka_unit_test(
			per_task_verdicts_control_the_false_discovery_rate),
		cmocka_unit_test(per_task_fdr_holds_with_one_attempt_per_side),
		cmocka_unit_test(two_stage_resampling_would_overcover),
		cmocka_unit_test(plan_power_matches_simulated_experiments),
		cmocka_unit_test(analysis_is_deterministic_in_its_seed),
		cmocka_unit_test(headline_states_ratio_interval_and_probability),
		cmocka_unit_test(minimal_detectable_effect_shrinks_with_tasks),
		cmocka_unit_test(repeats_estimate_the_agent_variance),
		cmocka_unit_test(one_attempt_per_side_is_labelled_as_spread),
		cmocka_unit_test(identical_repeats_fall_back_to_timing_noise),
		cmocka_unit_test(correctness_alone_decides_with_enough_attempts),
		cmocka_unit_test(bad_input_is_refused_with_a_sentence),
		cmocka_unit_test(json_carries_effects_variance_and_tasks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
