/*
 * test_result.c - task_result ownership, source hashes, score and reward,
 * task_result.yaml rendering and the JSON round trip
 * (engine/src/result/result.c).
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
#include <yaml.h>

#include "arena/result.h"
#include "arena/util.h"

/* ---- helpers ----------------------------------------------------------- */

static void assert_dbl_same(double a, double b)
{
	if (isnan(a) && isnan(b))
		return;
	assert_true(a == b);
}

static void assert_str_same(const char *a, const char *b)
{
	if (!a || !b)
		assert_ptr_equal(a, b);
	else
		assert_string_equal(a, b);
}

/* Every field of two results, one by one. */
static void assert_result_same(const struct task_result *a,
			       const struct task_result *b)
{
	assert_str_same(a->task_name, b->task_name);
	assert_int_equal(a->pass_compilation, b->pass_compilation);
	assert_str_same(a->compilation_error_message,
			b->compilation_error_message);
	assert_int_equal(a->pass_correctness, b->pass_correctness);
	assert_str_same(a->correctness_error_message,
			b->correctness_error_message);
	assert_dbl_same(a->base_execution_time, b->base_execution_time);
	assert_dbl_same(a->best_optimized_execution_time,
			b->best_optimized_execution_time);
	assert_dbl_same(a->speedup_ratio, b->speedup_ratio);
	assert_str_same(a->benchmark_method, b->benchmark_method);
	assert_int_equal(a->valid_baseline_cases, b->valid_baseline_cases);
	assert_int_equal(a->valid_optimized_cases, b->valid_optimized_cases);
	assert_str_same(a->speedup_calculation_error_message,
			b->speedup_calculation_error_message);
	assert_str_same(a->optimization_summary, b->optimization_summary);
	assert_int_equal(a->candidate_accepted, b->candidate_accepted);
	assert_dbl_same(a->score, b->score);
	assert_str_same(a->agent_status, b->agent_status);
	assert_str_same(a->agent_error, b->agent_error);
	assert_dbl_same(a->agent_duration_s, b->agent_duration_s);
	assert_int_equal(a->agent_turns, b->agent_turns);
	assert_int_equal(a->agent_input_tokens, b->agent_input_tokens);
	assert_int_equal(a->agent_output_tokens, b->agent_output_tokens);
	assert_dbl_same(a->agent_cost_usd, b->agent_cost_usd);
	assert_int_equal(a->agent_restarts, b->agent_restarts);
	assert_int_equal(a->status, b->status);
	assert_dbl_same(a->reward, b->reward);
	assert_dbl_same(a->speedup_ci_lo, b->speedup_ci_lo);
	assert_dbl_same(a->speedup_ci_hi, b->speedup_ci_hi);
	assert_dbl_same(a->speedup_arith_mean, b->speedup_arith_mean);
	assert_dbl_same(a->noise_floor, b->noise_floor);
	assert_int_equal(a->pairs, b->pairs);
	assert_int_equal(a->ncases, b->ncases);
	for (int i = 0; i < a->ncases; i++) {
		const struct case_result *x = &a->cases[i], *y = &b->cases[i];

		assert_str_same(x->id, y->id);
		assert_int_equal(x->held_out, y->held_out);
		assert_int_equal(x->correct, y->correct);
		assert_str_same(x->error, y->error);
		assert_dbl_same(x->max_abs_err, y->max_abs_err);
		assert_int_equal(x->timed, y->timed);
		assert_int_equal(x->correctness_only, y->correctness_only);
		if (x->timing_note || y->timing_note)
			assert_string_equal(x->timing_note, y->timing_note);
		assert_dbl_same(x->base_ms, y->base_ms);
		assert_dbl_same(x->cand_ms, y->cand_ms);
		assert_dbl_same(x->speedup, y->speedup);
		assert_dbl_same(x->ci_lo, y->ci_lo);
		assert_dbl_same(x->ci_hi, y->ci_hi);
		assert_int_equal(x->pairs, y->pairs);
		assert_int_equal(x->blocks, y->blocks);
	}
	assert_int_equal(a->held_out_evaluated, b->held_out_evaluated);
	assert_int_equal(a->held_out_correct, b->held_out_correct);
	assert_dbl_same(a->held_out_speedup, b->held_out_speedup);
	assert_int_equal(a->nsources, b->nsources);
	for (int i = 0; i < a->nsources; i++) {
		assert_string_equal(a->sources[i].path, b->sources[i].path);
		assert_string_equal(a->sources[i].sha256,
				    b->sources[i].sha256);
	}
	assert_string_equal(a->sources_hash, b->sources_hash);
	assert_true(a->seed == b->seed);
	assert_str_same(a->device, b->device);
	assert_str_same(a->host, b->host);
	assert_str_same(a->compiler, b->compiler);
	assert_str_same(a->evaluator_version, b->evaluator_version);
	assert_str_same(a->evaluated_at, b->evaluated_at);
	assert_dbl_same(a->eval_seconds, b->eval_seconds);
	for (int i = 0; i < RESULT_NPHASES; i++)
		assert_dbl_same(a->phase_s[i], b->phase_s[i]);
	assert_int_equal(a->sandboxed, b->sandboxed);
	assert_int_equal(a->defines.n, b->defines.n);
	for (size_t i = 0; i < a->defines.n; i++)
		assert_string_equal(a->defines.v[i], b->defines.v[i]);
	assert_int_equal(a->integrity.n, b->integrity.n);
	for (size_t i = 0; i < a->integrity.n; i++)
		assert_string_equal(a->integrity.v[i], b->integrity.v[i]);
}

/* A result with every field set to a distinct, awkward value. */
static void make_full(struct task_result *r)
{
	struct case_result *c;
	char sha[65];

	result_init(r);
	r->task_name = xstrdup("c2c/saxpy");
	r->pass_compilation = true;
	r->compilation_error_message =
		xstrdup("warning: x: unused\n  int x;\n      ^\n");
	r->pass_correctness = true;
	r->correctness_error_message = xstrdup("no");
	r->base_execution_time = 1.2345678901234567;
	r->best_optimized_execution_time = 0.1;
	r->speedup_ratio = 2.0000000000000004;
	r->benchmark_method = xstrdup("host_clock_llc_flush");
	r->valid_baseline_cases = 3;
	r->valid_optimized_cases = 2;
	r->speedup_calculation_error_message = xstrdup("");
	r->optimization_summary =
		xstrdup("Optimized by x: \"SIMD\", 4x unroll # done");
	r->candidate_accepted = true;
	r->score = 320.00000000000006;
	r->agent_status = xstrdup("completed");
	r->agent_error = NULL;
	r->agent_duration_s = 123.5;
	r->agent_turns = 17;
	r->agent_input_tokens = 9007199254740000LL;
	r->agent_output_tokens = 4567;
	r->agent_cost_usd = 0.4321;
	r->agent_restarts = 1;
	r->status = RS_OK;
	r->reward = 1.0 / 3.0;
	r->speedup_ci_lo = 1.98;
	r->speedup_ci_hi = NAN;
	r->speedup_arith_mean = 2.1;
	r->noise_floor = 0.015;
	r->pairs = 640;
	c = result_add_case(r, "small", false);
	c->correct = true;
	c->max_abs_err = 1.5e-7;
	c->timed = true;
	c->base_ms = 0.5;
	c->cand_ms = 0.25;
	c->speedup = 2.0;
	c->ci_lo = 1.97;
	c->ci_hi = 2.03;
	c->pairs = 320;
	c->blocks = 8;
	c = result_add_case(r, "tiny", false);
	c->correct = true;
	c->correctness_only = true;
	c->timing_note = xstrdup("correctness only: the baseline's call "
				 "takes 0.41 us, below the timing floor of "
				 "20.0 us");
	c = result_add_case(r, "true", true);
	c->error = xstrdup("output 'y'[3]: 1.5 != 2 (atol 1e-05)");
	c->max_abs_err = 1e300;
	sha256_hex("a", 1, sha);
	result_add_source(r, "kernel.c", sha);
	sha256_hex("b", 1, sha);
	result_add_source(r, "inc/util.h", sha);
	result_hash_sources(r);
	r->held_out_evaluated = true;
	r->held_out_correct = false;
	r->held_out_speedup = 1.75;
	r->seed = 0xfedcba9876543210ull;
	r->device = xstrdup("host:x86_64");
	r->host = xstrdup("node-1");
	r->compiler = xstrdup("cc (Debian 12.2.0-14) 12.2.0");
	r->evaluator_version = xstrdup("arena 0.1.0");
	r->evaluated_at = xstrdup("2026-12-01T10:00:00Z");
	r->eval_seconds = 4.75;
	for (int i = 0; i < RESULT_NPHASES; i++)
		r->phase_s[i] = 0.5 + i * 0.25;
	r->sandboxed = true;
	strvec_push(&r->defines, "BLOCK=128");
	strvec_push(&r->defines, "UNROLL=4");
	strvec_push(&r->integrity, "input 'x' was modified");
}

/* ---- a minimal YAML reader for the tests ------------------------------- */

/* The top-level keys of a YAML mapping, in order, and the value (and
 * quoting style) of one scalar key. */
struct yscan {
	struct strvec keys;
	char *value;
	bool value_quoted;
	bool found;
};

static void yaml_scan(const char *text, const char *want, struct yscan *out)
{
	yaml_parser_t p;
	yaml_event_t ev;
	int depth = 0;
	bool want_key = true, grab = false, done = false;

	memset(out, 0, sizeof(*out));
	strvec_init(&out->keys);
	assert_true(yaml_parser_initialize(&p));
	yaml_parser_set_input_string(&p, (const unsigned char *)text,
				     strlen(text));
	while (!done) {
		assert_true(yaml_parser_parse(&p, &ev));
		switch (ev.type) {
		case YAML_MAPPING_START_EVENT:
		case YAML_SEQUENCE_START_EVENT:
			if (depth == 1) {	/* a container value */
				want_key = true;
				grab = false;
			}
			depth++;
			break;
		case YAML_MAPPING_END_EVENT:
		case YAML_SEQUENCE_END_EVENT:
			depth--;
			break;
		case YAML_SCALAR_EVENT:
			if (depth != 1)
				break;
			if (want_key) {
				const char *k =
					(const char *)ev.data.scalar.value;

				strvec_push(&out->keys, k);
				grab = want && strcmp(k, want) == 0;
				want_key = false;
			} else {
				if (grab) {
					out->value = xstrdup((const char *)
							     ev.data.scalar.value);
					out->value_quoted =
						ev.data.scalar.style !=
						YAML_PLAIN_SCALAR_STYLE;
					out->found = true;
				}
				grab = false;
				want_key = true;
			}
			break;
		case YAML_STREAM_END_EVENT:
			done = true;
			break;
		default:
			break;
		}
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&p);
}

static void yscan_release(struct yscan *s)
{
	strvec_release(&s->keys);
	free(s->value);
}

/* ---- status ------------------------------------------------------------ */

static void status_names_round_trip(void **state)
{
	const char *names[] = { "not_evaluated", "compile_error",
				"runtime_error", "timeout", "incorrect",
				"rejected", "ok", "infra_error" };
	enum result_status s;

	for (int i = 0; i < 8; i++) {
		assert_string_equal(result_status_name((enum result_status)i),
				    names[i]);
		assert_int_equal(result_status_parse(names[i], &s), 0);
		assert_int_equal(s, i);
	}
	assert_int_equal(result_status_parse("OK", &s), -EINVAL);
	assert_int_equal(result_status_parse("", &s), -EINVAL);
	assert_int_equal(result_status_parse(NULL, &s), -EINVAL);
	assert_string_equal(result_status_name((enum result_status)99),
			    "unknown");
}

/* ---- lifetime and sources ---------------------------------------------- */

static void init_gives_empty_result_and_release_is_repeatable(void **state)
{
	struct task_result r;

	result_init(&r);
	assert_int_equal(r.status, RS_NOT_EVALUATED);
	assert_null(r.task_name);
	assert_int_equal(r.ncases, 0);
	assert_int_equal(r.nsources, 0);
	assert_string_equal(r.sources_hash, "");
	result_release(&r);
	result_release(&r);
}

static void sources_stay_sorted_and_unique(void **state)
{
	struct task_result r;
	char a[65], b[65];

	sha256_hex("a", 1, a);
	sha256_hex("b", 1, b);
	result_init(&r);
	result_add_source(&r, "z.c", a);
	result_add_source(&r, "a.c", a);
	result_add_source(&r, "m/k.h", a);
	result_add_source(&r, "a.c", b);
	assert_int_equal(r.nsources, 3);
	assert_string_equal(r.sources[0].path, "a.c");
	assert_string_equal(r.sources[0].sha256, b);
	assert_string_equal(r.sources[1].path, "m/k.h");
	assert_string_equal(r.sources[2].path, "z.c");
	result_release(&r);
}

static void sources_hash_is_sha256_of_path_nul_sha_lines(void **state)
{
	struct task_result r1, r2;
	char a[65], b[65], want[65];
	struct strbuf sb = STRBUF_INIT;

	sha256_hex("a", 1, a);
	sha256_hex("b", 1, b);
	result_init(&r1);
	result_init(&r2);
	result_add_source(&r1, "kernel.c", a);
	result_add_source(&r1, "inc/u.h", b);
	result_add_source(&r2, "inc/u.h", b);
	result_add_source(&r2, "kernel.c", a);
	result_hash_sources(&r1);
	result_hash_sources(&r2);
	assert_string_equal(r1.sources_hash, r2.sources_hash);

	strbuf_add(&sb, "inc/u.h", 8);	/* with its NUL */
	strbuf_addf(&sb, "%s\n", b);
	strbuf_add(&sb, "kernel.c", 9);
	strbuf_addf(&sb, "%s\n", a);
	sha256_hex(sb.buf, sb.len, want);
	assert_string_equal(r1.sources_hash, want);

	/* A different hash for any change of content. */
	result_add_source(&r2, "kernel.c", b);
	result_hash_sources(&r2);
	assert_string_not_equal(r1.sources_hash, r2.sources_hash);
	strbuf_release(&sb);
	result_release(&r1);
	result_release(&r2);
}

static void copy_is_deep(void **state)
{
	struct task_result a, b;

	make_full(&a);
	result_copy(&b, &a);
	assert_result_same(&a, &b);
	assert_ptr_not_equal(a.task_name, b.task_name);
	assert_ptr_not_equal(a.cases, b.cases);
	assert_ptr_not_equal(a.cases[0].id, b.cases[0].id);
	assert_ptr_not_equal(a.sources[0].path, b.sources[0].path);
	assert_ptr_not_equal(a.defines.v[0], b.defines.v[0]);
	result_release(&a);
	/* b survives a's release (ASan would catch a shared pointer). */
	assert_string_equal(b.cases[2].id, "true");
	assert_non_null(strstr(b.cases[1].timing_note, "timing floor"));
	result_release(&b);
}

/* ---- score and reward -------------------------------------------------- */

static void aka_score_is_0_20_or_120_plus_100_speedup(void **state)
{
	assert_true(score_aka(false, false, 3.0) == 0.0);
	assert_true(score_aka(false, true, 3.0) == 0.0);
	assert_true(score_aka(true, false, 3.0) == 20.0);
	assert_true(score_aka(true, true, 1.0) == 220.0);
	assert_true(score_aka(true, true, 1.5) == 270.0);
	assert_true(score_aka(true, true, 0.5) == 170.0);
	/* Unmeasured: 120, as AgentKernelArena. */
	assert_true(score_aka(true, true, 0.0) == 120.0);
	assert_true(score_aka(true, true, NAN) == 120.0);
	assert_true(score_aka(true, true, -2.0) == 120.0);
}

static void reward_is_capped_log_with_a_noise_dead_zone(void **state)
{
	const double nf = 0.01;

	assert_true(reward_capped_log(false, false, 2, 1.9, 2.1, nf) == -1.0);
	assert_true(reward_capped_log(true, false, 2, 1.9, 2.1, nf) == -0.5);
	/* 8x earns 1, 2x a third, 0.5x minus a third. */
	assert_true(fabs(reward_capped_log(true, true, 8, 7.9, 8.1, nf) - 1) <
		    1e-12);
	assert_true(fabs(reward_capped_log(true, true, 2, 1.9, 2.1, nf) -
			 1.0 / 3) < 1e-12);
	assert_true(fabs(reward_capped_log(true, true, 0.5, 0.45, 0.55, nf) +
			 1.0 / 3) < 1e-12);
	/* Caps. */
	assert_true(reward_capped_log(true, true, 100, 90, 110, nf) == 1.0);
	assert_true(reward_capped_log(true, true, 0.1, 0.09, 0.11, nf) ==
		    -0.5);
	/* An interval that reaches into [0.99, 1.01] earns nothing, even
	 * with a point outside it. */
	assert_true(reward_capped_log(true, true, 1.02, 1.005, 1.04, nf) ==
		    0.0);
	assert_true(reward_capped_log(true, true, 0.98, 0.95, 0.995, nf) ==
		    0.0);
	assert_true(reward_capped_log(true, true, 1.0, 0.999, 1.001, nf) ==
		    0.0);
	/* Clear of the floor: the log reward. */
	assert_true(fabs(reward_capped_log(true, true, 1.03, 1.02, 1.04, nf) -
			 log2(1.03) / 3) < 1e-12);
	/* No interval: the point decides. */
	assert_true(reward_capped_log(true, true, 1.005, 0, 0, nf) == 0.0);
	assert_true(fabs(reward_capped_log(true, true, 2, NAN, NAN, nf) -
			 1.0 / 3) < 1e-12);
	/* Correct but not timed. */
	assert_true(reward_capped_log(true, true, 0, 0, 0, nf) == 0.0);
}

static void result_score_follows_status_and_flags(void **state)
{
	struct task_result r;

	result_init(&r);
	r.status = RS_COMPILE_ERROR;
	result_score(&r);
	assert_true(r.score == 0.0 && r.reward == -1.0);

	r.status = RS_INCORRECT;
	r.pass_compilation = true;
	result_score(&r);
	assert_true(r.score == 20.0 && r.reward == -0.5);

	/* A rejected candidate scores like a wrong one, whatever its flags
	 * and speedup say. */
	r.status = RS_REJECTED;
	r.pass_correctness = true;
	r.candidate_accepted = true;
	r.speedup_ratio = 50.0;
	result_score(&r);
	assert_true(r.score == 20.0 && r.reward == -0.5);

	/* Crashed while being timed: not correct. */
	r.status = RS_RUNTIME_ERROR;
	result_score(&r);
	assert_true(r.score == 20.0 && r.reward == -0.5);

	r.status = RS_OK;
	r.speedup_ratio = 2.0;
	r.speedup_ci_lo = 1.95;
	r.speedup_ci_hi = 2.05;
	r.noise_floor = 0.01;
	result_score(&r);
	assert_true(r.score == 320.0);
	assert_true(fabs(r.reward - 1.0 / 3) < 1e-12);

	/* Not accepted: compiled but not correct. */
	r.candidate_accepted = false;
	result_score(&r);
	assert_true(r.score == 20.0 && r.reward == -0.5);

	/* Infrastructure failures carry no reward. */
	r.candidate_accepted = true;
	r.status = RS_INFRA_ERROR;
	result_score(&r);
	assert_true(r.reward == 0.0);

	r.status = RS_NOT_EVALUATED;
	r.pass_compilation = false;
	result_score(&r);
	assert_true(r.score == 0.0 && r.reward == 0.0);
	result_release(&r);
}

static void score_line_has_four_decimals(void **state)
{
	struct task_result r;
	char *line;

	result_init(&r);
	r.score = 283.456789;
	line = result_score_line(&r);
	assert_string_equal(line, "283.4568\n");
	free(line);
	result_release(&r);
}

/* ---- YAML -------------------------------------------------------------- */

static void yaml_keys_follow_aka_then_arena_order(void **state)
{
	static const char *const want[] = {
		"task_name",
		"pass_compilation",
		"compilation_error_message",
		"pass_correctness",
		"correctness_error_message",
		"base_execution_time",
		"best_optimized_execution_time",
		"speedup_ratio",
		"baseline_benchmark_methods",
		"optimized_benchmark_methods",
		"benchmark_method_consistent",
		"valid_baseline_cases",
		"valid_optimized_cases",
		"speedup_calculation_error_message",
		"optimization_summary",
		"agent_execution",
		"candidate_accepted",
		"score",
		"status",
		"reward",
		"speedup_ci",
		"speedup_arith_mean",
		"noise_floor",
		"pairs",
		"cases",
		"held_out",
		"evaluated_sources",
		"sources_hash",
		"seed",
		"runtime",
		"evaluated_at",
		"eval_seconds",
		"eval_phases",
		"sandboxed",
		"defines",
		"integrity",
	};
	struct task_result r;
	struct yscan s;
	char *y;

	make_full(&r);
	y = result_to_yaml(&r);
	assert_non_null(y);
	yaml_scan(y, NULL, &s);
	assert_int_equal(s.keys.n, ARRAY_SIZE(want));
	for (size_t i = 0; i < ARRAY_SIZE(want); i++)
		assert_string_equal(s.keys.v[i], want[i]);
	yscan_release(&s);
	free(y);
	result_release(&r);
}

static void yaml_strings_read_back_exactly(void **state)
{
	struct task_result r;
	struct yscan s;
	char *y;

	make_full(&r);
	y = result_to_yaml(&r);

	yaml_scan(y, "compilation_error_message", &s);
	assert_true(s.found);
	assert_string_equal(s.value, r.compilation_error_message);
	yscan_release(&s);

	yaml_scan(y, "optimization_summary", &s);
	assert_string_equal(s.value, r.optimization_summary);
	yscan_release(&s);

	/* "no" written plain would be a boolean to YAML 1.1. */
	yaml_scan(y, "correctness_error_message", &s);
	assert_string_equal(s.value, "no");
	assert_true(s.value_quoted);
	yscan_release(&s);

	/* "" is a string, not null; NULL is null. */
	yaml_scan(y, "speedup_calculation_error_message", &s);
	assert_string_equal(s.value, "");
	assert_true(s.value_quoted);
	yscan_release(&s);
	assert_non_null(strstr(y, "\nagent_execution:\n  status: completed\n"
				  "  error: null\n"));

	yaml_scan(y, "seed", &s);
	assert_string_equal(s.value, "18364758544493064720");
	yscan_release(&s);

	yaml_scan(y, "status", &s);
	assert_string_equal(s.value, "ok");
	yscan_release(&s);
	free(y);
	result_release(&r);
}

static void yaml_numbers_are_floats_and_nan_is_null(void **state)
{
	struct task_result r;
	char *y;

	make_full(&r);
	y = result_to_yaml(&r);
	assert_non_null(strstr(y, "\nscore: 320.00000000000006\n"));
	assert_non_null(strstr(y, "\nspeedup_ci: [1.98, null]\n"));
	assert_non_null(strstr(y, "\nbase_execution_time: 1.2345678901234567\n"));
	/* Integral values and exponents still read as floats. */
	assert_non_null(strstr(y, "  base_ms: 0.5\n"));
	assert_non_null(strstr(y, "  max_abs_err: 1.0e+300\n"));
	assert_non_null(strstr(y, "  duration_s: 123.5\n"));
	assert_non_null(strstr(y, "  turns: 17\n"));
	assert_non_null(strstr(y, "\nbaseline_benchmark_methods: "
				  "[host_clock_llc_flush]\n"));
	assert_non_null(strstr(y, "\nbenchmark_method_consistent: true\n"));
	assert_non_null(strstr(y, "\ndefines:\n- BLOCK=128\n- UNROLL=4\n"));
	free(y);
	result_release(&r);
}

static void yaml_replaces_invalid_utf8(void **state)
{
	struct task_result r;
	char *y;

	result_init(&r);
	r.task_name = xstrdup("t");
	r.compilation_error_message = xstrdup("bad \xff\xfe byte\x01");
	y = result_to_yaml(&r);
	assert_non_null(y);
	assert_non_null(strstr(y, "bad \xef\xbf\xbd\xef\xbf\xbd byte"));
	free(y);
	result_release(&r);
}

static void utf8_sanitize_rejects_what_rfc3629_rejects(void **state)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "plain", "plain" },
		{ "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
		  "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80" },
		{ "\xc0\xaf", "\xef\xbf\xbd\xef\xbf\xbd" },	/* overlong */
		{ "\xed\xa0\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },
		{ "\xf4\x90\x80\x80x",
		  "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbdx" },
		{ "\xe2\x82", "\xef\xbf\xbd\xef\xbf\xbd" },	/* truncated */
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char *s = result_utf8_sanitize(cases[i].in);

		assert_string_equal(s, cases[i].out);
		free(s);
	}
	assert_null(result_utf8_sanitize(NULL));
}

/* ---- JSON -------------------------------------------------------------- */

static void json_round_trip_keeps_every_field(void **state)
{
	struct task_result a, b;
	struct errbuf err;
	char *j1, *j2;

	make_full(&a);
	j1 = result_to_json(&a);
	assert_non_null(j1);
	errbuf_init(&err);
	assert_int_equal(result_from_json(j1, &b, &err), 0);
	assert_false(err.set);
	assert_result_same(&a, &b);
	/* And the second rendering is byte-identical. */
	j2 = result_to_json(&b);
	assert_string_equal(j1, j2);
	free(j1);
	free(j2);
	result_release(&a);
	result_release(&b);
}

static void json_round_trip_of_an_empty_result(void **state)
{
	struct task_result a, b;
	char *j;

	result_init(&a);
	a.task_name = xstrdup("x/y");
	j = result_to_json(&a);
	assert_int_equal(result_from_json(j, &b, NULL), 0);
	assert_result_same(&a, &b);
	free(j);
	result_release(&a);
	result_release(&b);
}

static void json_missing_keys_keep_defaults(void **state)
{
	struct task_result r;

	assert_int_equal(result_from_json(
				 "{\"task_name\":\"t\",\"status\":\"ok\","
				 "\"seed\":12345}", &r, NULL), 0);
	assert_string_equal(r.task_name, "t");
	assert_int_equal(r.status, RS_OK);
	assert_true(r.seed == 12345);
	assert_int_equal(r.ncases, 0);
	assert_null(r.agent_status);
	result_release(&r);
}

static void json_rejects_hostile_input_without_crashing(void **state)
{
	static const char *const bad[] = {
		"",
		"null",
		"[]",
		"{}",
		"{\"task_name\":\"t\"}",
		"{\"task_name\":1,\"status\":\"ok\"}",
		"{\"task_name\":\"t\",\"status\":\"great\"}",
		"{\"task_name\":\"t\",\"status\":\"ok\"} trailing",
		"{\"task_name\":\"t\",\"status\":\"ok\",\"pass_compilation\":1}",
		"{\"task_name\":\"t\",\"status\":\"ok\",\"score\":\"high\"}",
		"{\"task_name\":\"t\",\"status\":\"ok\",\"pairs\":1.5}",
		"{\"task_name\":\"t\",\"status\":\"ok\",\"pairs\":1e300}",
		"{\"task_name\":\"t\",\"status\":\"ok\",\"cases\":{}}",
		"{\"task_name\":\"t\",\"status\":\"ok\",\"cases\":[1]}",
		"{\"task_name\":\"t\",\"status\":\"ok\",\"cases\":[{}]}",
		"{\"task_name\":\"t\",\"status\":\"ok\",\"cases\":"
		"[{\"id\":\"a\",\"speedup_ci\":[1]}]}",
		"{\"task_name\":\"t\",\"status\":\"ok\",\"cases\":"
		"[{\"id\":\"a\",\"blocks\":-1}]}",
		"{\"task_name\":\"t\",\"status\":\"ok\",\"seed\":\"abc\"}",
		"{\"task_name\":\"t\",\"status\":\"ok\",\"seed\":\"-1\"}",
		"{\"task_name\":\"t\",\"status\":\"ok\","
		"\"seed\":\"18446744073709551616\"}",
		"{\"task_name\":\"t\",\"status\":\"ok\",\"seed\":-3}",
		"{\"task_name\":\"t\",\"status\":\"ok\","
		"\"evaluated_sources\":{\"a.c\":\"xyz\"}}",
		"{\"task_name\":\"t\",\"status\":\"ok\","
		"\"evaluated_sources\":[]}",
		"{\"task_name\":\"t\",\"status\":\"ok\",\"sources_hash\":\"ab\"}",
		"{\"task_name\":\"t\",\"status\":\"ok\",\"defines\":[1]}",
		"{\"task_name\":\"t\",\"status\":\"ok\",\"integrity\":\"x\"}",
		"{\"task_name\":\"t\",\"status\":\"ok\","
		"\"agent_execution\":{\"turns\":\"3\"}}",
		"{\"task_name\":\"t\",\"status\":\"ok\",\"runtime\":[]}",
		"{\"task_name\":\"t\",\"status\":\"ok\","
		"\"baseline_benchmark_methods\":[7]}",
		"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[",
		"{\"task_name\":\"t\",\"status\":\"ok\",\"cases\":"
		"[{\"id\":\"a\"},{\"id\":\"b\",\"pairs\":\"x\"}]}",
	};

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct task_result r;
		struct errbuf err;

		errbuf_init(&err);
		assert_true(result_from_json(bad[i], &r, &err) < 0);
		assert_true(err.set);
		assert_true(str_starts_with(err.msg, "result JSON: "));
		/* Left empty, safe to release. */
		assert_null(r.task_name);
		assert_int_equal(r.ncases, 0);
		result_release(&r);
	}
	{
		struct task_result r;

		assert_true(result_from_json(NULL, &r, NULL) < 0);
		result_release(&r);
	}
}

static void json_error_names_the_key(void **state)
{
	struct task_result r;
	struct errbuf err;

	errbuf_init(&err);
	assert_true(result_from_json("{\"task_name\":\"t\",\"status\":\"ok\","
				     "\"cases\":[{\"id\":\"a\"},{\"id\":\"b\","
				     "\"timed\":1}]}", &r, &err) < 0);
	assert_non_null(strstr(err.msg, "cases[1].timed"));
	result_release(&r);
}

/* A candidate rejected in the timing phase passed its correctness check
 * (pass_correctness stays set) but is not correct for the score; the
 * summary agents and exports read says what the score says. */
static void summary_says_correct_as_the_score_counts_it(void **state)
{
	struct task_result r;
	(void)state;

	result_init(&r);
	r.status = RS_REJECTED;
	r.pass_compilation = true;
	r.pass_correctness = true;
	r.speedup_ratio = 3.0;
	result_score(&r);
	cJSON *o = cJSON_CreateObject();
	result_summary_add(o, &r, 0);
	assert_true(cJSON_IsFalse(cJSON_GetObjectItem(o, "correct")));
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(o, "compiled")));
	assert_string_equal(cJSON_GetObjectItem(o, "status")->valuestring,
			    result_status_name(RS_REJECTED));
	assert_null(cJSON_GetObjectItem(o, "reward"));
	assert_null(cJSON_GetObjectItem(o, "sandboxed"));
	cJSON_Delete(o);
	result_release(&r);
}

/* The keys and their order are the documented ones (docs/agents-cli.md
 * traces, docs/results.md episodes), whatever the flags add. */
static void summary_keys_come_in_documented_order(void **state)
{
	static const char *const want[] = {
		"status", "compiled", "correct", "speedup", "speedup_ci_lo",
		"speedup_ci_hi", "noise_floor", "held_out_evaluated",
		"held_out_correct", "held_out_speedup", "score", "reward",
		"sources_hash", "device", "evaluator_version", "sandboxed",
	};
	struct task_result r;
	size_t i = 0;
	(void)state;

	result_init(&r);
	r.device = strdup("host");
	r.evaluator_version = strdup("arena-eval/1");
	cJSON *o = cJSON_CreateObject();
	result_summary_add(o, &r, RESULT_SUMMARY_HELD_OUT |
			   RESULT_SUMMARY_REWARD | RESULT_SUMMARY_IDENTITY);
	for (cJSON *k = o->child; k; k = k->next, i++) {
		assert_true(i < sizeof(want) / sizeof(want[0]));
		assert_string_equal(k->string, want[i]);
	}
	assert_int_equal(i, sizeof(want) / sizeof(want[0]));
	cJSON_Delete(o);
	result_release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(status_names_round_trip),
		cmocka_unit_test(
			init_gives_empty_result_and_release_is_repeatable),
		cmocka_unit_test(sources_stay_sorted_and_unique),
		cmocka_unit_test(sources_hash_is_sha256_of_path_nul_sha_lines),
		cmocka_unit_test(copy_is_deep),
		cmocka_unit_test(aka_score_is_0_20_or_120_plus_100_speedup),
		cmocka_unit_test(reward_is_capped_log_with_a_noise_dead_zone),
		cmocka_unit_test(result_score_follows_status_and_flags),
		cmocka_unit_test(score_line_has_four_decimals),
		cmocka_unit_test(yaml_keys_follow_aka_then_arena_order),
		cmocka_unit_test(yaml_strings_read_back_exactly),
		cmocka_unit_test(yaml_numbers_are_floats_and_nan_is_null),
		cmocka_unit_test(yaml_replaces_invalid_utf8),
		cmocka_unit_test(utf8_sanitize_rejects_what_rfc3629_rejects),
		cmocka_unit_test(json_round_trip_keeps_every_field),
		cmocka_unit_test(json_round_trip_of_an_empty_result),
		cmocka_unit_test(json_missing_keys_keep_defaults),
		cmocka_unit_test(json_rejects_hostile_input_without_crashing),
		cmocka_unit_test(json_error_names_the_key),
		cmocka_unit_test(summary_says_correct_as_the_score_counts_it),
		cmocka_unit_test(summary_keys_come_in_documented_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
