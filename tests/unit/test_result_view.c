/*
 * test_result_view.c - what of a result the mount may show
 * (engine/src/result_view.c): held-out cases removed, every message about
 * one withheld, everything else exactly as recorded.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "arena/result.h"
#include "arena/result_view.h"
#include "arena/util.h"

/* A final result of c2c/dot whose candidate returned the held-out size
 * (the probe of issue 11): visible small and large pass, held-out
 * odd_prime fails with the size in the message. */
static void probe_result(struct task_result *r)
{
	result_init(r);
	r->task_name = xstrdup("c2c/dot");
	r->pass_compilation = true;
	r->status = RS_RUNTIME_ERROR;
	r->correctness_error_message = xstrdup(
		"arena_launch returned 1000003 (not 0) in correctness trial 1, "
		"held-out case 'odd_prime'");
	r->speedup_calculation_error_message = xstrdup("timed 2 cases");
	struct case_result *c = result_add_case(r, "small", false);
	c->correct = true;
	c = result_add_case(r, "large", false);
	c->correct = true;
	c->error = xstrdup("slow but right");
	c = result_add_case(r, "odd_prime", true);
	c->error = xstrdup("returned 1000003");
	c = result_add_case(r, "tiny_odd", true);
	r->held_out_evaluated = true;
	r->held_out_correct = false;
	r->held_out_speedup = 0.5;
	r->score = 20;
	strvec_push(&r->integrity, "output of timed call 3 in case 'small' "
		    "differs from baseline");
	strvec_push(&r->integrity, "case 'tiny_odd' left a thread running");
}

static void held_out_cases_are_removed_and_visible_ones_kept(void **state)
{
	struct task_result r;

	(void)state;
	probe_result(&r);
	result_hide_held_out(&r);
	assert_int_equal(r.ncases, 2);
	assert_string_equal(r.cases[0].id, "small");
	assert_string_equal(r.cases[1].id, "large");
	assert_string_equal(r.cases[1].error, "slow but right");
	for (int i = 0; i < r.ncases; i++)
		assert_false(r.cases[i].held_out);
	result_release(&r);
}

static void messages_about_held_out_cases_are_withheld(void **state)
{
	struct task_result r;

	(void)state;
	probe_result(&r);
	result_hide_held_out(&r);
	/* by the evaluator's wording */
	assert_string_equal(r.correctness_error_message, RESULT_WITHHELD);
	/* by the case id, quoted as the evaluator quotes ids */
	assert_string_equal(r.integrity.v[1], RESULT_WITHHELD);
	/* messages about visible cases stay */
	assert_string_equal(r.integrity.v[0], "output of timed call 3 in case "
			    "'small' differs from baseline");
	assert_string_equal(r.speedup_calculation_error_message,
			    "timed 2 cases");
	result_release(&r);
}

static void verdict_score_and_aggregate_are_untouched(void **state)
{
	struct task_result r;

	(void)state;
	probe_result(&r);
	result_hide_held_out(&r);
	assert_int_equal(r.status, RS_RUNTIME_ERROR);
	assert_true(r.score == 20);
	assert_true(r.held_out_evaluated);
	assert_false(r.held_out_correct);
	assert_true(r.held_out_speedup == 0.5);
	result_release(&r);
}

static void the_rendered_yaml_names_no_held_out_case(void **state)
{
	struct task_result r;

	(void)state;
	probe_result(&r);
	result_hide_held_out(&r);
	char *yaml = result_to_yaml(&r);
	assert_non_null(yaml);
	assert_null(strstr(yaml, "odd_prime"));
	assert_null(strstr(yaml, "tiny_odd"));
	assert_null(strstr(yaml, "1000003"));
	assert_non_null(strstr(yaml, "small"));
	free(yaml);
	result_release(&r);
}

static void an_id_inside_another_word_is_not_a_mention(void **state)
{
	struct task_result r;

	(void)state;
	result_init(&r);
	result_add_case(&r, "odd", true);
	r.correctness_error_message = xstrdup("case 'oddity' differs");
	result_hide_held_out(&r);
	assert_string_equal(r.correctness_error_message,
			    "case 'oddity' differs");
	assert_int_equal(r.ncases, 0);
	result_release(&r);
}

static void event_text_is_recognised_by_the_evaluators_wording(void **state)
{
	(void)state;
	assert_true(result_text_mentions_held_out(
		"runtime_error: score 20.00; arena_launch returned 7 (not 0) "
		"in trial 1, held-out case 'tiny_odd'"));
	assert_false(result_text_mentions_held_out("ok: score 199.60"));
	assert_false(result_text_mentions_held_out(NULL));
}

/* An event's text that names a held-out case by its id alone (no
 * evaluator wording) is marked, so that the mount's events withhold it;
 * the store keeps it whole, and other texts pass unchanged. */
static void event_text_naming_a_held_out_id_alone_is_marked(void **state)
{
	struct task_result r;

	(void)state;
	probe_result(&r);
	char *t = result_event_text(&r, "output of case 'tiny_odd' differs");
	assert_true(result_text_mentions_held_out(t));
	assert_non_null(strstr(t, "output of case 'tiny_odd' differs"));
	free(t);
	t = result_event_text(&r, "output of case 'small' differs");
	assert_string_equal(t, "output of case 'small' differs");
	free(t);
	t = result_event_text(&r, "held-out case 'odd_prime' failed");
	assert_string_equal(t, "held-out case 'odd_prime' failed");
	free(t);
	assert_null(result_event_text(&r, NULL));
	result_release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(
			held_out_cases_are_removed_and_visible_ones_kept),
		cmocka_unit_test(messages_about_held_out_cases_are_withheld),
		cmocka_unit_test(verdict_score_and_aggregate_are_untouched),
		cmocka_unit_test(the_rendered_yaml_names_no_held_out_case),
		cmocka_unit_test(an_id_inside_another_word_is_not_a_mention),
		cmocka_unit_test(
			event_text_is_recognised_by_the_evaluators_wording),
		cmocka_unit_test(
			event_text_naming_a_held_out_id_alone_is_marked),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
