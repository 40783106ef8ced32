/*
 * test_report.c - summary.csv, summary.json and report.txt
 * (engine/src/report/report.c) on small hand-built runs whose statistics are
 * known (Python's statistics module gave the expected percentiles).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cJSON.h>

#include "arena/report.h"
#include "arena/report_html.h"
#include "arena/result_view.h"
#include "arena/util.h"

/* ---- fixtures ---------------------------------------------------------- */

static void make_ok(struct task_result *r, const char *name, double speedup,
		    double lo, double hi)
{
	result_init(r);
	r->task_name = xstrdup(name);
	r->pass_compilation = true;
	r->pass_correctness = true;
	r->candidate_accepted = true;
	r->status = RS_OK;
	r->speedup_ratio = speedup;
	r->speedup_ci_lo = lo;
	r->speedup_ci_hi = hi;
	r->noise_floor = 0.01;
	r->pairs = 320;
	r->agent_status = xstrdup("completed");
	result_score(r);
}

/* Five rows: c2c/a 2x, c2c/b 0.5x, hip/c compile error, hip/d pending,
 * c2c/e rejected. */
struct run5 {
	struct task_result res[4];
	struct report_row rows[5];
	struct report_meta meta;
};

static void run5_make(struct run5 *f)
{
	struct task_result *c, *e;

	make_ok(&f->res[0], "c2c/a", 2.0, 1.9, 2.1);
	f->res[0].optimization_summary =
		xstrdup("Optimized by x: vectorized, \"4x\" unroll\nline 2");
	f->res[0].held_out_evaluated = true;
	f->res[0].held_out_correct = true;
	f->res[0].held_out_speedup = 1.8;
	f->res[0].agent_turns = 7;
	f->res[0].agent_input_tokens = 1000;
	f->res[0].agent_cached_tokens = 400;
	f->res[0].agent_output_tokens = 300;
	f->res[0].agent_cost_usd = 0.25;
	f->res[0].agent_cost_known = true;
	f->res[0].agent_duration_s = 61.5;
	f->res[0].eval_seconds = 4.25;
	make_ok(&f->res[1], "c2c/b", 0.5, 0.45, 0.55);

	c = &f->res[2];
	result_init(c);
	c->task_name = xstrdup("hip/c");
	c->status = RS_COMPILE_ERROR;
	c->compilation_error_message = xstrdup(
		"In file included from kernel.hip:1:\n"
		"kernel.hip:3:5: error: unknown type \x1b[31mfoo\n"
		"    foo x;\n");
	result_score(c);

	e = &f->res[3];
	make_ok(e, "c2c/e", 40.0, 39.0, 41.0);
	e->status = RS_REJECTED;
	strvec_push(&e->integrity, "input 'x' was modified by the candidate");
	result_score(e);

	f->rows[0] = (struct report_row){ "c2c/a", 1, &f->res[0] };
	f->rows[1] = (struct report_row){ "c2c/b", 1, &f->res[1] };
	f->rows[2] = (struct report_row){ "hip/c", 1, &f->res[2] };
	f->rows[3] = (struct report_row){ "hip/d", 1, NULL };
	f->rows[4] = (struct report_row){ "c2c/e", 1, &f->res[3] };
	f->meta = (struct report_meta){ "run_20261201_100000", "noop",
					"host:x86_64", "2026-12-01T10:00:00Z",
					"completed" };
}

static void run5_free(struct run5 *f)
{
	for (int i = 0; i < 4; i++)
		result_release(&f->res[i]);
}

/* ---- a strict RFC 4180 reader for the tests ---------------------------- */

struct csv {
	char ***rec;	/* rec[i][j] */
	int *nfield;
	int nrec;
};

/* Returns 0, or -1 on malformed input (a quote inside an unquoted field,
 * text after a closing quote, an unterminated quote). */
static int csv_parse(const char *s, struct csv *out)
{
	struct strbuf field = STRBUF_INIT;
	char **fields = NULL;
	int nf = 0;

	memset(out, 0, sizeof(*out));
	while (*s) {
		/* one field */
		strbuf_reset(&field);
		if (*s == '"') {
			s++;
			for (;;) {
				if (!*s)
					return -1;
				if (*s == '"' && s[1] == '"') {
					strbuf_addch(&field, '"');
					s += 2;
				} else if (*s == '"') {
					s++;
					break;
				} else {
					strbuf_addch(&field, *s++);
				}
			}
			if (*s && *s != ',' && *s != '\n')
				return -1;
		} else {
			while (*s && *s != ',' && *s != '\n') {
				if (*s == '"')
					return -1;
				strbuf_addch(&field, *s++);
			}
		}
		fields = xrealloc(fields, ((size_t)nf + 1) * sizeof(char *));
		fields[nf++] = xstrdup(strbuf_str(&field));
		if (*s == ',') {
			s++;
			continue;
		}
		/* end of record */
		out->rec = xrealloc(out->rec,
				    ((size_t)out->nrec + 1) * sizeof(char **));
		out->nfield = xrealloc(out->nfield,
				       ((size_t)out->nrec + 1) * sizeof(int));
		out->rec[out->nrec] = fields;
		out->nfield[out->nrec++] = nf;
		fields = NULL;
		nf = 0;
		if (*s == '\n')
			s++;
	}
	strbuf_release(&field);
	return 0;
}

static void csv_free(struct csv *c)
{
	for (int i = 0; i < c->nrec; i++) {
		for (int j = 0; j < c->nfield[i]; j++)
			free(c->rec[i][j]);
		free(c->rec[i]);
	}
	free(c->rec);
	free(c->nfield);
}

/* ---- CSV --------------------------------------------------------------- */

static void csv_has_aka_columns_then_arenas(void **state)
{
	static const char *const header[] = {
		"Task Name",
		"Task Type",
		"Score",
		"Speedup",
		"Optimization_summary",
		"Status",
		"Compiled",
		"Correct",
		"Speedup CI Low",
		"Speedup CI High",
		"Reward",
		"Pairs",
		"Held-out Correct",
		"Agent Status",
		"Attempt",
		"Variant",
		"Versus Baseline",
		"Turns",
		"Input Tokens",
		"Cached Input Tokens",
		"Output Tokens",
		"Cost USD",
		"Agent Seconds",
		"Eval Seconds",
	};
	struct run5 f;
	struct csv c;
	char *s;

	run5_make(&f);
	s = report_csv(f.rows, 5);
	assert_int_equal(csv_parse(s, &c), 0);
	assert_int_equal(c.nrec, 6);
	for (int i = 0; i < c.nrec; i++)
		assert_int_equal(c.nfield[i], (int)ARRAY_SIZE(header));
	for (size_t j = 0; j < ARRAY_SIZE(header); j++)
		assert_string_equal(c.rec[0][j], header[j]);

	/* c2c/a: quoted summary comes back intact. */
	assert_string_equal(c.rec[1][0], "c2c/a");
	assert_string_equal(c.rec[1][1], "c2c");
	assert_string_equal(c.rec[1][2], "320.0000");
	assert_string_equal(c.rec[1][3], "2.0000");
	assert_string_equal(c.rec[1][4], f.res[0].optimization_summary);
	assert_string_equal(c.rec[1][5], "ok");
	assert_string_equal(c.rec[1][6], "true");
	assert_string_equal(c.rec[1][7], "true");
	assert_string_equal(c.rec[1][8], "1.9000");
	assert_string_equal(c.rec[1][9], "2.1000");
	assert_string_equal(c.rec[1][10], "0.3333");
	assert_string_equal(c.rec[1][11], "320");
	assert_string_equal(c.rec[1][12], "true");
	assert_string_equal(c.rec[1][13], "completed");
	assert_string_equal(c.rec[1][14], "1");
	assert_string_equal(c.rec[1][15], "");
	assert_string_equal(c.rec[1][16], "faster");
	assert_string_equal(c.rec[1][17], "7");
	assert_string_equal(c.rec[1][18], "1000");
	assert_string_equal(c.rec[1][19], "400");
	assert_string_equal(c.rec[1][20], "300");
	assert_string_equal(c.rec[1][21], "0.2500");
	assert_string_equal(c.rec[1][22], "61.5000");
	assert_string_equal(c.rec[1][23], "4.2500");
	/* c2c/b: slower beyond noise; its agent reported no cost: empty. */
	assert_string_equal(c.rec[2][16], "slower");
	assert_string_equal(c.rec[2][17], "0");
	assert_string_equal(c.rec[2][21], "");

	/* hip/c: compile error. */
	assert_string_equal(c.rec[3][2], "0.0000");
	assert_string_equal(c.rec[3][5], "compile_error");
	assert_string_equal(c.rec[3][6], "false");
	assert_string_equal(c.rec[3][7], "false");
	assert_string_equal(c.rec[3][8], "");
	assert_string_equal(c.rec[3][10], "-1.0000");
	assert_string_equal(c.rec[3][12], "");
	assert_string_equal(c.rec[3][16], ""); /* not timed */

	/* hip/d: pending, numbers empty. */
	assert_string_equal(c.rec[4][0], "hip/d");
	assert_string_equal(c.rec[4][1], "hip");
	assert_string_equal(c.rec[4][5], "pending");
	for (int j = 2; j < (int)ARRAY_SIZE(header); j++)
		if (j != 5 && j != 14)
			assert_string_equal(c.rec[4][j], "");
	assert_string_equal(c.rec[4][14], "1");

	/* c2c/e: rejected scores like a wrong answer. */
	assert_string_equal(c.rec[5][2], "20.0000");
	assert_string_equal(c.rec[5][5], "rejected");
	assert_string_equal(c.rec[5][6], "true");
	assert_string_equal(c.rec[5][7], "false");
	csv_free(&c);
	free(s);
	run5_free(&f);
}

static void csv_quotes_commas_quotes_newlines_and_edge_spaces(void **state)
{
	static const char *const summaries[] = {
		"plain", "a,b", "say \"hi\"", "two\nlines", "cr\r\nlf",
		" leading", "trailing ", "\"", ",", "",
	};
	struct task_result r[ARRAY_SIZE(summaries)];
	struct report_row rows[ARRAY_SIZE(summaries)];
	struct csv c;
	char *s;

	for (size_t i = 0; i < ARRAY_SIZE(summaries); i++) {
		make_ok(&r[i], "t", 1.0, 0.99, 1.01);
		r[i].optimization_summary = xstrdup(summaries[i]);
		rows[i] = (struct report_row){ "fam/t,x", (int)i + 1, &r[i] };
	}
	s = report_csv(rows, (int)ARRAY_SIZE(summaries));
	assert_int_equal(csv_parse(s, &c), 0);
	assert_int_equal(c.nrec, (int)ARRAY_SIZE(summaries) + 1);
	for (size_t i = 0; i < ARRAY_SIZE(summaries); i++) {
		assert_int_equal(c.nfield[i + 1], 24);
		assert_string_equal(c.rec[i + 1][0], "fam/t,x");
		assert_string_equal(c.rec[i + 1][4], summaries[i]);
		result_release(&r[i]);
	}
	/* Only fields that need quoting are quoted. */
	assert_non_null(strstr(s, "\n\"fam/t,x\",fam,"));
	assert_non_null(strstr(s, ",plain,ok,"));
	csv_free(&c);
	free(s);
}

static void csv_of_an_empty_run_is_the_header(void **state)
{
	char *s = report_csv(NULL, 0);

	assert_string_equal(s, "Task Name,Task Type,Score,Speedup,"
			       "Optimization_summary,Status,Compiled,Correct,"
			       "Speedup CI Low,Speedup CI High,Reward,Pairs,"
			       "Held-out Correct,Agent Status,Attempt,Variant,"
			       "Versus Baseline,Turns,Input Tokens,"
			       "Cached Input Tokens,Output Tokens,Cost USD,"
			       "Agent Seconds,Eval Seconds\n");
	free(s);
}

/* ---- JSON -------------------------------------------------------------- */

static double jget(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	assert_non_null(v);
	if (cJSON_IsNull(v))
		return NAN;
	assert_true(cJSON_IsNumber(v));
	return v->valuedouble;
}

static void assert_near(double a, double b)
{
	assert_true(fabs(a - b) < 1e-9);
}

static void json_overall_and_family_values(void **state)
{
	struct run5 f;
	char *s;
	cJSON *root, *o, *types, *c2c, *hip, *tasks, *t;

	run5_make(&f);
	s = report_json(&f.meta, f.rows, 5);
	root = cJSON_Parse(s);
	assert_non_null(root);
	assert_string_equal(cJSON_GetObjectItem(root, "run_id")->valuestring,
			    "run_20261201_100000");
	assert_string_equal(cJSON_GetObjectItem(root, "agent")->valuestring,
			    "noop");
	assert_string_equal(
		cJSON_GetObjectItem(root, "target_gpu")->valuestring,
		"host:x86_64");
	assert_string_equal(
		cJSON_GetObjectItem(root, "run_timestamp")->valuestring,
		"2026-12-01T10:00:00Z");
	assert_string_equal(cJSON_GetObjectItem(root, "status")->valuestring,
			    "completed");

	o = cJSON_GetObjectItem(root, "overall");
	assert_near(jget(o, "total_tasks"), 5);
	assert_near(jget(o, "evaluated_tasks"), 4);
	assert_near(jget(o, "pending_tasks"), 1);
	/* 320 + 170 + 0 + 20 */
	assert_near(jget(o, "total_score"), 510);
	assert_near(jget(o, "average_score"), 102);
	assert_near(jget(o, "compilation_pass_count"), 3);
	assert_near(jget(o, "compilation_pass_rate"), 0.6);
	assert_near(jget(o, "correctness_pass_count"), 2);
	assert_near(jget(o, "correctness_pass_rate"), 0.4);
	assert_near(jget(o, "speedup_gt_1_count"), 1);
	assert_near(jget(o, "speedup_gt_1_rate"), 0.2);
	assert_near(jget(o, "significant_speedup_count"), 1);
	assert_near(jget(o, "valid_speedup_count"), 2);
	assert_near(jget(o, "candidate_rejected_count"), 1);
	/* statistics over [0.5, 2.0], as Python computes them. */
	assert_near(jget(o, "average_speedup"), 1.25);
	assert_near(jget(o, "median_speedup"), 1.25);
	assert_near(jget(o, "geomean_speedup"), 1.0);
	assert_near(jget(o, "std_dev_speedup"), 1.0606601717798212);
	assert_near(jget(o, "p25_speedup"), 0.125);
	assert_near(jget(o, "p75_speedup"), 2.375);
	assert_near(jget(o, "p90_speedup"), 3.05);
	/* rewards: 1/3, -1/3, -1, -0.5 over 4 evaluated */
	assert_near(jget(o, "average_reward"), -1.5 / 4);
	assert_near(jget(o, "held_out_evaluated_count"), 1);
	assert_near(jget(o, "held_out_correct_given_visible_rate"), 1.0);
	assert_near(jget(o, "held_out_speedup_retention"), 0.9);

	types = cJSON_GetObjectItem(root, "task_types");
	assert_int_equal(cJSON_GetArraySize(types), 2);
	assert_string_equal(types->child->string, "c2c");
	c2c = cJSON_GetObjectItem(types, "c2c");
	hip = cJSON_GetObjectItem(types, "hip");
	assert_near(jget(c2c, "count"), 3);
	assert_near(jget(c2c, "correctness_pass_rate"), 2.0 / 3);
	assert_near(jget(c2c, "average_score"), 170);
	assert_near(jget(hip, "count"), 2);
	assert_near(jget(hip, "compilation_pass_count"), 0);
	assert_near(jget(hip, "average_speedup"), 0);
	assert_true(isnan(jget(hip, "geomean_speedup")));
	assert_near(jget(hip, "average_reward"), -1.0);

	tasks = cJSON_GetObjectItem(root, "tasks");
	assert_int_equal(cJSON_GetArraySize(tasks), 5);
	t = cJSON_GetArrayItem(tasks, 0);
	assert_string_equal(cJSON_GetObjectItem(t, "task")->valuestring,
			    "c2c/a");
	assert_string_equal(cJSON_GetObjectItem(t, "task_type")->valuestring,
			    "c2c");
	assert_near(jget(t, "speedup"), 2.0);
	assert_near(cJSON_GetArrayItem(cJSON_GetObjectItem(t, "speedup_ci"),
				       1)->valuedouble, 2.1);
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(t, "reason")));
	t = cJSON_GetArrayItem(tasks, 2);
	assert_string_equal(cJSON_GetObjectItem(t, "reason")->valuestring,
			    "kernel.hip:3:5: error: unknown type \x1b[31mfoo");
	t = cJSON_GetArrayItem(tasks, 3);
	assert_string_equal(cJSON_GetObjectItem(t, "status")->valuestring,
			    "pending");
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(t, "score")));
	t = cJSON_GetArrayItem(tasks, 4);
	assert_string_equal(cJSON_GetObjectItem(t, "reason")->valuestring,
			    "input 'x' was modified by the candidate");
	cJSON_Delete(root);
	free(s);
	run5_free(&f);
}

/* No NaN or Inf anywhere: every number in the tree is finite. */
/* What the agents spent, summed per group only over the attempts whose
 * cost is known; the verdicts against the baseline beyond noise; and the
 * per-case detail of an attempt, held-out cases left out. */
static void json_costs_verdicts_and_visible_cases(void **state)
{
	struct run5 f;
	cJSON *root, *o, *c, *t, *cases;
	char *s;

	run5_make(&f);
	result_add_case(&f.res[0], "small", false)->timed = true;
	f.res[0].cases[0].speedup = 2.5;
	f.res[0].cases[0].ci_lo = 2.4;
	f.res[0].cases[0].ci_hi = 2.6;
	result_add_case(&f.res[0], "secret_shape", true)->timed = true;
	f.res[1].agent_turns = 3;
	f.res[1].agent_cost_known = false;
	f.res[1].agent_cost_usd = 0;
	s = report_json(&f.meta, f.rows, 5);
	root = cJSON_Parse(s);
	assert_non_null(root);
	o = cJSON_GetObjectItem(root, "overall");
	assert_near(jget(o, "significant_speedup_count"), 1);
	assert_near(jget(o, "slower_beyond_noise_count"), 1);
	assert_near(jget(o, "within_noise_count"), 0);
	c = cJSON_GetObjectItem(o, "costs");
	assert_near(jget(c, "attempts"), 4);
	assert_near(jget(c, "turns"), 10);
	assert_near(jget(c, "input_tokens"), 1000);
	assert_near(jget(c, "cached_input_tokens"), 400);
	assert_near(jget(c, "output_tokens"), 300);
	assert_near(jget(c, "cost_usd"), 0.25);
	assert_near(jget(c, "cost_known_attempts"), 1);
	assert_near(jget(c, "agent_seconds"), 61.5);
	c = cJSON_GetObjectItem(o, "verdicts");
	assert_near(jget(c, "ok"), 2);
	assert_near(jget(c, "compile_error"), 1);
	assert_near(jget(c, "rejected"), 1);
	assert_near(jget(c, "pending"), 1);
	assert_near(jget(c, "incorrect"), 0);
	/* hip (a compile error, a pending row): no cost known. */
	c = cJSON_GetObjectItem(
		cJSON_GetObjectItem(cJSON_GetObjectItem(root, "task_types"),
				    "hip"),
		"costs");
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(c, "cost_usd")));
	t = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "tasks"), 0);
	assert_string_equal(
		cJSON_GetObjectItem(t, "versus_baseline")->valuestring,
		"faster");
	assert_near(jget(cJSON_GetObjectItem(t, "costs"), "cost_usd"), 0.25);
	cases = cJSON_GetObjectItem(t, "cases");
	assert_int_equal(cJSON_GetArraySize(cases), 1);
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(cases, 0),
						"id")
				    ->valuestring,
			    "small");
	assert_near(jget(cJSON_GetArrayItem(cases, 0), "speedup"), 2.5);
	assert_null(strstr(s, "secret_shape"));
	t = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "tasks"), 1);
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(
		cJSON_GetObjectItem(t, "costs"), "cost_usd")));
	t = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "tasks"), 3);
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(t, "costs")));
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(t, "cases")),
			 0);
	cJSON_Delete(root);
	free(s);
	run5_free(&f);
}

static void assert_all_finite(const cJSON *j)
{
	for (const cJSON *c = j; c; c = c->next) {
		if (cJSON_IsNumber(c))
			assert_true(isfinite(c->valuedouble));
		if (c->child)
			assert_all_finite(c->child);
	}
}

static void json_of_an_empty_run_has_no_nan(void **state)
{
	struct report_meta m = { "r", "a", "d", "t", "created" };
	char *s = report_json(&m, NULL, 0);
	cJSON *root = cJSON_Parse(s), *o;

	assert_non_null(root);
	/* As values (a key such as "infra_error" may hold the letters). */
	assert_null(strstr(s, ": nan"));
	assert_null(strstr(s, ": inf"));
	assert_null(strstr(s, ": -inf"));
	assert_all_finite(root);
	o = cJSON_GetObjectItem(root, "overall");
	assert_near(jget(o, "total_tasks"), 0);
	assert_near(jget(o, "average_score"), 0);
	assert_near(jget(o, "compilation_pass_rate"), 0);
	assert_near(jget(o, "average_speedup"), 0);
	assert_true(isnan(jget(o, "geomean_speedup")));
	assert_true(isnan(jget(o, "average_reward")));
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(root,
							     "task_types")), 0);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(root, "tasks")),
			 0);
	cJSON_Delete(root);
	free(s);
}

static void json_turns_nan_results_into_null(void **state)
{
	struct task_result r;
	struct report_row row = { "c2c/n", 1, &r };
	char *s;
	cJSON *root;

	make_ok(&r, "c2c/n", NAN, NAN, NAN);
	r.reward = INFINITY;
	s = report_json(NULL, &row, 1);
	root = cJSON_Parse(s);
	assert_non_null(root);
	assert_all_finite(root);
	assert_null(strstr(s, "nan"));
	cJSON_Delete(root);
	free(s);
	result_release(&r);
}

/* ---- text -------------------------------------------------------------- */

static void text_has_header_stats_and_one_line_per_task(void **state)
{
	struct run5 f;
	char *s;

	run5_make(&f);
	s = report_text(&f.meta, f.rows, 5);
	assert_non_null(strstr(s, "Run:     run_20261201_100000\n"));
	assert_non_null(strstr(s, "Agent:   noop\n"));
	assert_non_null(strstr(s, "Device:  host:x86_64\n"));
	assert_non_null(strstr(s, "Status:  completed\n"));
	assert_non_null(strstr(s, "OVERALL STATISTICS\n"));
	assert_non_null(strstr(s, "Correct:               2/5 (40.0%)\n"));
	assert_non_null(strstr(s, "Geomean speedup:       1.0000x over 2"));
	assert_non_null(strstr(s, "BY TASK TYPE\n  c2c: 3 tasks"));
	assert_non_null(strstr(s, "\n  hip: 2 tasks"));
	assert_non_null(strstr(s, "BEST SPEEDUPS\n  c2c/a 2.0000x\n"
				  "  c2c/b 0.5000x\n"));
	assert_non_null(strstr(s, "\nPASS c2c/a score 320.0000 speedup 2.0000 "
				  "[1.9000, 2.1000] faster beyond noise "
				  "held-out ok | agent 7 turns, 1000+300 "
				  "tokens, $0.2500, 1m02s\n"));
	assert_non_null(strstr(s, "\nPASS c2c/b score 170.0000 speedup 0.5000 "
				  "[0.4500, 0.5500] slower beyond noise\n"));
	/* Headlines count against the noise, not against 1. */
	assert_non_null(strstr(s, "Faster beyond noise:   1/5 (20.0%)\n"));
	assert_non_null(strstr(s, "Slower beyond noise:   1/5 (20.0%)\n"));
	assert_null(strstr(s, "Speedup > 1"));
	assert_non_null(strstr(s, "Agent costs:           7 turns, 1000 input "
				  "tokens (400 cached), 300 output tokens, "
				  "$0.2500 (known for 1 of 4 attempts), agent "
				  "time 1m02s, evaluation time 4.2s\n"));
	/* The reason is the error line, with the escape byte defused. */
	assert_non_null(strstr(s, "\nFAIL hip/c score 0.0000 speedup 0.0000\n"
				  "    compile_error: kernel.hip:3:5: error: "
				  "unknown type ?[31mfoo\n"));
	assert_null(strchr(s, '\x1b'));
	assert_non_null(strstr(s, "\nPENDING hip/d\n"));
	assert_non_null(strstr(s, "\nPARTIAL c2c/e score 20.0000 speedup "
				  "40.0000 [39.0000, 41.0000]\n    rejected: "
				  "input 'x' was modified by the candidate\n"));
	free(s);
	run5_free(&f);
}

static void text_names_the_devices_when_a_run_used_several(void **state)
{
	struct task_result r[3];
	struct report_row rows[3];
	const char *dev[3] = { "cuda:1 NVIDIA H200 (sm_90)",
			       "cuda:0 NVIDIA H200 (sm_90)",
			       "cuda:1 NVIDIA H200 (sm_90)" };
	char *s;

	for (int i = 0; i < 3; i++) {
		make_ok(&r[i], "c2c/a", 1.0, 0.9, 1.1);
		r[i].device = xstrdup(dev[i]);
		rows[i] = (struct report_row){ "c2c/a", i + 1, &r[i] };
	}
	s = report_text(NULL, rows, 3);
	assert_non_null(strstr(s, "\nRan on:  cuda:0 NVIDIA H200 (sm_90), "
				  "cuda:1 NVIDIA H200 (sm_90)\n"));
	free(s);
	/* One device: no such line. */
	s = report_text(NULL, rows, 1);
	assert_null(strstr(s, "Ran on:"));
	free(s);
	for (int i = 0; i < 3; i++)
		result_release(&r[i]);
}

static void text_labels_attempts_when_a_run_repeats(void **state)
{
	struct task_result r;
	struct report_row rows[2];
	char *s;

	make_ok(&r, "c2c/a", 1.5, 1.4, 1.6);
	rows[0] = (struct report_row){ "c2c/a", 1, &r };
	rows[1] = (struct report_row){ "c2c/a", 2, NULL };
	s = report_text(NULL, rows, 2);
	assert_non_null(strstr(s, "\nPASS c2c/a#1 score 270.0000"));
	assert_non_null(strstr(s, "\nPENDING c2c/a#2\n"));
	free(s);
	result_release(&r);
}

/* An evaluation without the evaluator's confinement is named at the top
 * of the text report; one that never reached the candidate (pending, an
 * infra error) is not counted, and a run whose evaluations were all
 * confined gets no warning. */
static void text_warns_of_unconfined_evaluations(void **state)
{
	struct run5 f;
	char *s;

	run5_make(&f);
	for (int i = 0; i < 4; i++) {
		f.res[i].evaluated_at = xstrdup("2026-12-01T10:00:00Z");
		f.res[i].sandboxed = true;
	}
	s = report_text(&f.meta, f.rows, 5);
	assert_null(strstr(s, "WARNING"));
	free(s);

	f.res[1].sandboxed = false;
	f.res[3].sandboxed = false;
	f.res[3].status = RS_INFRA_ERROR;
	s = report_text(&f.meta, f.rows, 5);
	assert_non_null(
		strstr(s, "Status:  completed\nWARNING: 1 of 3 "
			  "evaluations ran unconfined (sandboxed: false)"));
	free(s);
	run5_free(&f);
}

static void text_of_an_empty_run(void **state)
{
	char *s = report_text(NULL, NULL, 0);

	assert_non_null(strstr(s, "Tasks:                 0 (0 evaluated, "
				  "0 pending)\n"));
	assert_non_null(strstr(s, "TASKS\n  (none)\n"));
	free(s);
}

/* ---- files ------------------------------------------------------------- */

static void write_all_writes_the_four_files(void **state)
{
	struct run5 f;
	char dir[] = "/tmp/test_report_XXXXXX";
	const char *names[] = { "summary.csv", "summary.json", "report.txt",
				"report.html" };
	char *want[4];
	struct errbuf err;

	run5_make(&f);
	assert_non_null(mkdtemp(dir));
	errbuf_init(&err);
	assert_int_equal(report_write_all(dir, &f.meta, f.rows, 5, &err), 0);
	want[0] = report_csv(f.rows, 5);
	want[1] = report_json(&f.meta, f.rows, 5);
	want[2] = report_text(&f.meta, f.rows, 5);
	want[3] = report_html(&f.meta, f.rows, 5);
	for (int i = 0; i < 4; i++) {
		char *path = path_join(dir, names[i]), *got;
		size_t len;

		assert_int_equal(file_read_all(path, 1 << 20, &got, &len,
					       &err), 0);
		assert_string_equal(got, want[i]);
		free(got);
		free(want[i]);
		free(path);
	}
	assert_int_equal(rm_rf(dir), 0);
	/* A directory that does not exist is an error with a message. */
	assert_true(report_write_all("/nonexistent/dir/x", &f.meta, f.rows, 5,
				     &err) < 0);
	assert_true(err.set);
	run5_free(&f);
}

/* An incorrect result with a visible case 'vis1', a held-out case
 * 'ho_secret' and the given message. */
static void make_incorrect(struct task_result *r, const char *message)
{
	result_init(r);
	r->status = RS_INCORRECT;
	r->pass_compilation = true;
	result_add_case(r, "vis1", false);
	result_add_case(r, "ho_secret", true);
	r->correctness_error_message = xstrdup(message);
	result_score(r);
}

/* AKA's dashboard files also go to AKA's run directory (the run's
 * workspace_directory_prefix place), which may lie where agents read: a
 * message about a held-out case is withheld there, as in the agent view
 * (result_view.h), and one about a visible case is kept. */
static void
aka_files_go_to_the_run_directory_without_held_out_messages(void **state)
{
	struct task_result r[2];
	struct report_row rows[2];
	char run[] = "/tmp/test_report_run_XXXXXX",
	     place[] = "/tmp/test_report_place_XXXXXX";
	const char *names[] = { "overall_summary.csv",
				"task_type_breakdown.json",
				"overall_report.txt" };
	struct errbuf err;

	make_incorrect(&r[0], "case 'ho_secret': output 'y' differs at 3");
	make_incorrect(&r[1], "case 'vis1': output 'y' differs at 5");
	rows[0] = (struct report_row){ "c2c/a", 1, &r[0] };
	rows[1] = (struct report_row){ "c2c/b", 1, &r[1] };
	assert_non_null(mkdtemp(run));
	assert_non_null(mkdtemp(place));
	struct report_meta m = { .run_id = "run_20261206_100000",
				 .agent = "noop",
				 .device = "cuda:0",
				 .target_gpu = "MI300",
				 .aka_run_dir = place };
	errbuf_init(&err);
	assert_int_equal(report_write_all(run, &m, rows, 2, &err), 0);
	for (int i = 0; i < 3; i++) {
		char *a = xasprintf("%s/reports/%s", run, names[i]),
		     *b = xasprintf("%s/reports/%s", place, names[i]), *ta, *tb;
		assert_int_equal(file_read_all(a, 1 << 20, &ta, NULL, &err), 0);
		assert_int_equal(file_read_all(b, 1 << 20, &tb, NULL, &err), 0);
		assert_string_equal(ta, tb);
		assert_null(strstr(tb, "ho_secret"));
		if (i == 1)
			assert_non_null(strstr(tb, "\"MI300\""));
		if (i == 2) {
			assert_non_null(strstr(tb, RESULT_WITHHELD));
			assert_non_null(strstr(tb, "case 'vis1'"));
		}
		free(ta);
		free(tb);
		free(a);
		free(b);
	}
	assert_int_equal(rm_rf(run), 0);
	assert_int_equal(rm_rf(place), 0);
	result_release(&r[0]);
	result_release(&r[1]);
}

static void variants_are_grouped_in_csv_json_and_text(void **state)
{
	struct task_result r[2];
	struct report_row rows[2];
	struct report_meta m = { .run_id = "run_x", .agent = "noop" };
	char *csv, *json, *text;

	make_ok(&r[0], "a", 1.0, 0.99, 1.01);
	make_ok(&r[1], "b", 2.0, 1.9, 2.1);
	rows[0] = (struct report_row){ "c2c/t", 1, &r[0], "base" };
	rows[1] = (struct report_row){ "c2c/t", 2, &r[1], "tuned" };
	csv = report_csv(rows, 2);
	assert_non_null(strstr(csv, ",1,base,"));
	assert_non_null(strstr(csv, ",2,tuned,"));
	json = report_json(&m, rows, 2);
	assert_non_null(strstr(json, "\"variants\""));
	assert_non_null(strstr(json, "\"tuned\""));
	text = report_text(&m, rows, 2);
	assert_non_null(strstr(text, "BY AGENT CONFIGURATION"));
	assert_non_null(strstr(text, "c2c/t@tuned"));
	free(csv);
	free(json);
	free(text);
	result_release(&r[0]);
	result_release(&r[1]);
}

static void correctness_only_cases_are_listed_without_held_out_ids(
	void **state)
{
	struct task_result r;
	struct report_row row = { "c2c/a", 1, &r, NULL };
	struct case_result *c;
	char *txt, *js;

	(void)state;
	make_ok(&r, "c2c/a", 2.0, 1.9, 2.1);
	result_add_case(&r, "big", false)->timed = true;
	c = result_add_case(&r, "tiny", false);
	c->correctness_only = true;
	c = result_add_case(&r, "secret_seven", true);
	c->correctness_only = true;
	txt = report_text(NULL, &row, 1);
	assert_non_null(strstr(txt, "    correctness only (checked, not timed, "
				    "not in the speedup): tiny; 1 "
				    "held-out case\n"));
	assert_null(strstr(txt, "secret_seven"));
	js = report_json(NULL, &row, 1);
	cJSON *j = cJSON_Parse(js);
	const cJSON *t = cJSON_GetArrayItem(
		cJSON_GetObjectItemCaseSensitive(j, "tasks"), 0);
	const cJSON *co = cJSON_GetObjectItemCaseSensitive(
		t, "correctness_only_cases");
	assert_int_equal(cJSON_GetArraySize(co), 1);
	assert_string_equal(cJSON_GetArrayItem(co, 0)->valuestring, "tiny");
	assert_int_equal(cJSON_GetObjectItemCaseSensitive(
				 t, "held_out_correctness_only")->valueint, 1);
	assert_null(strstr(js, "secret_seven"));
	cJSON_Delete(j);
	free(txt);
	free(js);
	result_release(&r);
}

/* A run with two agent configurations compares the second with the first
 * in summary.json ("ab"), report.txt and report.html: here "tuned" is
 * about 2x faster than "base" on each of 8 tasks, twice each. */
static void two_configurations_get_an_ab_comparison(void **state)
{
	struct task_result r[32];
	struct report_row rows[32];
	struct report_meta m = { .run_id = "run_x", .agent = "noop" };
	static const char *ids[] = { "c2c/t0", "c2c/t1", "c2c/t2", "c2c/t3",
				     "c2c/t4", "c2c/t5", "c2c/t6", "c2c/t7" };
	char *json, *text, *html;
	cJSON *j, *ab;
	int n = 0;

	for (int t = 0; t < 8; t++)
		for (int a = 1; a <= 4; a++) {
			bool tuned = a % 2 == 0;
			/* The two attempts of a side differ by 1.02^2; the
			 * sides' mean log speedups differ by log 2 exactly. */
			double sp = (tuned ? 2.0 : 1.0) * (1 + 0.01 * t) *
				    (a <= 2 ? 1.02 : 1 / 1.02);

			make_ok(&r[n], ids[t], sp, sp * 0.99, sp * 1.01);
			rows[n] = (struct report_row){ ids[t], a, &r[n],
						       tuned ? "tuned"
							     : "base" };
			n++;
		}
	json = report_json(&m, rows, n);
	j = cJSON_Parse(json);
	assert_non_null(j);
	ab = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "ab"), 0);
	assert_non_null(ab);
	assert_string_equal(cJSON_GetObjectItem(ab, "a")->valuestring, "base");
	assert_string_equal(cJSON_GetObjectItem(ab, "b")->valuestring, "tuned");
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(ab, "differs")));
	assert_near(jget(cJSON_GetObjectItem(cJSON_GetObjectItem(ab,
			"effects"), "speedup"), "ratio"), 2.0);
	assert_int_equal((int)jget(cJSON_GetObjectItem(ab, "verdicts"),
				   "wins"), 8);
	text = report_text(&m, rows, n);
	assert_non_null(strstr(text, "A/B COMPARISON"));
	assert_non_null(strstr(text, "tuned is faster than base: "));
	assert_non_null(strstr(text, "  win  c2c/t7  "));
	html = report_html(&m, rows, n);
	assert_non_null(strstr(html, "<h2>A/B comparison of the agent "
				     "configurations</h2>"));
	/* Drawn from the same numbers, tagged with where summary.json
	 * holds them. */
	assert_non_null(strstr(html, "<span data-k=\"/ab/0/effects/speedup/"
				     "ratio\">"));
	assert_non_null(strstr(html, "tuned is faster than base"));
	free(json);
	free(text);
	free(html);
	cJSON_Delete(j);

	/* One configuration: no comparison. */
	for (int i = 0; i < n; i++)
		rows[i].variant = NULL;
	json = report_json(&m, rows, n);
	assert_null(strstr(json, "\"ab\""));
	text = report_text(&m, rows, n);
	assert_null(strstr(text, "A/B COMPARISON"));
	free(json);
	free(text);
	for (int i = 0; i < n; i++)
		result_release(&r[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(csv_has_aka_columns_then_arenas),
		cmocka_unit_test(
			correctness_only_cases_are_listed_without_held_out_ids),
		cmocka_unit_test(
			csv_quotes_commas_quotes_newlines_and_edge_spaces),
		cmocka_unit_test(csv_of_an_empty_run_is_the_header),
		cmocka_unit_test(variants_are_grouped_in_csv_json_and_text),
		cmocka_unit_test(two_configurations_get_an_ab_comparison),
		cmocka_unit_test(json_overall_and_family_values),
		cmocka_unit_test(json_of_an_empty_run_has_no_nan),
		cmocka_unit_test(json_turns_nan_results_into_null),
		cmocka_unit_test(text_has_header_stats_and_one_line_per_task),
		cmocka_unit_test(
			text_names_the_devices_when_a_run_used_several),
		cmocka_unit_test(text_labels_attempts_when_a_run_repeats),
		cmocka_unit_test(text_warns_of_unconfined_evaluations),
		cmocka_unit_test(text_of_an_empty_run),
		cmocka_unit_test(write_all_writes_the_four_files),
		cmocka_unit_test(
			aka_files_go_to_the_run_directory_without_held_out_messages),
		cmocka_unit_test(json_costs_verdicts_and_visible_cases),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
