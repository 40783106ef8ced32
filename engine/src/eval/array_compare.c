/*
 * array_compare.c - deciding whether a kernel's output is right, element by
 * element, and saying why not in words a person can act on.  (Comparison
 * of two runs is compare.c; this is comparison of two arrays.)
 *
 * The rule (docs/tasks.md): a floating-point element passes when |got -
 * want| <= atol + rtol * |want| and got is finite wherever want is; where
 * want is NaN got must be NaN (a NaN reference is not a wildcard) and where
 * want is infinite got must be the same infinity.  Integers must be equal.
 * Differences are computed in double whatever the dtype.
 *
 * Arrays of 4 Mi elements and more (GPU cases) are compared by several
 * threads; f16 values are widened through a table, bf16 by a shift.
 *
 * Large GPU outputs of timed samples are compared on windows drawn at
 * random (compare_arrays_sampled; docs/gpu.md section 6).
 *
 * The first failing element is described ("got 1.5, expected 2"), or named
 * "never written" when it still holds the exact poison pattern the
 * controller wrote before the call; the number of failing elements and the
 * worst finite difference are reported beside it.
 */
#include "eval_internal.h"

#include "arena/fp16.h"

#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

static bool float_bad(double g, double w, double atol, double rtol,
		      double *maxerr)
{
	if (isnan(w))
		return !isnan(g);
	if (isinf(w))
		return g != w;
	if (!isfinite(g))
		return true;
	double d = fabs(g - w);
	if (d > *maxerr)
		*maxerr = d;
	return d > atol + rtol * fabs(w);
}

static void fmt_value(arena_dtype d, const void *base, int64_t i, char *buf,
		      size_t n)
{
	switch (d) {
	case ARENA_I64:
		snprintf(buf, n, "%" PRId64, ((const int64_t *)base)[i]);
		return;
	case ARENA_I32:
	case ARENA_U8:
	case ARENA_U32:
	case ARENA_I8:
		snprintf(buf, n, "%.0f", elem_as_double(d, base, i));
		return;
	default:
		snprintf(buf, n, "%.9g", elem_as_double(d, base, i));
	}
}

/* Worst case per element: floating point compared in double. */
struct cmp_part {
	int64_t nbad, first_bad;
	double max_abs_err;
};

static void part_bad(struct cmp_part *p, int64_t i)
{
	if (p->nbad == 0)
		p->first_bad = i;
	p->nbad++;
}

/* half -> float for all 65536 bit patterns, built once. */
static float half_lut[65536];
static pthread_once_t half_once = PTHREAD_ONCE_INIT;

static void half_lut_init(void)
{
	for (uint32_t h = 0; h < 65536; h++)
		half_lut[h] = half_to_float((uint16_t)h);
}

/* The test of the file's comment on float values; the fast path is a
 * pair of finite, close values (a NaN or an infinity makes it false and
 * falls through to float_bad).  want must be finite there: an infinite
 * want makes the tolerance infinite too whenever rtol > 0, and any got -
 * the other infinity, a finite number - would pass. */
#define CMP_FLOAT(gv, wv, i)                                           \
	do {                                                           \
		double g_ = (gv), w_ = (wv);                           \
		double diff_ = fabs(g_ - w_);                          \
		if (diff_ <= atol + rtol * fabs(w_) && isfinite(w_)) { \
			if (diff_ > p->max_abs_err)                    \
				p->max_abs_err = diff_;                \
			break;                                         \
		}                                                      \
		if (float_bad(g_, w_, atol, rtol, &p->max_abs_err))    \
			part_bad(p, (i));                              \
	} while (0)

static void compare_range(arena_dtype d, const void *got, const void *want,
			  int64_t i0, int64_t n, double atol, double rtol,
			  struct cmp_part *p)
{
	int64_t end = i0 + n;

	if (d == ARENA_F32) {
		const float *g = got, *w = want;
		for (int64_t i = i0; i < end; i++)
			CMP_FLOAT(g[i], w[i], i);
	} else if (d == ARENA_F16) {
		const uint16_t *g = got, *w = want;
		for (int64_t i = i0; i < end; i++)
			CMP_FLOAT(half_lut[g[i]], half_lut[w[i]], i);
	} else if (d == ARENA_BF16) {
		const uint16_t *g = got, *w = want;
		for (int64_t i = i0; i < end; i++)
			CMP_FLOAT(arena_bf16_to_float(g[i]),
				  arena_bf16_to_float(w[i]), i);
	} else if (dtype_is_float(d)) {
		for (int64_t i = i0; i < end; i++)
			CMP_FLOAT(elem_as_double(d, got, i),
				  elem_as_double(d, want, i), i);
	} else {
		size_t sz = dtype_size(d);
		const unsigned char *g = got, *w = want;
		if (memcmp(g + (size_t)i0 * sz, w + (size_t)i0 * sz,
			   (size_t)n * sz) == 0)
			return;
		for (int64_t i = i0; i < end; i++) {
			if (memcmp(g + (size_t)i * sz, w + (size_t)i * sz, sz) ==
			    0)
				continue;
			part_bad(p, i);
			double diff = fabs(elem_as_double(d, got, i) -
					   elem_as_double(d, want, i));
			if (diff > p->max_abs_err)
				p->max_abs_err = diff;
		}
	}
}

/* Arrays of 4 Mi elements and more are compared by several threads, one
 * partial result per chunk, merged in order. */
#define CMP_PAR_MIN (1 << 22)
#define CMP_CHUNK (1 << 20)

struct cmp_job {
	arena_dtype d;
	const void *got, *want;
	double atol, rtol;
	struct cmp_part *parts;
};

static void cmp_chunk(void *ctx, int64_t i0, int64_t n)
{
	struct cmp_job *j = ctx;
	struct cmp_part *p = &j->parts[i0 / CMP_CHUNK];

	p->first_bad = -1;
	compare_range(j->d, j->got, j->want, i0, n, j->atol, j->rtol, p);
}

void compare_arrays(arena_dtype d, const void *got, const void *want,
		    int64_t numel, double atol, double rtol,
		    int poison_pattern, struct cmp_result *res)
{
	struct cmp_part all = { 0, -1, 0 };

	memset(res, 0, sizeof(*res));
	res->first_bad = -1;
	if (d == ARENA_F16)
		pthread_once(&half_once, half_lut_init);
	if (numel < CMP_PAR_MIN) {
		compare_range(d, got, want, 0, numel, atol, rtol, &all);
	} else {
		int64_t nparts = (numel + CMP_CHUNK - 1) / CMP_CHUNK;
		struct cmp_job j = { d, got, want, atol, rtol,
				     xcalloc((size_t)nparts,
					     sizeof(struct cmp_part)) };
		par_for(numel, CMP_CHUNK, cmp_chunk, &j);
		for (int64_t k = 0; k < nparts; k++) {
			struct cmp_part *q = &j.parts[k];
			if (q->nbad && !all.nbad)
				all.first_bad = q->first_bad;
			all.nbad += q->nbad;
			if (q->max_abs_err > all.max_abs_err)
				all.max_abs_err = q->max_abs_err;
		}
		free(j.parts);
	}
	res->nbad = all.nbad;
	res->first_bad = all.nbad ? all.first_bad : -1;
	res->max_abs_err = all.max_abs_err;
	res->ok = res->nbad == 0;
	if (res->ok)
		return;

	int64_t i = res->first_bad;
	const unsigned char *ge =
		(const unsigned char *)got + (size_t)i * dtype_size(d);
	char gs[48], ws[48];
	fmt_value(d, want, i, ws, sizeof(ws));
	fmt_value(d, got, i, gs, sizeof(gs));
	res->unwritten = poison_pattern >= 0 && poison_is(d, ge, poison_pattern);
	if (res->unwritten) {
		snprintf(res->detail, sizeof(res->detail),
			 "never written (still holds the poison the evaluator "
			 "wrote before the call), expected %s", ws);
	} else if (dtype_is_float(d)) {
		double gv = elem_as_double(d, got, i);
		double wv = elem_as_double(d, want, i);
		if (isfinite(gv) && isfinite(wv))
			snprintf(res->detail, sizeof(res->detail),
				 "got %s, expected %s (|difference| %.3g > "
				 "tolerance %.3g)", gs, ws, fabs(gv - wv),
				 atol + rtol * fabs(wv));
		else
			snprintf(res->detail, sizeof(res->detail),
				 "got %s, expected %s", gs, ws);
	} else {
		snprintf(res->detail, sizeof(res->detail),
			 "got %s, expected %s", gs, ws);
	}
	if (res->nbad > 1) {
		size_t len = strlen(res->detail);
		snprintf(res->detail + len, sizeof(res->detail) - len,
			 "; %" PRId64 " of %" PRId64 " elements are wrong",
			 res->nbad, numel);
	}
}

/* One window [i0, i0 + n) of a sampled comparison. */
static bool window_ok(arena_dtype d, const void *got, const void *want,
		      int64_t i0, int64_t n, double atol, double rtol,
		      bool bitwise)
{
	struct cmp_part p = { 0, -1, 0 };
	size_t sz = dtype_size(d);

	if (bitwise)
		return memcmp((const unsigned char *)got + (size_t)i0 * sz,
			      (const unsigned char *)want + (size_t)i0 * sz,
			      (size_t)n * sz) == 0;
	compare_range(d, got, want, i0, n, atol, rtol, &p);
	return p.nbad == 0;
}

bool compare_arrays_sampled(arena_dtype d, const void *got, const void *want,
			    int64_t numel, double atol, double rtol,
			    bool bitwise, struct rng *r)
{
	int64_t len = CMP_SAMPLE_LEN;

	if (d == ARENA_F16)
		pthread_once(&half_once, half_lut_init);
	if (numel <= (int64_t)CMP_SAMPLE_WINDOWS * len)
		return window_ok(d, got, want, 0, numel, atol, rtol, bitwise);
	/* The ends first: where an off-by-one or a short tail shows. */
	if (!window_ok(d, got, want, 0, len, atol, rtol, bitwise) ||
	    !window_ok(d, got, want, numel - len, len, atol, rtol, bitwise))
		return false;
	for (int w = 0; w < CMP_SAMPLE_WINDOWS; w++) {
		int64_t i0 = rng_range(r, 0, numel - len);
		if (!window_ok(d, got, want, i0, len, atol, rtol, bitwise))
			return false;
	}
	return true;
}

void format_index(const int64_t *shape, int rank, int64_t i, char *buf,
		  size_t n)
{
	int64_t idx[ARENA_MAX_RANK];
	struct strbuf sb = STRBUF_INIT;

	for (int d = rank - 1; d >= 0; d--) {
		int64_t dim = shape[d] > 0 ? shape[d] : 1;
		idx[d] = i % dim;
		i /= dim;
	}
	strbuf_addch(&sb, '[');
	for (int d = 0; d < rank; d++)
		strbuf_addf(&sb, "%s%" PRId64, d ? ", " : "", idx[d]);
	strbuf_addch(&sb, ']');
	snprintf(buf, n, "%s", strbuf_str(&sb));
	strbuf_release(&sb);
}
