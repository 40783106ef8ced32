/*
 * test_report_html.c - report.html (engine/src/report/report_html.c): text
 * from agents cannot inject markup, the summary counts what report.txt
 * counts, and only correct, timed attempts get a bar.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "arena/report_html.h"

static void result_ok(struct task_result *r, double speedup)
{
	result_init(r);
	r->status = RS_OK;
	r->pass_compilation = r->pass_correctness = r->candidate_accepted =
		true;
	r->speedup_ratio = speedup;
	r->speedup_ci_lo = speedup * 0.98;
	r->speedup_ci_hi = speedup * 1.02;
	result_score(r);
}

static int count(const char *hay, const char *needle)
{
	int n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

static void escape_turns_markup_into_text(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	(void)state;

	html_escape(&sb, "<script>alert('x') & \"y\"</script>");
	assert_null(strchr(strbuf_str(&sb), '<'));
	assert_null(strchr(strbuf_str(&sb), '>'));
	assert_null(strchr(strbuf_str(&sb), '"'));
	assert_null(strchr(strbuf_str(&sb), '\''));
	assert_non_null(strstr(strbuf_str(&sb), "&lt;script&gt;"));
	assert_non_null(strstr(strbuf_str(&sb), "&amp;"));
	strbuf_release(&sb);
}

/* Every string that comes from a run - its id, the agent's name, a task
 * id, an error message an agent's code caused - is escaped. */
static void agent_written_text_cannot_inject_markup(void **state)
{
	struct task_result wrong;
	struct report_meta m = { "run_<u>", "<img src=x>", "host", "now",
				 "done" };
	(void)state;

	result_init(&wrong);
	wrong.status = RS_INCORRECT;
	wrong.pass_compilation = true;
	wrong.correctness_error_message = xstrdup("<script>evil()</script>");
	result_score(&wrong);
	struct report_row rows[] = { { "c2c/<x>", 1, &wrong, NULL } };
	char *html = report_html(&m, rows, 1);
	assert_null(strstr(html, "<script>"));
	assert_null(strstr(html, "<img"));
	assert_null(strstr(html, "<u>"));
	assert_null(strstr(html, "c2c/<x>"));
	free(html);
	result_release(&wrong);
}

/* A correct attempt that was not timed (correctness only, or no GPU
 * baseline) counts as correct - as report.txt counts it - but has no bar
 * and stays out of the geometric mean. */
static void summary_counts_correct_as_report_txt_does(void **state)
{
	struct task_result fast, untimed, wrong;
	struct report_meta m = { "run_1", "noop", "host", "now", "done" };
	(void)state;

	result_ok(&fast, 2.0);
	result_ok(&untimed, 0.0);
	result_init(&wrong);
	wrong.status = RS_INCORRECT;
	wrong.pass_compilation = true;
	result_score(&wrong);
	struct report_row rows[] = {
		{ "c2c/a", 1, &fast, NULL },
		{ "c2c/b", 1, &untimed, NULL },
		{ "c2c/c", 1, &wrong, NULL },
		{ "c2c/d", 1, NULL, NULL },
	};
	char *html = report_html(&m, rows, 4);
	assert_non_null(strstr(html, "4 attempt(s), 3 evaluated: 3 compiled, "
				     "2 correct"));
	assert_non_null(strstr(html, "over correct, timed attempts "
				     "<b>2.000</b>"));
	free(html);
	result_release(&fast);
	result_release(&untimed);
	result_release(&wrong);
}

static void every_timed_attempt_gets_one_bar(void **state)
{
	struct task_result r[3];
	struct report_meta m = { "run_1", "noop", "host", "now", "done" };
	(void)state;

	result_ok(&r[0], 1.5);
	result_ok(&r[1], 0.5);
	result_ok(&r[2], 1.0);
	struct report_row rows[] = { { "c2c/a", 1, &r[0], NULL },
				     { "c2c/b", 1, &r[1], NULL },
				     { "c2c/c", 1, &r[2], NULL } };
	char *html = report_html(&m, rows, 3);
	assert_int_equal(count(html, "<svg"), 1);
	assert_int_equal(count(html, "</svg>"), 1);
	assert_non_null(strstr(html, "over correct attempts <b>"));
	free(html);
	for (int i = 0; i < 3; i++)
		result_release(&r[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(escape_turns_markup_into_text),
		cmocka_unit_test(agent_written_text_cannot_inject_markup),
		cmocka_unit_test(summary_counts_correct_as_report_txt_does),
		cmocka_unit_test(every_timed_attempt_gets_one_bar),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
