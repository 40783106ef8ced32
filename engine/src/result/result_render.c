/*
 * result_render.c - a result's two renderings (arena/result.h):
 * task_result.yaml for people and agents (result_to_yaml, and the one
 * number `cat score` prints) and the JSON the store keeps
 * (result_to_json).  docs/results.md documents every key.
 *
 * One schema, two renderings: result_walk() visits every field in the
 * documented key order and hands each to a sink; the YAML sink drives
 * libyaml's emitter, the JSON sink builds a cJSON tree.  So the two forms
 * cannot drift apart in key names or order.  The JSON reader
 * (result_read.c) mirrors result_walk() by hand.
 *
 * Invariants: both renderings emit valid UTF-8 (an invalid sequence in a
 * string becomes U+FFFD); finite numbers are written so that they read
 * back exactly; NaN and infinities are written as null.
 */
#include "arena/result.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>
#include <yaml.h>

/* ---- the schema walk --------------------------------------------------- */

/* A sink receives the fields in order.  key is NULL inside a list. */
struct sink {
	void *ctx;
	void (*open)(void *ctx, const char *key, bool list, bool flow);
	void (*close)(void *ctx);
	void (*str)(void *ctx, const char *key, const char *v);	/* NULL: null */
	void (*num)(void *ctx, const char *key, double v);
	void (*integer)(void *ctx, const char *key, int64_t v);
	void (*u64)(void *ctx, const char *key, uint64_t v);
	void (*boolean)(void *ctx, const char *key, bool v);
};

static void walk_pair(const struct sink *s, const char *key, double lo,
		      double hi)
{
	s->open(s->ctx, key, true, true);
	s->num(s->ctx, NULL, lo);
	s->num(s->ctx, NULL, hi);
	s->close(s->ctx);
}

static void walk_strvec(const struct sink *s, const char *key,
			const struct strvec *sv)
{
	s->open(s->ctx, key, true, false);
	for (size_t i = 0; i < sv->n; i++)
		s->str(s->ctx, NULL, sv->v[i]);
	s->close(s->ctx);
}

/* arena times baseline and candidate with one method, so both lists hold
 * that one method (or nothing when none was recorded). */
static void walk_method_list(const struct sink *s, const char *key,
			     const char *method)
{
	s->open(s->ctx, key, true, true);
	if (method)
		s->str(s->ctx, NULL, method);
	s->close(s->ctx);
}

static void walk_case(const struct sink *s, const struct case_result *c)
{
	void *x = s->ctx;

	s->open(x, NULL, false, false);
	s->str(x, "id", c->id);
	s->boolean(x, "held_out", c->held_out);
	s->boolean(x, "correct", c->correct);
	s->str(x, "error", c->error);
	s->num(x, "max_abs_err", c->max_abs_err);
	s->boolean(x, "timed", c->timed);
	if (c->correctness_only)
		s->boolean(x, "correctness_only", true);
	if (c->timing_note)
		s->str(x, "timing_note", c->timing_note);
	s->num(x, "base_ms", c->base_ms);
	s->num(x, "cand_ms", c->cand_ms);
	s->num(x, "speedup", c->speedup);
	walk_pair(s, "speedup_ci", c->ci_lo, c->ci_hi);
	s->integer(x, "pairs", c->pairs);
	s->integer(x, "blocks", c->blocks);
	if (c->roofline_ms > 0)
		s->num(x, "roofline_ms", c->roofline_ms);
	s->close(x);
}

/* eval_phases: where eval_seconds went, when it was measured (a result
 * made by other means - a test, an old store - has none). */
static void walk_phases(const struct sink *s, const struct task_result *r)
{
	bool any = false;

	for (int i = 0; i < RESULT_NPHASES; i++)
		any = any || r->phase_s[i] > 0;
	if (!any)
		return;
	s->open(s->ctx, "eval_phases", false, true);
	for (int i = 0; i < RESULT_NPHASES; i++)
		s->num(s->ctx, result_phase_names[i], r->phase_s[i]);
	s->close(s->ctx);
}

static void result_walk(const struct task_result *r, const struct sink *s)
{
	void *x = s->ctx;
	bool base_timed = r->valid_baseline_cases > 0;
	bool opt_timed = r->valid_optimized_cases > 0;

	/* AgentKernelArena's keys, in its order (aka.md §3.8). */
	s->str(x, "task_name", r->task_name);
	s->boolean(x, "pass_compilation", r->pass_compilation);
	s->str(x, "compilation_error_message", r->compilation_error_message);
	s->boolean(x, "pass_correctness", r->pass_correctness);
	s->str(x, "correctness_error_message", r->correctness_error_message);
	s->num(x, "base_execution_time", r->base_execution_time);
	s->num(x, "best_optimized_execution_time",
	       r->best_optimized_execution_time);
	s->num(x, "speedup_ratio", r->speedup_ratio);
	walk_method_list(s, "baseline_benchmark_methods",
			 r->benchmark_method);
	walk_method_list(s, "optimized_benchmark_methods",
			 r->benchmark_method);
	s->boolean(x, "benchmark_method_consistent",
		   r->benchmark_method && base_timed && opt_timed);
	s->integer(x, "valid_baseline_cases", r->valid_baseline_cases);
	s->integer(x, "valid_optimized_cases", r->valid_optimized_cases);
	s->str(x, "speedup_calculation_error_message",
	       r->speedup_calculation_error_message);
	s->str(x, "optimization_summary", r->optimization_summary);
	s->open(x, "agent_execution", false, false);
	s->str(x, "status", r->agent_status);
	s->str(x, "error", r->agent_error);
	s->num(x, "duration_s", r->agent_duration_s);
	s->integer(x, "turns", r->agent_turns);
	s->integer(x, "input_tokens", r->agent_input_tokens);
	s->integer(x, "output_tokens", r->agent_output_tokens);
	s->integer(x, "cached_input_tokens", r->agent_cached_tokens);
	s->num(x, "cost_usd", r->agent_cost_usd);
	s->boolean(x, "cost_known", r->agent_cost_known);
	s->integer(x, "restarts", r->agent_restarts);
	s->boolean(x, "sandboxed", r->agent_sandboxed);
	s->str(x, "variant", r->agent_variant);
	s->close(x);
	s->boolean(x, "candidate_accepted", r->candidate_accepted);
	s->num(x, "score", r->score);

	/* arena's own. */
	s->str(x, "status", result_status_name(r->status));
	s->num(x, "reward", r->reward);
	walk_pair(s, "speedup_ci", r->speedup_ci_lo, r->speedup_ci_hi);
	s->num(x, "speedup_arith_mean", r->speedup_arith_mean);
	s->num(x, "noise_floor", r->noise_floor);
	s->integer(x, "pairs", r->pairs);
	s->open(x, "cases", true, false);
	for (int i = 0; i < r->ncases; i++)
		walk_case(s, &r->cases[i]);
	s->close(x);
	s->open(x, "held_out", false, false);
	s->boolean(x, "evaluated", r->held_out_evaluated);
	s->boolean(x, "correct", r->held_out_correct);
	s->num(x, "speedup", r->held_out_speedup);
	s->close(x);
	s->open(x, "evaluated_sources", false, false);
	for (int i = 0; i < r->nsources; i++)
		s->str(x, r->sources[i].path, r->sources[i].sha256);
	s->close(x);
	s->str(x, "sources_hash", r->sources_hash[0] ? r->sources_hash : NULL);
	s->u64(x, "seed", r->seed);
	s->open(x, "runtime", false, false);
	s->str(x, "device", r->device);
	s->str(x, "host", r->host);
	s->str(x, "compiler", r->compiler);
	s->str(x, "evaluator_version", r->evaluator_version);
	s->close(x);
	s->str(x, "evaluated_at", r->evaluated_at);
	s->num(x, "eval_seconds", r->eval_seconds);
	walk_phases(s, r);
	s->boolean(x, "sandboxed", r->sandboxed);
	walk_strvec(s, "defines", &r->defines);
	walk_strvec(s, "integrity", &r->integrity);
}

/* ---- YAML sink --------------------------------------------------------- */

struct ysink {
	yaml_emitter_t em;
	struct strbuf out;
	bool in_list[16];	/* per open container: list (no keys)? */
	int depth;
	bool failed;
};

static int y_write(void *data, unsigned char *buf, size_t size)
{
	strbuf_add(data, buf, size);
	return 1;
}

static void y_emit(struct ysink *y, yaml_event_t *ev, int ok)
{
	/* yaml_emitter_emit owns the event from here, success or not. */
	if (!ok || !yaml_emitter_emit(&y->em, ev))
		y->failed = true;
}

/* Untagged scalars: both implicit flags set, so libyaml may quote any of
 * them without adding a tag. */
static void y_scalar(struct ysink *y, const char *v, yaml_scalar_style_t st)
{
	yaml_event_t ev;
	int ok;

	if (y->failed)
		return;
	/* The emitter checks UTF-8 itself; cast because its API is not
	 * const-correct. */
	ok = yaml_scalar_event_initialize(&ev, NULL, NULL,
					  (yaml_char_t *)(uintptr_t)v,
					  (int)strlen(v), 1, 1, st);
	y_emit(y, &ev, ok);
}

/* Would this string, written plain, read back as something other than a
 * string under YAML 1.1 (PyYAML) or 1.2?  Conservative: anything starting
 * like a number, and the null / boolean words. */
static bool y_plain_ambiguous(const char *s)
{
	static const char *const words[] = {
		"null", "Null", "NULL", "~", "true", "True", "TRUE", "false",
		"False", "FALSE", "yes", "Yes", "YES", "no", "No", "NO", "on",
		"On", "ON", "off", "Off", "OFF", "y", "Y", "n", "N", "=", "<<",
	};

	if (!*s || strchr("0123456789+-.", *s))
		return true;
	for (size_t i = 0; i < ARRAY_SIZE(words); i++)
		if (strcmp(s, words[i]) == 0)
			return true;
	return false;
}

static void y_string(struct ysink *y, const char *s)
{
	char *clean = result_utf8_sanitize(s);
	yaml_scalar_style_t st = YAML_ANY_SCALAR_STYLE;

	/* Ambiguous words are double-quoted; multi-line text (compiler
	 * output) is a literal block when libyaml allows one (it falls back
	 * to quoting when not); libyaml quotes the rest as needed (colons,
	 * leading indicators, control characters). */
	if (y_plain_ambiguous(clean))
		st = YAML_DOUBLE_QUOTED_SCALAR_STYLE;
	else if (strchr(clean, '\n'))
		st = YAML_LITERAL_SCALAR_STYLE;
	y_scalar(y, clean, st);
	free(clean);
}

static void y_key(struct ysink *y, const char *key)
{
	if (y->depth > 0 && !y->in_list[y->depth - 1])
		y_string(y, key);
}

static void y_open(void *ctx, const char *key, bool list, bool flow)
{
	struct ysink *y = ctx;
	yaml_event_t ev;
	int ok;

	y_key(y, key);
	if (list)
		ok = yaml_sequence_start_event_initialize(
			&ev, NULL, NULL, 1,
			flow ? YAML_FLOW_SEQUENCE_STYLE
			     : YAML_BLOCK_SEQUENCE_STYLE);
	else
		ok = yaml_mapping_start_event_initialize(
			&ev, NULL, NULL, 1,
			flow ? YAML_FLOW_MAPPING_STYLE
			     : YAML_BLOCK_MAPPING_STYLE);
	if (!y->failed)
		y_emit(y, &ev, ok);
	else if (ok)
		yaml_event_delete(&ev);
	if (y->depth >= (int)ARRAY_SIZE(y->in_list)) {
		y->failed = true;
		return;
	}
	y->in_list[y->depth++] = list;
}

static void y_close(void *ctx)
{
	struct ysink *y = ctx;
	yaml_event_t ev;
	bool list;
	int ok;

	if (y->depth <= 0) {
		y->failed = true;
		return;
	}
	list = y->in_list[--y->depth];
	if (y->failed)
		return;
	if (list)
		ok = yaml_sequence_end_event_initialize(&ev);
	else
		ok = yaml_mapping_end_event_initialize(&ev);
	y_emit(y, &ev, ok);
}

static void y_str(void *ctx, const char *key, const char *v)
{
	struct ysink *y = ctx;

	y_key(y, key);
	if (v)
		y_string(y, v);
	else
		y_scalar(y, "null", YAML_PLAIN_SCALAR_STYLE);
}

/* The shortest "%.Ng" (N = 15..17) of a finite v that reads back as
 * exactly v: 0.1 stays "0.1", and nothing is lost. */
static void fmt_shortest(char *buf, size_t n, double v)
{
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, n, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			return;
	}
}

/* fmt_shortest, made to look like a float to YAML 1.1 (which wants a '.'
 * in the mantissa: "1e+20" would be a string to PyYAML, "1.0e+20" is a
 * float). */
static void fmt_double(char *buf, size_t n, double v)
{
	char tmp[40], *e;

	fmt_shortest(tmp, sizeof(tmp), v);
	if (strchr(tmp, '.') || strstr(tmp, "inf") || strstr(tmp, "nan")) {
		snprintf(buf, n, "%s", tmp);
		return;
	}
	e = strchr(tmp, 'e');
	if (e)
		snprintf(buf, n, "%.*s.0%s", (int)(e - tmp), tmp, e);
	else
		snprintf(buf, n, "%s.0", tmp);
}

static void y_num(void *ctx, const char *key, double v)
{
	struct ysink *y = ctx;
	char buf[48];

	y_key(y, key);
	if (!isfinite(v)) {
		y_scalar(y, "null", YAML_PLAIN_SCALAR_STYLE);
		return;
	}
	fmt_double(buf, sizeof(buf), v);
	y_scalar(y, buf, YAML_PLAIN_SCALAR_STYLE);
}

static void y_integer(void *ctx, const char *key, int64_t v)
{
	struct ysink *y = ctx;
	char buf[32];

	y_key(y, key);
	snprintf(buf, sizeof(buf), "%" PRId64, v);
	y_scalar(y, buf, YAML_PLAIN_SCALAR_STYLE);
}

static void y_u64(void *ctx, const char *key, uint64_t v)
{
	struct ysink *y = ctx;
	char buf[32];

	y_key(y, key);
	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	y_scalar(y, buf, YAML_PLAIN_SCALAR_STYLE);
}

static void y_boolean(void *ctx, const char *key, bool v)
{
	struct ysink *y = ctx;

	y_key(y, key);
	y_scalar(y, v ? "true" : "false", YAML_PLAIN_SCALAR_STYLE);
}

char *result_to_yaml(const struct task_result *r)
{
	struct ysink y;
	struct sink s = { &y, y_open, y_close, y_str, y_num, y_integer,
			  y_u64, y_boolean };
	yaml_event_t ev;
	char *out = NULL;

	memset(&y, 0, sizeof(y));
	strbuf_init(&y.out);
	if (!yaml_emitter_initialize(&y.em))
		return NULL;
	yaml_emitter_set_output(&y.em, y_write, &y.out);
	yaml_emitter_set_unicode(&y.em, 1);
	yaml_emitter_set_width(&y.em, -1);	/* never fold long lines */
	yaml_emitter_set_indent(&y.em, 2);

	y_emit(&y, &ev, yaml_stream_start_event_initialize(&ev,
							   YAML_UTF8_ENCODING));
	if (!y.failed)
		y_emit(&y, &ev, yaml_document_start_event_initialize(
					&ev, NULL, NULL, NULL, 1));
	if (!y.failed)
		y_emit(&y, &ev, yaml_mapping_start_event_initialize(
					&ev, NULL, NULL, 1,
					YAML_BLOCK_MAPPING_STYLE));
	y.in_list[y.depth++] = false;
	result_walk(r, &s);
	y_close(&y);
	if (!y.failed)
		y_emit(&y, &ev, yaml_document_end_event_initialize(&ev, 1));
	if (!y.failed)
		y_emit(&y, &ev, yaml_stream_end_event_initialize(&ev));
	if (!y.failed && !yaml_emitter_flush(&y.em))
		y.failed = true;
	yaml_emitter_delete(&y.em);
	if (!y.failed)
		out = strbuf_detach(&y.out);
	strbuf_release(&y.out);
	return out;
}

char *result_score_line(const struct task_result *r)
{
	return xasprintf("%.4f\n", isfinite(r->score) ? r->score : 0.0);
}

/* ---- JSON sink --------------------------------------------------------- */

struct jsink {
	cJSON *stack[16];
	int depth;
	bool failed;
};

static void j_add(struct jsink *j, const char *key, cJSON *item)
{
	cJSON *parent;

	if (!item)
		abort();	/* cJSON allocation failure: xmalloc's policy */
	if (j->depth <= 0) {
		j->failed = true;
		cJSON_Delete(item);
		return;
	}
	parent = j->stack[j->depth - 1];
	if (cJSON_IsArray(parent)) {
		cJSON_AddItemToArray(parent, item);
	} else {
		char *k = result_utf8_sanitize(key ? key : "");

		cJSON_AddItemToObject(parent, k, item);
		free(k);
	}
}

static void j_open(void *ctx, const char *key, bool list, bool flow)
{
	struct jsink *j = ctx;
	cJSON *c = list ? cJSON_CreateArray() : cJSON_CreateObject();

	j_add(j, key, c);
	if (j->depth >= (int)ARRAY_SIZE(j->stack)) {
		j->failed = true;
		return;
	}
	j->stack[j->depth++] = c;
}

static void j_close(void *ctx)
{
	struct jsink *j = ctx;

	if (j->depth > 1)
		j->depth--;
	else
		j->failed = true;
}

static void j_str(void *ctx, const char *key, const char *v)
{
	char *clean;

	if (!v) {
		j_add(ctx, key, cJSON_CreateNull());
		return;
	}
	clean = result_utf8_sanitize(v);
	j_add(ctx, key, cJSON_CreateString(clean));
	free(clean);
}

/* Numbers go in as raw text: cJSON's own printer accepts a 15-digit form
 * when it is within an epsilon of the value, which loses the last bit of
 * some doubles (2.0000000000000004 prints as 2) and of integers near
 * 2^53.  fmt_shortest is exact; cJSON's parser (strtod) reads it back. */
static void j_num(void *ctx, const char *key, double v)
{
	char buf[40];

	if (!isfinite(v)) {
		j_add(ctx, key, cJSON_CreateNull());
		return;
	}
	fmt_shortest(buf, sizeof(buf), v);
	j_add(ctx, key, cJSON_CreateRaw(buf));
}

static void j_integer(void *ctx, const char *key, int64_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%" PRId64, v);
	j_add(ctx, key, cJSON_CreateRaw(buf));
}

static void j_u64(void *ctx, const char *key, uint64_t v)
{
	char buf[32];

	/* A JSON number is a double to most readers (cJSON included): a
	 * 64-bit seed would lose its low bits.  A decimal string keeps it. */
	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	j_add(ctx, key, cJSON_CreateString(buf));
}

static void j_boolean(void *ctx, const char *key, bool v)
{
	j_add(ctx, key, cJSON_CreateBool(v));
}

char *result_to_json(const struct task_result *r)
{
	struct jsink j;
	struct sink s = { &j, j_open, j_close, j_str, j_num, j_integer,
			  j_u64, j_boolean };
	char *out;

	memset(&j, 0, sizeof(j));
	j.stack[j.depth++] = cJSON_CreateObject();
	if (!j.stack[0])
		abort();
	result_walk(r, &s);
	out = j.failed ? NULL : cJSON_PrintUnformatted(j.stack[0]);
	cJSON_Delete(j.stack[0]);
	return out;
}
