/*
 * result_read.c - a result back from the JSON the store keeps
 * (result_from_json, arena/result.h).  It mirrors result_walk()
 * (result_render.c) by hand and is strict about types: a key of the wrong
 * type is an error naming it; absent keys keep result_init's defaults;
 * null numbers read back as NaN.  Rows come from the store, which an
 * agent never writes, but a corrupt row must not crash or exhaust the
 * reader, so every array is capped.
 */
#include "arena/result.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

/* Caps for the JSON reader: far above any real result, low enough that a
 * corrupt row cannot make the reader allocate without bound. */
#define RESULT_MAX_ITEMS 65536

/* ---- JSON reader ------------------------------------------------------- */

/* Every reader takes the parent object, the key and a context prefix for
 * messages ("cases[2]."), leaves the destination alone when the key is
 * absent (older results keep their defaults), and fails on a wrong type. */

#define JTRY(x)                          \
	do {                             \
		int rc_ = (x);           \
		if (rc_ < 0)             \
			return rc_;      \
	} while (0)

static int j_type_err(struct errbuf *err, const char *pre, const char *key,
		      const char *want)
{
	return errf(err, "result JSON: '%s%s' must be %s", pre, key, want);
}

static int jr_str(const cJSON *o, const char *key, const char *pre,
		  char **dst, struct errbuf *err)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	if (!v)
		return 0;
	if (cJSON_IsNull(v)) {
		free(*dst);
		*dst = NULL;
		return 0;
	}
	if (!cJSON_IsString(v) || !v->valuestring)
		return j_type_err(err, pre, key, "a string or null");
	free(*dst);
	*dst = xstrdup(v->valuestring);
	return 0;
}

static int jr_bool(const cJSON *o, const char *key, const char *pre,
		   bool *dst, struct errbuf *err)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	if (!v)
		return 0;
	if (!cJSON_IsBool(v))
		return j_type_err(err, pre, key, "true or false");
	*dst = cJSON_IsTrue(v);
	return 0;
}

/* null reads back as NaN: the writer turns non-finite values into null. */
static int jr_num_item(const cJSON *v, const char *pre, const char *key,
		       double *dst, struct errbuf *err)
{
	if (cJSON_IsNull(v)) {
		*dst = NAN;
		return 0;
	}
	if (!cJSON_IsNumber(v))
		return j_type_err(err, pre, key, "a number or null");
	*dst = v->valuedouble;
	return 0;
}

static int jr_num(const cJSON *o, const char *key, const char *pre,
		  double *dst, struct errbuf *err)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return v ? jr_num_item(v, pre, key, dst, err) : 0;
}

/* An integer in [lo, hi]; doubles hold every integer up to 2^53 exactly. */
static int jr_int64(const cJSON *o, const char *key, const char *pre,
		    int64_t lo, int64_t hi, int64_t *dst, struct errbuf *err)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	double d;

	if (!v)
		return 0;
	if (!cJSON_IsNumber(v))
		return j_type_err(err, pre, key, "an integer");
	d = v->valuedouble;
	if (!(d >= (double)lo && d <= (double)hi) || d != floor(d))
		return errf(err, "result JSON: '%s%s' must be an integer "
			    "between %" PRId64 " and %" PRId64, pre, key, lo,
			    hi);
	*dst = (int64_t)d;
	return 0;
}

static int jr_int(const cJSON *o, const char *key, const char *pre,
		  int *dst, struct errbuf *err)
{
	int64_t x = *dst;

	JTRY(jr_int64(o, key, pre, INT_MIN, INT_MAX, &x, err));
	*dst = (int)x;
	return 0;
}

#define JSON_INT_MAX ((int64_t)1 << 53)

static int jr_seed(const cJSON *o, const char *key, uint64_t *dst,
		   struct errbuf *err)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	const char *s;
	uint64_t x = 0;

	if (!v)
		return 0;
	if (cJSON_IsNumber(v)) {
		int64_t i = 0;

		JTRY(jr_int64(o, key, "", 0, JSON_INT_MAX, &i, err));
		*dst = (uint64_t)i;
		return 0;
	}
	if (!cJSON_IsString(v) || !v->valuestring || !v->valuestring[0])
		return j_type_err(err, "", key, "a decimal string");
	for (s = v->valuestring; *s; s++) {
		unsigned d = (unsigned)(*s - '0');

		if (d > 9 || x > (UINT64_MAX - d) / 10)
			return j_type_err(err, "", key,
					  "a decimal string below 2^64");
		x = x * 10 + d;
	}
	*dst = x;
	return 0;
}

static bool is_sha256_hex(const char *s)
{
	size_t i;

	for (i = 0; s[i]; i++)
		if (!((s[i] >= '0' && s[i] <= '9') ||
		      (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return i == 64;
}

static int jr_pair(const cJSON *o, const char *key, const char *pre,
		   double *lo, double *hi, struct errbuf *err)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	if (!v)
		return 0;
	if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != 2)
		return j_type_err(err, pre, key, "a list of two numbers");
	JTRY(jr_num_item(v->child, pre, key, lo, err));
	return jr_num_item(v->child->next, pre, key, hi, err);
}

static int jr_object(const cJSON *o, const char *key, const char *pre,
		     const cJSON **out, struct errbuf *err)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	*out = NULL;
	if (!v)
		return 0;
	if (!cJSON_IsObject(v))
		return j_type_err(err, pre, key, "an object");
	*out = v;
	return 0;
}

static int jr_array(const cJSON *o, const char *key, const cJSON **out,
		    struct errbuf *err)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	*out = NULL;
	if (!v)
		return 0;
	if (!cJSON_IsArray(v))
		return j_type_err(err, "", key, "a list");
	if (cJSON_GetArraySize(v) > RESULT_MAX_ITEMS)
		return errf(err, "result JSON: '%s' has more than %d entries",
			    key, RESULT_MAX_ITEMS);
	*out = v;
	return 0;
}

static int jr_strvec(const cJSON *o, const char *key, struct strvec *dst,
		     struct errbuf *err)
{
	const cJSON *a, *it;

	JTRY(jr_array(o, key, &a, err));
	if (!a)
		return 0;
	strvec_release(dst);
	cJSON_ArrayForEach(it, a) {
		if (!cJSON_IsString(it) || !it->valuestring)
			return j_type_err(err, "", key, "a list of strings");
		strvec_push(dst, it->valuestring);
	}
	return 0;
}

static int jr_case(const cJSON *o, int idx, struct task_result *r,
		   struct errbuf *err)
{
	char pre[48];
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(o, "id");
	struct case_result *c;
	bool held_out = false;
	int64_t n;

	snprintf(pre, sizeof(pre), "cases[%d].", idx);
	if (!cJSON_IsObject(o))
		return errf(err, "result JSON: 'cases[%d]' must be an object",
			    idx);
	if (!cJSON_IsString(id) || !id->valuestring)
		return j_type_err(err, pre, "id", "a string");
	JTRY(jr_bool(o, "held_out", pre, &held_out, err));
	c = result_add_case(r, id->valuestring, held_out);
	JTRY(jr_bool(o, "correct", pre, &c->correct, err));
	JTRY(jr_str(o, "error", pre, &c->error, err));
	JTRY(jr_num(o, "max_abs_err", pre, &c->max_abs_err, err));
	JTRY(jr_bool(o, "timed", pre, &c->timed, err));
	JTRY(jr_bool(o, "correctness_only", pre, &c->correctness_only, err));
	JTRY(jr_str(o, "timing_note", pre, &c->timing_note, err));
	JTRY(jr_num(o, "base_ms", pre, &c->base_ms, err));
	JTRY(jr_num(o, "cand_ms", pre, &c->cand_ms, err));
	JTRY(jr_num(o, "speedup", pre, &c->speedup, err));
	JTRY(jr_pair(o, "speedup_ci", pre, &c->ci_lo, &c->ci_hi, err));
	n = c->pairs;
	JTRY(jr_int64(o, "pairs", pre, 0, INT_MAX, &n, err));
	c->pairs = (int)n;
	n = c->blocks;
	JTRY(jr_int64(o, "blocks", pre, 0, INT_MAX, &n, err));
	c->blocks = (int)n;
	JTRY(jr_num(o, "roofline_ms", pre, &c->roofline_ms, err));
	return 0;
}

/* The methods lists carry one method (the writer's rule); the first entry
 * of either list is the method. */
static int jr_methods(const cJSON *o, const char *key, char **method,
		      struct errbuf *err)
{
	const cJSON *a, *first;

	JTRY(jr_array(o, key, &a, err));
	if (!a)
		return 0;
	first = a->child;
	if (!first)
		return 0;
	if (!cJSON_IsString(first) || !first->valuestring)
		return j_type_err(err, "", key, "a list of strings");
	if (!*method)
		*method = xstrdup(first->valuestring);
	return 0;
}

static int jr_result(const cJSON *root, struct task_result *r,
		     struct errbuf *err)
{
	const cJSON *o, *a, *it, *st;
	char *status = NULL;
	int rc, i;

	if (!cJSON_IsObject(root))
		return errf(err, "result JSON: the top level must be an "
			    "object");
	if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(root,
							     "task_name")))
		return j_type_err(err, "", "task_name", "a string");
	st = cJSON_GetObjectItemCaseSensitive(root, "status");
	if (!cJSON_IsString(st) || !st->valuestring)
		return j_type_err(err, "", "status", "a string");
	if (result_status_parse(st->valuestring, &r->status) < 0) {
		status = result_utf8_sanitize(st->valuestring);
		rc = errf(err, "result JSON: 'status' is '%.64s', not a known "
			  "status", status);
		free(status);
		return rc;
	}

	JTRY(jr_str(root, "task_name", "", &r->task_name, err));
	JTRY(jr_bool(root, "pass_compilation", "", &r->pass_compilation, err));
	JTRY(jr_str(root, "compilation_error_message", "",
		    &r->compilation_error_message, err));
	JTRY(jr_bool(root, "pass_correctness", "", &r->pass_correctness, err));
	JTRY(jr_str(root, "correctness_error_message", "",
		    &r->correctness_error_message, err));
	JTRY(jr_num(root, "base_execution_time", "", &r->base_execution_time,
		    err));
	JTRY(jr_num(root, "best_optimized_execution_time", "",
		    &r->best_optimized_execution_time, err));
	JTRY(jr_num(root, "speedup_ratio", "", &r->speedup_ratio, err));
	JTRY(jr_methods(root, "baseline_benchmark_methods",
			&r->benchmark_method, err));
	JTRY(jr_methods(root, "optimized_benchmark_methods",
			&r->benchmark_method, err));
	/* benchmark_method_consistent is derived; checked for type only. */
	{
		bool b = false;

		JTRY(jr_bool(root, "benchmark_method_consistent", "", &b,
			     err));
	}
	JTRY(jr_int(root, "valid_baseline_cases", "", &r->valid_baseline_cases,
		    err));
	JTRY(jr_int(root, "valid_optimized_cases", "",
		    &r->valid_optimized_cases, err));
	JTRY(jr_str(root, "speedup_calculation_error_message", "",
		    &r->speedup_calculation_error_message, err));
	JTRY(jr_str(root, "optimization_summary", "", &r->optimization_summary,
		    err));
	JTRY(jr_object(root, "agent_execution", "", &o, err));
	if (o) {
		const char *p = "agent_execution.";

		JTRY(jr_str(o, "status", p, &r->agent_status, err));
		JTRY(jr_str(o, "error", p, &r->agent_error, err));
		JTRY(jr_num(o, "duration_s", p, &r->agent_duration_s, err));
		JTRY(jr_int(o, "turns", p, &r->agent_turns, err));
		JTRY(jr_int64(o, "input_tokens", p, -JSON_INT_MAX,
			      JSON_INT_MAX, &r->agent_input_tokens, err));
		JTRY(jr_int64(o, "output_tokens", p, -JSON_INT_MAX,
			      JSON_INT_MAX, &r->agent_output_tokens, err));
		JTRY(jr_int64(o, "cached_input_tokens", p, -JSON_INT_MAX,
			      JSON_INT_MAX, &r->agent_cached_tokens, err));
		JTRY(jr_num(o, "cost_usd", p, &r->agent_cost_usd, err));
		JTRY(jr_bool(o, "cost_known", p, &r->agent_cost_known, err));
		JTRY(jr_int(o, "restarts", p, &r->agent_restarts, err));
		JTRY(jr_bool(o, "sandboxed", p, &r->agent_sandboxed, err));
		JTRY(jr_str(o, "variant", p, &r->agent_variant, err));
	}
	JTRY(jr_bool(root, "candidate_accepted", "", &r->candidate_accepted,
		     err));
	JTRY(jr_num(root, "score", "", &r->score, err));

	JTRY(jr_num(root, "reward", "", &r->reward, err));
	JTRY(jr_pair(root, "speedup_ci", "", &r->speedup_ci_lo,
		     &r->speedup_ci_hi, err));
	JTRY(jr_num(root, "speedup_arith_mean", "", &r->speedup_arith_mean,
		    err));
	JTRY(jr_num(root, "noise_floor", "", &r->noise_floor, err));
	JTRY(jr_int(root, "pairs", "", &r->pairs, err));
	JTRY(jr_array(root, "cases", &a, err));
	i = 0;
	if (a)
		cJSON_ArrayForEach(it, a)
			JTRY(jr_case(it, i++, r, err));
	JTRY(jr_object(root, "held_out", "", &o, err));
	if (o) {
		JTRY(jr_bool(o, "evaluated", "held_out.",
			     &r->held_out_evaluated, err));
		JTRY(jr_bool(o, "correct", "held_out.", &r->held_out_correct,
			     err));
		JTRY(jr_num(o, "speedup", "held_out.", &r->held_out_speedup,
			    err));
	}
	JTRY(jr_object(root, "evaluated_sources", "", &o, err));
	if (o) {
		if (cJSON_GetArraySize(o) > RESULT_MAX_ITEMS)
			return errf(err, "result JSON: 'evaluated_sources' has "
				    "more than %d entries", RESULT_MAX_ITEMS);
		cJSON_ArrayForEach(it, o) {
			if (!it->string || !cJSON_IsString(it) ||
			    !it->valuestring || !is_sha256_hex(it->valuestring))
				return errf(err, "result JSON: every value of "
					    "'evaluated_sources' must be a "
					    "64-digit lower-case hex SHA-256");
			result_add_source(r, it->string, it->valuestring);
		}
	}
	it = cJSON_GetObjectItemCaseSensitive(root, "sources_hash");
	if (it && !cJSON_IsNull(it)) {
		if (!cJSON_IsString(it) || !it->valuestring ||
		    !is_sha256_hex(it->valuestring))
			return j_type_err(err, "", "sources_hash",
					  "null or a 64-digit lower-case hex "
					  "SHA-256");
		memcpy(r->sources_hash, it->valuestring, 65);
	}
	JTRY(jr_seed(root, "seed", &r->seed, err));
	JTRY(jr_object(root, "runtime", "", &o, err));
	if (o) {
		JTRY(jr_str(o, "device", "runtime.", &r->device, err));
		JTRY(jr_str(o, "host", "runtime.", &r->host, err));
		JTRY(jr_str(o, "compiler", "runtime.", &r->compiler, err));
		JTRY(jr_str(o, "evaluator_version", "runtime.",
			    &r->evaluator_version, err));
	}
	JTRY(jr_str(root, "evaluated_at", "", &r->evaluated_at, err));
	JTRY(jr_num(root, "eval_seconds", "", &r->eval_seconds, err));
	JTRY(jr_object(root, "eval_phases", "", &o, err));
	for (int ph = 0; o && ph < RESULT_NPHASES; ph++)
		JTRY(jr_num(o, result_phase_names[ph], "eval_phases.",
			    &r->phase_s[ph], err));
	JTRY(jr_bool(root, "sandboxed", "", &r->sandboxed, err));
	JTRY(jr_strvec(root, "defines", &r->defines, err));
	JTRY(jr_strvec(root, "integrity", &r->integrity, err));
	return 0;
}

int result_from_json(const char *json, struct task_result *r,
		     struct errbuf *err)
{
	cJSON *root;
	int rc;

	result_init(r);
	if (!json)
		return errf(err, "result JSON: no text");
	root = cJSON_ParseWithOpts(json, NULL, 1);
	if (!root)
		/* cJSON_GetErrorPtr() is process-global, so not safe to
		 * report from a multithreaded daemon. */
		return errf(err, "result JSON: not valid JSON");
	rc = jr_result(root, r, err);
	cJSON_Delete(root);
	if (rc < 0)
		result_release(r);
	return rc;
}
