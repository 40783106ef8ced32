/*
 * test_report_html.c - the HTML pages (engine/src/report/report_html.c,
 * compare_html.c, index_html.c, html.c): text from agents cannot inject
 * markup, the pages fetch nothing, every number tagged on a page is the
 * number summary.json holds at that pointer, speedups sit on a log axis
 * (2x and 0.5x equally far from 1x), only correct, timed attempts get a
 * point, and each gets its noise band.  tests/e2e/report_html.sh checks
 * the same pages in a real browser.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "arena/report.h"
#include "arena/report_html.h"
#include "html_check.h"

static void result_ok(struct task_result *r, double speedup)
{
	result_init(r);
	r->status = RS_OK;
	r->pass_compilation = r->pass_correctness = r->candidate_accepted =
		true;
	r->speedup_ratio = speedup;
	r->speedup_ci_lo = speedup * 0.98;
	r->speedup_ci_hi = speedup * 1.02;
	r->noise_floor = 0.01;
	r->agent_status = xstrdup("completed");
	result_score(r);
}

static int count(const char *hay, const char *needle)
{
	int n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

/* ---- tests -------------------------------------------------------------- */

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
 * id, a configuration's name, a case id, an error message an agent's code
 * caused, the agent's own error - is escaped, on the run page and on the
 * store's index. */
static void agent_written_text_cannot_inject_markup(void **state)
{
	struct task_result wrong, ok;
	struct report_meta m = { "run_<u>", "<img src=x>", "host", "now",
				 "done" };
	(void)state;

	result_init(&wrong);
	wrong.status = RS_INCORRECT;
	wrong.pass_compilation = true;
	wrong.correctness_error_message = xstrdup("<script>evil()</script>");
	wrong.agent_status = xstrdup("failed");
	wrong.agent_error = xstrdup("<iframe src=//x>");
	result_add_case(&wrong, "<b>case</b>", false)->error =
		xstrdup("<svg onload=x>");
	result_score(&wrong);
	result_ok(&ok, 1.5);
	struct report_row rows[] = { { "c2c/<x>", 1, &wrong, "<i>cfg" },
				     { "c2c/<x>", 2, &ok, "\"><p>" } };
	char *html = report_html(&m, rows, 2);
	struct report_index_run ir = { &m, rows, 2 };
	char *index = report_index_html(&ir, 1);

	for (int k = 0; k < 2; k++) {
		const char *page = k ? index : html;

		assert_null(strstr(page, "<script"));
		assert_null(strstr(page, "<img"));
		assert_null(strstr(page, "<iframe"));
		assert_null(strstr(page, "<u>"));
		assert_null(strstr(page, "<i>"));
		assert_null(strstr(page, "<b>case"));
		assert_null(strstr(page, "<svg onload"));
		assert_null(strstr(page, "\"><p>"));
		assert_null(strstr(page, "c2c/<x>"));
	}
	assert_non_null(strstr(html, "c2c/&lt;x&gt;"));
	assert_non_null(strstr(html, "&lt;iframe src=//x&gt;"));
	free(html);
	free(index);
	result_release(&wrong);
	result_release(&ok);
}

/* No script, nothing to fetch: the only URL is SVG's namespace, and the
 * Content-Security-Policy forbids every fetch. */
static void pages_fetch_nothing(void **state)
{
	struct task_result r;
	struct report_meta m = { "run_1", "noop", "host", "now", "done" };
	(void)state;

	result_ok(&r, 2.0);
	struct report_row rows[] = { { "c2c/a", 1, &r, NULL } };
	char *html = report_html(&m, rows, 1);

	assert_null(strstr(html, "<script"));
	assert_null(strstr(html, "<link"));
	assert_null(strstr(html, "src="));
	assert_int_equal(count(html, "http"),
			 count(html, "http://www.w3.org/2000/svg") +
				 count(html, "http-equiv"));
	assert_non_null(strstr(html, "Content-Security-Policy\" content=\""
				     "default-src 'none'"));
	free(html);
	result_release(&r);
}

/* Each number the page tags is what summary.json holds at that pointer,
 * for a run with pending, failed, untimed and timed attempts, two
 * configurations (so an A/B section), costs and cases. */
static void every_tagged_number_matches_summary_json(void **state)
{
	struct task_result r[12];
	struct report_row rows[13];
	struct report_meta m = { "run_2", "noop", "host", "now", "done" };
	int n = 0;
	(void)state;

	for (int t = 0; t < 6; t++)
		for (int a = 0; a < 2; a++) {
			struct task_result *x = &r[n];
			char id[24];

			snprintf(id, sizeof(id), "c2c/t%d", t);
			result_ok(x, (a ? 1.7 : 1.1) * (1 + 0.07 * t));
			x->agent_turns = 3 + t + a;
			x->agent_input_tokens = 1000 * (t + 1);
			x->agent_cached_tokens = 100 * t;
			x->agent_output_tokens = 50 * (a + 1);
			x->agent_cost_usd = 0.0123 * (t + a + 1);
			x->agent_cost_known = a == 1 || t < 3;
			x->agent_duration_s = 12.5 * (t + 1);
			x->eval_seconds = 2.25;
			struct case_result *c =
				result_add_case(x, "small", false);
			c->correct = c->timed = true;
			c->speedup = x->speedup_ratio * 1.01;
			c->ci_lo = c->speedup * 0.99;
			c->ci_hi = c->speedup * 1.01;
			c->base_ms = 1.5;
			c->cand_ms = 1.5 / c->speedup;
			c->pairs = 40;
			c->blocks = 4 + t;
			if (t == 4 && a == 0) {
				x->status = RS_COMPILE_ERROR;
				x->pass_compilation = false;
				result_score(x);
			}
			if (t == 5 && a == 1) {
				x->speedup_ratio = 0; /* correct, untimed */
				x->speedup_ci_lo = x->speedup_ci_hi = 0;
				result_score(x);
			}
			rows[n] = (struct report_row){ xstrdup(id), a + 1, x,
						       a ? "tuned" : "base" };
			n++;
		}
	rows[n] = (struct report_row){ xstrdup("c2c/t9"), 1, NULL, "base" };
	n++;
	char *html = report_html(&m, rows, n);
	char *json = report_json(&m, rows, n);
	int tags;

	assert_int_equal(check_tags(html, json, &tags), 0);
	/* The headline, costs, every attempt, the cases and the A/B effects
	 * were all tagged. */
	assert_true(tags > 150);
	assert_non_null(strstr(html, "data-k=\"/overall/geomean_speedup\""));
	assert_non_null(strstr(html, "data-k=\"/overall/costs/cost_usd\""));
	assert_non_null(strstr(html, "data-k=\"/variants/tuned/costs/"
				     "cost_usd\""));
	assert_non_null(strstr(html, "data-k=\"/tasks/0/cases/0/speedup\""));
	assert_non_null(strstr(html, "data-k=\"/ab/0/effects/speedup/ratio\""));
	assert_non_null(strstr(html, "data-k=\"/overall/verdicts/"
				     "compile_error\""));
	/* The check can fail: one digit changed on the page is caught. */
	char *bad = xstrdup(html);
	char *at = strstr(bad, "data-k=\"/overall/total_tasks\">");
	assert_non_null(at);
	at = strchr(at, '>') + 1;
	*at = *at == '9' ? '8' : '9';
	assert_int_equal(check_tags(bad, json, &tags), 1);
	free(bad);
	free(html);
	free(json);
	for (int i = 0; i < n; i++) {
		free((char *)rows[i].task_id);
		if (rows[i].result)
			result_release((struct task_result *)rows[i].result);
	}
}

/* Issue 10's case facts reach the page: each case's blocks (tagged, as
 * summary.json holds them), a correctness-only case's timing note
 * (escaped) in place of a speedup, and the task's correctness-only cases
 * listed under its row - held-out ones counted, never named. */
static void correctness_only_cases_and_timing_notes_are_shown(void **state)
{
	struct task_result r;
	struct report_meta m = { "run_1", "noop", "host", "now", "done" };
	struct case_result *c;
	int tags;
	(void)state;

	result_ok(&r, 2.0);
	c = result_add_case(&r, "big", false);
	c->correct = c->timed = true;
	c->speedup = 2.0;
	c->ci_lo = 1.9;
	c->ci_hi = 2.1;
	c->pairs = 120;
	c->blocks = 6;
	c = result_add_case(&r, "tiny", false);
	c->correct = c->correctness_only = true;
	c->timing_note = xstrdup("correctness only: the baseline's call "
				 "takes 0.41 us, below <b>20.0 us</b>");
	c = result_add_case(&r, "secret_seven", true);
	c->correct = c->correctness_only = true;
	c->timing_note = xstrdup("secret_seven is below the floor");
	struct report_row rows[] = { { "c2c/a", 1, &r, NULL } };
	char *html = report_html(&m, rows, 1);
	char *json = report_json(&m, rows, 1);

	assert_int_equal(check_tags(html, json, &tags), 0);
	assert_non_null(strstr(html, "data-k=\"/tasks/0/cases/0/blocks\">6<"));
	assert_non_null(strstr(html, "correctness only (checked, not timed, "
				     "not in the speedup): tiny; 1 "
				     "held-out case"));
	assert_non_null(strstr(html, "below &lt;b&gt;20.0 us&lt;/b&gt;"));
	assert_null(strstr(html, "<b>20.0"));
	assert_null(strstr(html, "secret_seven"));
	assert_null(strstr(json, "secret_seven"));
	free(html);
	free(json);
	result_release(&r);
}

/* Speedups are drawn on a log axis: 2x and 0.5x lie equally far from the
 * labelled 1x line.  Only correct, timed attempts get a point (and a noise
 * band); others get their status written instead. */
static void log_axis_puts_2x_and_half_equally_far_from_1x(void **state)
{
	struct task_result r[4];
	struct report_meta m = { "run_1", "noop", "host", "now", "done" };
	(void)state;

	result_ok(&r[0], 2.0);
	result_ok(&r[1], 0.5);
	result_ok(&r[2], 0.0); /* correct, not timed */
	result_init(&r[3]);
	r[3].status = RS_TIMEOUT;
	r[3].pass_compilation = true;
	result_score(&r[3]);
	struct report_row rows[] = { { "c2c/a", 1, &r[0], NULL },
				     { "c2c/b", 1, &r[1], NULL },
				     { "c2c/c", 1, &r[2], NULL },
				     { "c2c/d", 1, &r[3], NULL },
				     { "c2c/e", 1, NULL, NULL } };
	char *html = report_html(&m, rows, 5);
	const char *chart = strstr(html, "per-attempt speedups");
	double cx[2], one = NAN;
	int k = 0;

	assert_non_null(chart);
	for (const char *p = chart; k < 2 && (p = strstr(p, "<circle cx=\""));
	     p++)
		cx[k++] = strtod(p + 12, NULL);
	assert_int_equal(k, 2);
	/* The 1x rule: the stroke-width 1.3 line, labelled. */
	const char *rule = strstr(chart, "stroke-width=\"1.3\"");
	assert_non_null(rule);
	while (rule > chart && strncmp(rule, "<line x1=\"", 10))
		rule--;
	one = strtod(rule + 10, NULL);
	assert_non_null(strstr(chart, "1&#215; = baseline"));
	assert_true(fabs((cx[0] - one) - (one - cx[1])) < 0.2);
	assert_true(cx[0] > one && cx[1] < one);
	/* Two points in the chart; a noise band on each row whose floor is
	 * known; the others noted. */
	const char *end = strstr(chart, "</svg>");
	char *svg = xstrndup(chart, (size_t)(end - chart));
	assert_int_equal(count(svg, "<circle"), 2);
	assert_int_equal(count(svg, "fill=\"#dcdcdc\""), 3);
	assert_non_null(strstr(svg, ">correct, not timed<"));
	assert_non_null(strstr(svg, ">timeout<"));
	assert_non_null(strstr(svg, ">pending<"));
	free(svg);
	free(html);
	for (int i = 0; i < 4; i++)
		result_release(&r[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(escape_turns_markup_into_text),
		cmocka_unit_test(agent_written_text_cannot_inject_markup),
		cmocka_unit_test(pages_fetch_nothing),
		cmocka_unit_test(every_tagged_number_matches_summary_json),
		cmocka_unit_test(log_axis_puts_2x_and_half_equally_far_from_1x),
		cmocka_unit_test(
			correctness_only_cases_and_timing_notes_are_shown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
