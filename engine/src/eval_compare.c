/*
 * eval_compare.c - deciding whether a kernel's output is right, element by
 * element, and saying why not in words a person can act on.  (Comparison
 * of two runs is compare.c; this is comparison of two arrays.)
 *
 * The rule (docs/tasks.md): a floating-point element passes when |got -
 * want| <= atol + rtol * |want| and got is finite wherever want is; where
 * want is NaN got must be NaN (a NaN reference is not a wildcard) and where
 * want is infinite got must be the same infinity.  Integers must be equal.
 * Differences are computed in double whatever the dtype.
 *
 * The first failing element is described ("got 1.5, expected 2"), or named
 * "never written" when it still holds the exact poison pattern the
 * controller wrote before the call; the number of failing elements and the
 * worst finite difference are reported beside it.
 */
#include "eval_internal.h"

#include <inttypes.h>
#include <math.h>
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

static void note_bad(struct cmp_result *res, int64_t i)
{
	if (res->nbad == 0)
		res->first_bad = i;
	res->nbad++;
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

void compare_arrays(arena_dtype d, const void *got, const void *want,
		    int64_t numel, double atol, double rtol,
		    int poison_pattern, struct cmp_result *res)
{
	memset(res, 0, sizeof(*res));
	res->first_bad = -1;

	if (d == ARENA_F32) {
		const float *g = got, *w = want;
		for (int64_t i = 0; i < numel; i++) {
			double gv = g[i], wv = w[i];
			/* Fast path: both finite and close (a NaN or an
			 * infinity makes the test false and falls through). */
			double diff = fabs(gv - wv);
			if (diff <= atol + rtol * fabs(wv)) {
				if (diff > res->max_abs_err)
					res->max_abs_err = diff;
				continue;
			}
			if (float_bad(gv, wv, atol, rtol, &res->max_abs_err))
				note_bad(res, i);
		}
	} else if (dtype_is_float(d)) {
		for (int64_t i = 0; i < numel; i++) {
			double gv = elem_as_double(d, got, i);
			double wv = elem_as_double(d, want, i);
			if (float_bad(gv, wv, atol, rtol, &res->max_abs_err))
				note_bad(res, i);
		}
	} else {
		size_t sz = dtype_size(d);
		const unsigned char *g = got, *w = want;
		if (memcmp(g, w, (size_t)numel * sz) != 0) {
			for (int64_t i = 0; i < numel; i++) {
				if (memcmp(g + (size_t)i * sz,
					   w + (size_t)i * sz, sz) == 0)
					continue;
				note_bad(res, i);
				double diff = fabs(elem_as_double(d, got, i) -
						   elem_as_double(d, want, i));
				if (diff > res->max_abs_err)
					res->max_abs_err = diff;
			}
		}
	}
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
