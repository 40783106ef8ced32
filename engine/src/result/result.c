/*
 * result.c - one evaluation's verdict (struct task_result): ownership,
 * source hashes, the AgentKernelArena score, the RL reward and UTF-8
 * sanitising.  Its two serialisations are result_render.c (task_result.yaml
 * for people and agents, JSON for the store) and result_read.c (JSON
 * back); the short summary is summary.c.  docs/results.md documents every
 * key and both formulas.
 *
 * Invariants:
 *   - every char * in a result is NULL or owned by it (result_release
 *     frees them); cases[] and sources[] are owned arrays of ncases and
 *     nsources entries;
 *   - sources[] is sorted by path with no duplicate paths
 *     (result_add_source inserts in place), so sources_hash does not
 *     depend on the order files were hashed in;
 *   - both renderings emit valid UTF-8 (result_utf8_sanitize): an
 *     invalid sequence in a string (compiler output can hold anything)
 *     becomes U+FFFD.
 */
#include "arena/result.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	[RS_SKIPPED] = "skipped",
};

const char *const result_phase_names[RESULT_NPHASES] = {
	[RPH_SETUP] = "setup",
	[RPH_BUILD] = "build",
	[RPH_RUNNER_START] = "runner_start",
	[RPH_CORRECTNESS] = "correctness",
	[RPH_REFERENCE] = "reference",
	[RPH_LOCK_WAIT] = "lock_wait",
	[RPH_PEAKS] = "peaks",
	[RPH_TIMING] = "timing",
	[RPH_TEARDOWN] = "teardown",
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

bool result_timed(const struct task_result *r)
{
	return result_correct(r) && r->speedup_ratio > 0.0 &&
	       isfinite(r->speedup_ratio);
}

void result_score(struct task_result *r)
{
	bool compiled = result_compiled(r), correct = result_correct(r);

	r->score = score_aka(compiled, correct, r->speedup_ratio);
	/* No verdict about the candidate: no reward signal either. */
	if (r->status == RS_NOT_EVALUATED || r->status == RS_INFRA_ERROR ||
	    r->status == RS_SKIPPED)
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
