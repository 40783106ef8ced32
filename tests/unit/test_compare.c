/*
 * test_compare.c - the paired comparison of two runs or two agent
 * configurations (engine/src/report/compare.c) on small stores built by
 * hand: each verdict rule, what is counted, configurations of one run as
 * sides, and when two runs are not comparable.  The statistics themselves
 * are validated by simulation in test_abtest.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "arena/compare.h"
#include "arena/result.h"
#include "html_check.h"

struct fixture {
	char *dir;
	struct store *s;
	char *a, *b;
};

static char *new_run(struct store *s, const char *device)
{
	struct store_run r = { .agent = (char *)"noop",
			       .device = (char *)device };
	struct errbuf err;

	errbuf_init(&err);
	assert_int_equal(store_run_create(s, &r, NULL, &err), 0);
	return r.id;
}

static int setup(void **state)
{
	struct fixture *f = xcalloc(1, sizeof(*f));
	char tmpl[] = "/tmp/arena-test-compare-XXXXXX";
	struct errbuf err;

	errbuf_init(&err);
	f->dir = xstrdup(mkdtemp(tmpl));
	assert_int_equal(store_open(f->dir, &f->s, &err), 0);
	f->a = new_run(f->s, "host");
	f->b = new_run(f->s, "host");
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	store_close(f->s);
	rm_rf(f->dir);
	free(f->dir);
	free(f->a);
	free(f->b);
	free(f);
	return 0;
}

/* Attempt number n of task in run, of agent configuration variant, with
 * a result: correct with speedup [lo, hi] around sp, or wrong when sp is
 * 0; no result when sp < 0. */
static void attempt_n(struct fixture *f, const char *run, const char *task,
		      int n, const char *variant, double sp, double lo,
		      double hi, const char *device)
{
	struct task_result r;
	struct errbuf err;
	char *json;

	errbuf_init(&err);
	assert_int_equal(store_attempt_insert(f->s, run, task, n, variant,
					      n, &err), 0);
	if (sp < 0)
		return;
	result_init(&r);
	r.status = sp > 0 ? RS_OK : RS_INCORRECT;
	r.pass_compilation = true;
	r.pass_correctness = r.candidate_accepted = sp > 0;
	r.speedup_ratio = sp;
	r.speedup_ci_lo = lo;
	r.speedup_ci_hi = hi;
	r.noise_floor = 0.01;
	r.device = xstrdup(device);
	r.evaluator_version = xstrdup("arena-eval/1");
	r.task_name = xstrdup(task);
	/* What the agent spent: known only in run B. */
	r.agent_turns = n;
	r.agent_input_tokens = 100 * n;
	r.agent_output_tokens = 10 * n;
	r.agent_cost_known = !strcmp(run, f->b);
	r.agent_cost_usd = r.agent_cost_known ? 0.5 * n : 0;
	r.agent_duration_s = 10.0 * n;
	result_hash_sources(&r);
	result_score(&r);
	json = result_to_json(&r);
	{	/* what the store keeps must read back */
		struct task_result back;
		if (result_from_json(json, &back, &err) != 0)
			fail_msg("%s", errbuf_str(&err));
		result_release(&back);
	}
	assert_int_equal(store_attempt_update(f->s, run, task, n, "done",
					      NULL, json, "h", false, &err),
			 0);
	free(json);
	result_release(&r);
}

static void attempt(struct fixture *f, const char *run, const char *task,
		    double sp, double lo, double hi, const char *device)
{
	attempt_n(f, run, task, 1, "", sp, lo, hi, device);
}

/* Three attempts around sp (x 1.01, x 1, / 1.01: their mean log is
 * log sp), each with a +-2% interval. */
static void three(struct fixture *f, const char *run, const char *task,
		  double sp)
{
	static const double k[] = { 1.01, 1.0, 1 / 1.01 };

	for (int i = 0; i < 3; i++)
		attempt_n(f, run, task, i + 1, "", sp * k[i],
			  sp * k[i] / 1.02, sp * k[i] * 1.02, "host");
}

static const struct compare_task *find(const struct compare_report *r,
				       const char *task)
{
	for (int i = 0; i < r->ntasks; i++)
		if (!strcmp(r->tasks[i].task_id, task))
			return &r->tasks[i];
	fail_msg("task %s is not in the report", task);
	return NULL;
}

static void each_verdict_follows_its_rule(void **state)
{
	struct fixture *f = *state;
	struct compare_report r;
	struct errbuf err;

	/* Three attempts a side: B 2x faster is a win, B 0.5% faster (inside
	 * the 1% noise floor) a tie, B 2x slower a loss.  Five attempts a
	 * side, A always wrong and B always right: a win on the pass rate
	 * (Fisher's test can reach 5% with 5 against 5).  One attempt a
	 * side, wrong in both, or correct only in B: untested (one lucky
	 * attempt is not a configuration's win).  No result yet: pending;
	 * only in one run: not counted. */
	three(f, f->a, "c2c/win", 1.0);
	three(f, f->b, "c2c/win", 2.0);
	three(f, f->a, "c2c/tie", 1.0);
	three(f, f->b, "c2c/tie", 1.005);
	three(f, f->a, "c2c/loss", 2.0);
	three(f, f->b, "c2c/loss", 1.0);
	for (int i = 1; i <= 5; i++) {
		attempt_n(f, f->a, "c2c/fixed", i, "", 0, 0, 0, "host");
		attempt_n(f, f->b, "c2c/fixed", i, "", 1.0, 0.9, 1.1, "host");
	}
	attempt(f, f->a, "c2c/broken", 0, 0, 0, "host");
	attempt(f, f->b, "c2c/broken", 0, 0, 0, "host");
	attempt(f, f->a, "c2c/lucky", 0, 0, 0, "host");
	attempt(f, f->b, "c2c/lucky", 1.0, 0.9, 1.1, "host");
	attempt(f, f->a, "c2c/pending", 1.0, 0.9, 1.1, "host");
	attempt(f, f->b, "c2c/pending", -1, 0, 0, "host");
	attempt(f, f->a, "c2c/only_a", 1.0, 0.9, 1.1, "host");
	errbuf_init(&err);
	assert_int_equal(compare_runs(f->s, f->a, f->b, &r, &err), 0);
	assert_int_equal(find(&r, "c2c/win")->verdict, CMP_WIN);
	assert_true(fabs(find(&r, "c2c/win")->ratio - 2.0) < 1e-9);
	assert_true(find(&r, "c2c/win")->q < 0.05);
	assert_int_equal(find(&r, "c2c/tie")->verdict, CMP_TIE);
	assert_int_equal(find(&r, "c2c/loss")->verdict, CMP_LOSS);
	assert_int_equal(find(&r, "c2c/fixed")->verdict, CMP_WIN);
	assert_int_equal(find(&r, "c2c/broken")->verdict, CMP_UNTESTED);
	assert_int_equal(find(&r, "c2c/lucky")->verdict, CMP_UNTESTED);
	assert_int_equal(find(&r, "c2c/pending")->verdict, CMP_PENDING);
	assert_int_equal(find(&r, "c2c/only_a")->verdict, CMP_ONLY_A);
	assert_int_equal(r.wins, 2);
	assert_int_equal(r.ties, 1);
	assert_int_equal(r.losses, 1);
	assert_int_equal(r.untested, 2);
	assert_int_equal(r.pending, 1);
	assert_int_equal(r.ncommon, 7);
	assert_int_equal(r.npaired, 3);	/* win, tie, loss */
	/* a task only in A makes the runs not comparable, and says so */
	assert_false(r.comparable);
	assert_int_equal(r.reasons.n, 1);
	assert_non_null(strstr(r.reasons.v[0], "task sets differ"));
	char *text = compare_report_text(&r);
	assert_non_null(strstr(text, "comparable: NO"));
	assert_non_null(strstr(text, "B vs A: 2 win(s), 1 tie(s), 1 loss(es), "
				     "2 untested"));
	free(text);
	compare_report_release(&r);
}

/* Two agent configurations of one run are sides of their own: RUN:NAME
 * takes only that configuration's attempts, and the headline names
 * them. */
static void configurations_of_one_run_are_sides(void **state)
{
	struct fixture *f = *state;
	struct compare_report r;
	struct strvec names;
	struct errbuf err;
	char *sa, *sb;
	static const char *const tasks[] = { "c2c/p", "c2c/q", "c2c/r" };

	/* Attempt numbers count (repeat, configuration) slots: 1 and 2 are
	 * repeat 1 of plain and tool. */
	for (int t = 0; t < 3; t++)
		for (int rep = 0; rep < 2; rep++) {
			double k = rep ? 1.01 : 1 / 1.01;

			attempt_n(f, f->a, tasks[t], 2 * rep + 1, "plain",
				  1.0 * k, 0.98 * k, 1.02 * k, "host");
			attempt_n(f, f->a, tasks[t], 2 * rep + 2, "tool",
				  1.5 * k, 1.47 * k, 1.53 * k, "host");
		}
	errbuf_init(&err);
	assert_int_equal(compare_run_variants(f->s, f->a, &names, &err), 0);
	assert_int_equal(names.n, 2);
	assert_string_equal(names.v[0], "plain");
	assert_string_equal(names.v[1], "tool");
	strvec_release(&names);
	sa = xasprintf("%s:plain", f->a);
	sb = xasprintf("%s:tool", f->a);
	assert_int_equal(compare_runs(f->s, sa, sb, &r, &err), 0);
	assert_true(fabs(r.ratio.point - 1.5) < 1e-9);
	assert_int_equal(r.ab.min_k, 2);
	assert_int_equal(r.ab.max_k, 2);
	assert_non_null(strstr(r.ab.headline, "tool is faster than plain: "
				      "1.500x"));
	assert_true(r.comparable);
	compare_report_release(&r);
	/* An unknown configuration is an error that lists the right ones. */
	free(sb);
	sb = xasprintf("%s:other", f->a);
	errbuf_init(&err);
	assert_int_equal(compare_runs(f->s, sa, sb, &r, &err), -ENOENT);
	assert_non_null(strstr(errbuf_str(&err), "no agent configuration named "
				      "'other'; its configurations are plain, "
				      "tool"));
	compare_report_release(&r);
	free(sa);
	free(sb);
}

/* The geometric-mean ratio of B over A is over the tasks correct in both,
 * and the same two runs always give the same interval. */
static void ratio_is_geomean_over_paired_tasks_and_reproducible(void **state)
{
	struct fixture *f = *state;
	struct compare_report r1, r2;
	struct errbuf err;

	attempt(f, f->a, "c2c/x", 1.0, 0.99, 1.01, "host");
	attempt(f, f->b, "c2c/x", 2.0, 1.98, 2.02, "host");
	attempt(f, f->a, "c2c/y", 1.0, 0.99, 1.01, "host");
	attempt(f, f->b, "c2c/y", 0.5, 0.49, 0.51, "host");
	attempt(f, f->a, "c2c/z", 1.0, 0.99, 1.01, "host");
	attempt(f, f->b, "c2c/z", 0, 0, 0, "host");	/* not paired */
	errbuf_init(&err);
	assert_int_equal(compare_runs(f->s, f->a, f->b, &r1, &err), 0);
	assert_int_equal(compare_runs(f->s, f->a, f->b, &r2, &err), 0);
	assert_int_equal(r1.npaired, 2);
	assert_true(fabs(r1.ratio.point - 1.0) < 1e-9);	/* sqrt(2 * 0.5) */
	assert_true(r1.ratio.lo <= r1.ratio.point);
	assert_true(r1.ratio.point <= r1.ratio.hi);
	assert_true(r1.ratio.lo == r2.ratio.lo && r1.ratio.hi == r2.ratio.hi);
	assert_true(r1.comparable);
	compare_report_release(&r1);
	compare_report_release(&r2);
}

static void results_from_different_devices_are_not_comparable(void **state)
{
	struct fixture *f = *state;
	struct compare_report r;
	struct errbuf err;

	attempt(f, f->a, "c2c/x", 1.0, 0.9, 1.1, "cuda:0 NVIDIA H200 (sm_90)");
	attempt(f, f->b, "c2c/x", 1.0, 0.9, 1.1, "cuda:0 NVIDIA H100 (sm_90)");
	errbuf_init(&err);
	assert_int_equal(compare_runs(f->s, f->a, f->b, &r, &err), 0);
	assert_false(r.comparable);
	assert_non_null(strstr(r.reasons.v[0], "different devices"));
	compare_report_release(&r);
}

static void a_missing_run_is_named(void **state)
{
	struct fixture *f = *state;
	struct compare_report r;
	struct errbuf err;

	errbuf_init(&err);
	assert_int_equal(compare_runs(f->s, f->a, "run_19990101_000000", &r,
				      &err), -ENOENT);
	assert_non_null(strstr(errbuf_str(&err), "run_19990101_000000"));
	compare_report_release(&r);
}

/* What each side spent is summed over its attempts with a result, in
 * the text, the JSON and the page; every number the page tags is the
 * JSON's; and names from runs cannot inject markup into the page. */
static void costs_are_compared_and_the_page_matches_the_json(void **state)
{
	struct fixture *f = *state;
	struct compare_report r;
	struct errbuf err;
	int tags;

	three(f, f->a, "c2c/<b>x", 1.0);
	three(f, f->b, "c2c/<b>x", 2.0);
	three(f, f->a, "c2c/y", 1.0);
	three(f, f->b, "c2c/y", 1.0);
	attempt(f, f->a, "c2c/z", 0, 0, 0, "host");
	attempt(f, f->b, "c2c/z", 1.0, 0.98, 1.02, "host");
	errbuf_init(&err);
	assert_int_equal(compare_runs(f->s, f->a, f->b, &r, &err), 0);
	assert_int_equal(r.costs_a.attempts, 7);
	assert_int_equal(r.costs_a.turns, 1 + 2 + 3 + 1 + 2 + 3 + 1);
	assert_int_equal(r.costs_a.cost_known, 0);
	assert_int_equal(r.costs_b.cost_known, 7);
	assert_true(fabs(r.costs_b.cost_usd - 0.5 * 13) < 1e-9);
	assert_true(fabs(r.costs_b.agent_s - 130) < 1e-9);
	char *text = compare_report_text(&r);
	assert_non_null(strstr(text, "costs A: 7 attempt(s), 13 turns, 1300 "
				     "input tokens (0 cached), 130 output "
				     "tokens, cost not reported, agent time "
				     "130.0 s\n"));
	assert_non_null(strstr(text, "costs B: 7 attempt(s), 13 turns, 1300 "
				     "input tokens (0 cached), 130 output "
				     "tokens, $6.5000, agent time 130.0 s\n"));
	free(text);
	char *json = compare_report_json(&r);
	char *html = compare_report_html(&r);
	assert_int_equal(check_tags(html, json, &tags), 0);
	assert_true(tags > 40);
	assert_non_null(strstr(html, "data-k=\"/costs/b/cost_usd\""));
	assert_non_null(strstr(html, "data-k=\"/ab/effects/speedup/ratio\""));
	assert_non_null(strstr(html, "data-k=\"/tasks/0/b/speedup\""));
	assert_null(strstr(html, "<b>x"));
	assert_non_null(strstr(html, "c2c/&lt;b&gt;x"));
	assert_null(strstr(html, "<script"));
	free(json);
	free(html);
	compare_report_release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(each_verdict_follows_its_rule,
						setup, teardown),
		cmocka_unit_test_setup_teardown(
			configurations_of_one_run_are_sides, setup, teardown),
		cmocka_unit_test_setup_teardown(
			ratio_is_geomean_over_paired_tasks_and_reproducible,
			setup, teardown),
		cmocka_unit_test_setup_teardown(
			results_from_different_devices_are_not_comparable,
			setup, teardown),
		cmocka_unit_test_setup_teardown(a_missing_run_is_named, setup,
						teardown),
		cmocka_unit_test_setup_teardown(
			costs_are_compared_and_the_page_matches_the_json, setup,
			teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
