/*
 * test_plan.c - power and sample sizes for A/B comparisons
 * (engine/src/plan.c): the numbers against the textbook formula, their
 * consistency (the detectable effect at the tasks needed is the target),
 * and the measurement of variance components from runs' rows.  That the
 * planned power is the power abtest then has is checked by simulation in
 * test_abtest.c (plan_power_matches_simulated_experiments).
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

#include "arena/plan.h"
#include "arena/stats_dist.h"

/* Every task passes, so every task carries a speedup. */
static void certain_passes(struct plan_inputs *in, int ntasks)
{
	plan_inputs_init(in, ntasks);
	plan_set(&in->pass_rate, 1, "test");
	plan_set(&in->pass_within, 0, "test");
	plan_set(&in->sd_timing, 0.01, "test");
	plan_set(&in->sd_agent, 0.2, "test");
	plan_set(&in->sd_effect, 0.05, "test");
}

static void tasks_needed_follow_the_textbook_formula(void **state)
{
	struct plan_inputs in;
	struct plan_row rows[PLAN_MAX_REPEATS];

	(void)state;
	certain_passes(&in, 100);
	assert_int_equal(plan_compute(&in, rows, NULL), 0);
	for (int i = 0; i < in.nrepeats; i++) {
		int k = rows[i].repeats;
		double v = 0.05 * 0.05 + 2 * (0.2 * 0.2 + 0.01 * 0.01) / k;
		double z = stats_norm_quantile(0.975) + stats_norm_quantile(0.8);
		double n_normal = z * z * v / (log(1.05) * log(1.05));

		print_message("  k=%d: %ld tasks (normal approximation %.1f)\n",
			      k, rows[i].tasks_speed, n_normal);
		/* The t test needs a little more than the normal formula. */
		assert_true(rows[i].tasks_speed >= (long)n_normal);
		assert_true(rows[i].tasks_speed <= (long)(n_normal * 1.05) + 3);
		assert_true(fabs(rows[i].eligible - 1) < 1e-12);
		if (i)
			assert_true(rows[i].tasks_speed <
				    rows[i - 1].tasks_speed);
	}
	plan_inputs_release(&in);
}

/* At exactly the tasks needed, the detectable effect is the target; one
 * task fewer, it is larger. */
static void detectable_effect_at_the_tasks_needed_is_the_target(void **state)
{
	struct plan_inputs in;
	struct plan_row rows[PLAN_MAX_REPEATS], again[PLAN_MAX_REPEATS];

	(void)state;
	certain_passes(&in, 10);
	in.nrepeats = 1;
	in.repeats[0] = 3;
	assert_int_equal(plan_compute(&in, rows, NULL), 0);
	in.ntasks = (int)rows[0].tasks_speed;
	assert_int_equal(plan_compute(&in, again, NULL), 0);
	assert_true(again[0].mde_ratio <= 1.05 + 1e-9);
	assert_true(again[0].power_speed >= 0.8);
	in.ntasks--;
	assert_int_equal(plan_compute(&in, again, NULL), 0);
	assert_true(again[0].mde_ratio > 1.05);
	assert_true(again[0].power_speed < 0.8);
	/* The same holds for the pass rate. */
	in.ntasks = (int)rows[0].tasks_pass;
	assert_int_equal(plan_compute(&in, again, NULL), 0);
	assert_true(again[0].power_pass >= 0.8);
	assert_true(again[0].mde_pass <= 0.10 + 1e-9);
	plan_inputs_release(&in);
}

static void failing_attempts_shrink_the_tasks_that_carry_a_speedup(void **state)
{
	struct plan_inputs in;
	struct plan_row rows[PLAN_MAX_REPEATS];

	(void)state;
	certain_passes(&in, 100);
	plan_set(&in.pass_rate, 0.5, "test");
	assert_int_equal(plan_compute(&in, rows, NULL), 0);
	/* k = 1: both sides correct with probability 0.25. */
	assert_true(fabs(rows[0].eligible - 0.25) < 1e-12);
	/* k = 2: (1 - 0.25)^2. */
	assert_true(fabs(rows[1].eligible - 0.5625) < 1e-12);
	plan_inputs_release(&in);
}

static void an_all_passing_past_does_not_promise_free_detection(void **state)
{
	struct plan_inputs in;
	struct plan_row rows[PLAN_MAX_REPEATS];

	(void)state;
	certain_passes(&in, 100);
	assert_int_equal(plan_compute(&in, rows, NULL), 0);
	/* B's variance is taken at 90% pass: 10 points need real tasks. */
	assert_true(rows[0].tasks_pass > 20);
	plan_inputs_release(&in);
}

static void bad_inputs_are_refused_with_a_sentence(void **state)
{
	struct plan_inputs in;
	struct plan_row rows[PLAN_MAX_REPEATS];
	struct errbuf err;

	(void)state;
	plan_inputs_init(&in, 10);
	in.effect_ratio = 1;
	errbuf_init(&err);
	assert_int_equal(plan_compute(&in, rows, &err), -EINVAL);
	assert_non_null(strstr(errbuf_str(&err), "other than 1"));
	in.effect_ratio = 1.05;
	in.repeats[0] = 0;
	errbuf_init(&err);
	assert_int_equal(plan_compute(&in, rows, &err), -EINVAL);
	assert_non_null(strstr(errbuf_str(&err), "repeats"));
	in.repeats[0] = 1;
	plan_set(&in.sd_agent, NAN, "test");
	errbuf_init(&err);
	assert_int_equal(plan_compute(&in, rows, &err), -EINVAL);
	plan_inputs_release(&in);
}

/* ---- measuring components from rows ---------------------------------- */

static void make_result(struct task_result *r, bool correct, double speedup,
			double half)
{
	result_init(r);
	r->status = correct ? RS_OK : RS_INCORRECT;
	r->pass_compilation = true;
	r->pass_correctness = correct;
	r->candidate_accepted = correct;
	r->speedup_ratio = speedup;
	r->speedup_ci_lo = speedup * exp(-half);
	r->speedup_ci_hi = speedup * exp(half);
	r->noise_floor = 0.01;
	result_score(r);
}

static void noise_run_measures_the_timing_sd(void **state)
{
	struct task_result r[4];
	struct report_row rows[4];
	struct plan_inputs in;
	struct errbuf err;
	double y[4] = { 0.02, -0.02, 0.02, -0.02 };

	(void)state;
	for (int i = 0; i < 4; i++) {
		make_result(&r[i], true, exp(y[i]), 0.001);
		rows[i] = (struct report_row){ "c2c/t", i + 1, &r[i], NULL };
	}
	plan_inputs_init(&in, 1);
	assert_int_equal(plan_measure_noise(&in, "run_a", "noop", rows, 4,
					    NULL), 0);
	assert_true(fabs(in.sd_timing.value - 0.02) < 1e-12);
	assert_true(in.sd_timing.measured);
	assert_non_null(strstr(in.sd_timing.source, "run_a, 4 A/A"));
	/* Not a noop run: measured, but said so. */
	assert_int_equal(plan_measure_noise(&in, "run_a", "autotune", rows, 4,
					    NULL), 0);
	assert_non_null(strstr(in.sd_timing.source, "not a noop run"));
	/* Nothing timed: an error naming the run. */
	for (int i = 0; i < 4; i++)
		rows[i].result = NULL;
	errbuf_init(&err);
	assert_int_equal(plan_measure_noise(&in, "run_a", "noop", rows, 4,
					    &err), -ENOENT);
	assert_non_null(strstr(errbuf_str(&err), "run_a"));
	plan_inputs_release(&in);
	for (int i = 0; i < 4; i++)
		result_release(&r[i]);
}

/* Two tasks, four attempts each: log speedups +-0.1 around each task's
 * mean, so the within variance is 4 * 0.01 / 3 per task; one task passes
 * 3 of 4. */
static void past_run_measures_agent_spread_and_pass_rates(void **state)
{
	struct task_result r[8];
	struct report_row rows[8];
	struct plan_inputs in;
	struct plan_past past;
	int n = 0;

	(void)state;
	for (int t = 0; t < 2; t++)
		for (int i = 0; i < 4; i++) {
			bool ok = !(t == 1 && i == 3);
			double y = (t ? 0.5 : 0.0) + (i % 2 ? 0.1 : -0.1);

			make_result(&r[n], ok, exp(y), 0.001);
			rows[n] = (struct report_row){ t ? "c2c/b" : "c2c/a",
						       i + 1, &r[n], NULL };
			n++;
		}
	plan_inputs_init(&in, 2);
	plan_set(&in.sd_timing, 0.01, "test");
	plan_past_init(&past);
	plan_past_add(&past, "run_p", rows, n);
	plan_past_finish(&past, &in);
	/* Task a: 4 values +-0.1, SS 0.04, df 3; task b: 3 timed values
	 * (-0.1, 0.1, -0.1 around 0.5): SS 4/3 * 0.01 * 2 ... computed. */
	double ssb = 0, mb = (-0.1 + 0.1 - 0.1) / 3;
	double vb[3] = { -0.1, 0.1, -0.1 };
	for (int i = 0; i < 3; i++)
		ssb += (vb[i] - mb) * (vb[i] - mb);
	double w = (0.04 + ssb) / 5;
	assert_true(in.sd_agent.measured);
	assert_true(fabs(in.sd_agent.value - sqrt(w - 0.0001)) < 1e-9);
	assert_true(fabs(in.pass_rate.value - (1 + 0.75) / 2) < 1e-12);
	/* Unbiased within-task Bernoulli variance: 4/3 * 0.75 * 0.25 for b,
	 * 0 for a. */
	assert_true(fabs(in.pass_within.value - 4.0 / 3 * 0.1875 / 2) <
		    1e-12);
	assert_int_equal(in.npass_probs, 2);
	/* No A/B comparison in the run: the effect spread stays assumed. */
	assert_false(in.sd_effect.measured);
	plan_past_release(&past);
	plan_inputs_release(&in);
	for (int i = 0; i < n; i++)
		result_release(&r[i]);
}

static void text_and_json_state_sources_and_conclusions(void **state)
{
	struct plan_inputs in;
	struct plan_row rows[PLAN_MAX_REPEATS];
	char *text, *json;

	(void)state;
	plan_inputs_init(&in, 120);
	assert_int_equal(plan_compute(&in, rows, NULL), 0);
	text = plan_text(&in, rows);
	json = plan_json(&in, rows);
	assert_non_null(strstr(text, "assumed: "));
	assert_non_null(strstr(text, "120 selected tasks"));
	assert_non_null(strstr(text, "Assumed components make this a guess"));
	assert_non_null(strstr(json, "\"tasks_needed_speedup\":"));
	assert_non_null(strstr(json, "\"conclusion\":"));
	assert_null(strstr(json, "nan"));
	free(text);
	free(json);
	plan_inputs_release(&in);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(tasks_needed_follow_the_textbook_formula),
		cmocka_unit_test(
			detectable_effect_at_the_tasks_needed_is_the_target),
		cmocka_unit_test(
			failing_attempts_shrink_the_tasks_that_carry_a_speedup),
		cmocka_unit_test(
			an_all_passing_past_does_not_promise_free_detection),
		cmocka_unit_test(bad_inputs_are_refused_with_a_sentence),
		cmocka_unit_test(noise_run_measures_the_timing_sd),
		cmocka_unit_test(past_run_measures_agent_spread_and_pass_rates),
		cmocka_unit_test(text_and_json_state_sources_and_conclusions),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
