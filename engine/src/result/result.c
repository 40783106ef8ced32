/*
 * result.c - one evaluation's verdict (struct task_result): ownership,
 * source hashes, the AgentKernelArena score, the RL reward, and the two
 * serialisations (task_result.yaml for people and agents, JSON for the
 * store).  docs/results.md documents every key and both formulas.
 *
 * One schema, two renderings: result_walk() visits every field in the
 * documented key order and hands each to a sink; the YAML sink drives
 * libyaml's emitter, the JSON sink builds a cJSON tree.  So the two forms
 * cannot drift apart in key names or order.  The JSON reader mirrors
 * result_walk() by hand and is strict about types.
 *
 * Invariants:
 *   - every char * in a result is NULL or owned by it (result_release
 *     frees them); cases[] and sources[] are owned arrays of ncases and
 *     nsources entries;
 *   - sources[] is sorted by path with no duplicate paths
 *     (result_add_source inserts in place), so sources_hash does not
 *     depend on the order files were hashed in;
 *   - both renderings emit valid UTF-8: an invalid sequence in a string
 *     (compiler output can hold anything) becomes U+FFFD;
 *   - numbers: finite values are written so that they read back exactly;
 *     NaN and infinities are written as null and read back as NaN.
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
#include <yaml.h>

/* Caps for the JSON reader: far above any real result, low enough that a
 * corrupt row cannot make the reader allocate without bound. */
#define RESULT_MAX_ITEMS 65536

/* ---- status ------------------------------------------------------------ */

static const char *const status_names[] = {
	[RS_NOT_EVALUATED] = "not_evaluated",
	[RS_COMPILE_ERROR] = "compile_error",
	[RS_RUNTIME_ERROR] = "runtime_error",
	[RS_TIMEOUT] = "timeout",
	[RS_INCORRECT] = "incorrect",
	[RS_REJECTED] = "rejected",
	[RS_OK] = "ok",
	[RS_INFRA_ERROR] = "infra_error",
};

const char *result_status_name(enum result_status s)
{
	if ((unsigned)s >= ARRAY_SIZE(status_names))
		return "unknown";
	return status_names[s];
}

int result_status_parse(const char *s, enum result_status *out)
{
	if (!s)
		return -EINVAL;
	for (size_t i = 0; i < ARRAY_SIZE(status_names); i++) {
		if (strcmp(s, status_names[i]) == 0) {
			*out = (enum result_status)i;
			return 0;
		}
	}
	return -EINVAL;
}

/* ---- lifetime ---------------------------------------------------------- */

void result_init(struct task_result *r)
{
	memset(r, 0, sizeof(*r));
	r->status = RS_NOT_EVALUATED;
	strvec_init(&r->integrity);
	strvec_init(&r->defines);
}

static void case_release(struct case_result *c)
{
	free(c->id);
	free(c->error);
	free(c->timing_note);
}

void result_release(struct task_result *r)
{
	free(r->task_name);
	free(r->compilation_error_message);
	free(r->correctness_error_message);
	free(r->benchmark_method);
	free(r->speedup_calculation_error_message);
	free(r->optimization_summary);
	free(r->agent_status);
	free(r->agent_error);
	free(r->agent_variant);
	for (int i = 0; i < r->ncases; i++)
		case_release(&r->cases[i]);
	free(r->cases);
	for (int i = 0; i < r->nsources; i++)
		free(r->sources[i].path);
	free(r->sources);
	free(r->device);
	free(r->host);
	free(r->compiler);
	free(r->evaluator_version);
	free(r->evaluated_at);
	strvec_release(&r->integrity);
	strvec_release(&r->defines);
	result_init(r);
}

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

static void strvec_copy(struct strvec *dst, const struct strvec *src)
{
	strvec_init(dst);
	for (size_t i = 0; i < src->n; i++)
		strvec_push(dst, src->v[i]);
}

void result_copy(struct task_result *dst, const struct task_result *src)
{
	/* Scalars by assignment, then every owned pointer replaced by its
	 * own copy. */
	*dst = *src;
	dst->task_name = dup_or_null(src->task_name);
	dst->compilation_error_message =
		dup_or_null(src->compilation_error_message);
	dst->correctness_error_message =
		dup_or_null(src->correctness_error_message);
	dst->benchmark_method = dup_or_null(src->benchmark_method);
	dst->speedup_calculation_error_message =
		dup_or_null(src->speedup_calculation_error_message);
	dst->optimization_summary = dup_or_null(src->optimization_summary);
	dst->agent_status = dup_or_null(src->agent_status);
	dst->agent_error = dup_or_null(src->agent_error);
	dst->agent_variant = dup_or_null(src->agent_variant);
	dst->cases = NULL;
	if (src->ncases > 0) {
		dst->cases = xcalloc((size_t)src->ncases, sizeof(*dst->cases));
		for (int i = 0; i < src->ncases; i++) {
			dst->cases[i] = src->cases[i];
			dst->cases[i].id = dup_or_null(src->cases[i].id);
			dst->cases[i].error = dup_or_null(src->cases[i].error);
			dst->cases[i].timing_note =
				dup_or_null(src->cases[i].timing_note);
		}
	}
	dst->sources = NULL;
	if (src->nsources > 0) {
		dst->sources = xcalloc((size_t)src->nsources,
				       sizeof(*dst->sources));
		for (int i = 0; i < src->nsources; i++) {
			dst->sources[i] = src->sources[i];
			dst->sources[i].path = xstrdup(src->sources[i].path);
		}
	}
	dst->device = dup_or_null(src->device);
	dst->host = dup_or_null(src->host);
	dst->compiler = dup_or_null(src->compiler);
	dst->evaluator_version = dup_or_null(src->evaluator_version);
	dst->evaluated_at = dup_or_null(src->evaluated_at);
	strvec_copy(&dst->integrity, &src->integrity);
	strvec_copy(&dst->defines, &src->defines);
}

/* The returned pointer is valid until the next result_add_case (the array
 * grows by realloc). */
struct case_result *result_add_case(struct task_result *r, const char *id,
				    bool held_out)
{
	struct case_result *c;

	r->cases = xrealloc(r->cases,
			    ((size_t)r->ncases + 1) * sizeof(*r->cases));
	c = &r->cases[r->ncases++];
	memset(c, 0, sizeof(*c));
	c->id = xstrdup(id ? id : "");
	c->held_out = held_out;
	return c;
}

void result_add_source(struct task_result *r, const char *path,
		       const char sha256[65])
{
	int lo = 0, hi = r->nsources;

	/* Binary search for the insertion point; an existing path gets the
	 * new hash. */
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		int c = strcmp(r->sources[mid].path, path);

		if (c == 0) {
			snprintf(r->sources[mid].sha256,
				 sizeof(r->sources[mid].sha256), "%.64s",
				 sha256);
			return;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	r->sources = xrealloc(r->sources, ((size_t)r->nsources + 1) *
						  sizeof(*r->sources));
	memmove(&r->sources[lo + 1], &r->sources[lo],
		(size_t)(r->nsources - lo) * sizeof(*r->sources));
	r->sources[lo].path = xstrdup(path);
	snprintf(r->sources[lo].sha256, sizeof(r->sources[lo].sha256),
		 "%.64s", sha256);
	r->nsources++;
}

static int source_cmp(const void *a, const void *b)
{
	return strcmp(((const struct source_hash *)a)->path,
		      ((const struct source_hash *)b)->path);
}

void result_hash_sources(struct task_result *r)
{
	struct sha256 h;
	unsigned char d[32];

	/* Sorted already when built through result_add_source; sorting
	 * again keeps the hash canonical if a caller filled sources[] by
	 * hand. */
	if (r->nsources > 1)
		qsort(r->sources, (size_t)r->nsources, sizeof(*r->sources),
		      source_cmp);
	sha256_init(&h);
	for (int i = 0; i < r->nsources; i++) {
		const struct source_hash *s = &r->sources[i];

		sha256_update(&h, s->path, strlen(s->path) + 1);
		sha256_update(&h, s->sha256, strlen(s->sha256));
		sha256_update(&h, "\n", 1);
	}
	sha256_final(&h, d);
	sha256_to_hex(d, r->sources_hash);
}

/* ---- score and reward -------------------------------------------------- */

static bool positive_finite(double x)
{
	return x > 0.0 && isfinite(x);
}

double score_aka(bool compiled, bool correct, double speedup)
{
	if (!compiled)
		return 0.0;
	if (!correct)
		return 20.0;
	/* AgentKernelArena: an unmeasured speedup counts as 0, so a correct
	 * candidate without timing scores exactly 120. */
	return 120.0 + 100.0 * (positive_finite(speedup) ? speedup : 0.0);
}

double reward_capped_log(bool compiled, bool correct, double speedup,
			 double ci_lo, double ci_hi, double noise_floor)
{
	double nf, x;

	if (!compiled)
		return -1.0;
	if (!correct)
		return -0.5;
	if (!positive_finite(speedup))
		return 0.0;	/* correct, but no measured win or loss */
	nf = noise_floor > 0.0 && isfinite(noise_floor) ? noise_floor : 0.0;
	if (!(positive_finite(ci_lo) && positive_finite(ci_hi) &&
	      ci_lo <= ci_hi)) {
		/* No interval: judge the point alone. */
		ci_lo = speedup;
		ci_hi = speedup;
	}
	/* The dead zone: an interval that reaches into [1 - nf, 1 + nf]
	 * cannot tell the candidate from the baseline. */
	if (ci_lo <= 1.0 + nf && ci_hi >= 1.0 - nf)
		return 0.0;
	x = log2(speedup) / 3.0;	/* log2(8) = 3: 8x earns 1 */
	if (x < -0.5)
		x = -0.5;
	if (x > 1.0)
		x = 1.0;
	return x;
}

/* A failing status overrides the flags: a candidate that crashed, timed
 * out or was caught cheating after its correctness check is not correct.
 * A rejected candidate counts as compiled even if the flag was never set
 * (rejection implies it built), so it scores like a wrong one. */
bool result_compiled(const struct task_result *r)
{
	if (r->status == RS_REJECTED)
		return true;
	return r->pass_compilation && r->status != RS_COMPILE_ERROR;
}

bool result_correct(const struct task_result *r)
{
	switch (r->status) {
	case RS_COMPILE_ERROR:
	case RS_RUNTIME_ERROR:
	case RS_TIMEOUT:
	case RS_INCORRECT:
	case RS_REJECTED:
		return false;
	default:
		return r->pass_compilation && r->pass_correctness &&
		       r->candidate_accepted;
	}
}

void result_score(struct task_result *r)
{
	bool compiled = result_compiled(r), correct = result_correct(r);

	r->score = score_aka(compiled, correct, r->speedup_ratio);
	/* No verdict about the candidate: no reward signal either. */
	if (r->status == RS_NOT_EVALUATED || r->status == RS_INFRA_ERROR)
		r->reward = 0.0;
	else
		r->reward = reward_capped_log(compiled, correct,
					      r->speedup_ratio,
					      r->speedup_ci_lo,
					      r->speedup_ci_hi,
					      r->noise_floor);
}

/* ---- UTF-8 ------------------------------------------------------------- */

/* Length of the valid UTF-8 sequence at s (1-4), or 0 when invalid:
 * overlong forms, surrogates and code points above U+10FFFF are invalid
 * (RFC 3629). */
static size_t utf8_seq_len(const unsigned char *s)
{
	unsigned c = s[0];
	size_t n;
	uint32_t cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;	/* also stops at the NUL */
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return n;
}

char *result_utf8_sanitize(const char *s)
{
	struct strbuf sb = STRBUF_INIT;
	const unsigned char *p = (const unsigned char *)s;

	if (!s)
		return NULL;
	strbuf_grow(&sb, strlen(s));
	while (*p) {
		size_t n = utf8_seq_len(p);

		if (n) {
			strbuf_add(&sb, p, n);
			p += n;
		} else {
			strbuf_addstr(&sb, "\xef\xbf\xbd");
			p++;
		}
	}
	return strbuf_detach(&sb);
}

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
	s->close(x);
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
	s->num(x, "cost_usd", r->agent_cost_usd);
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
		JTRY(jr_num(o, "cost_usd", p, &r->agent_cost_usd, err));
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
