/*
 * rmsnorm_bf16 - trusted reference: sum of squares and normalization in
 * double from the exact bf16 inputs, rounded once to the nearest bf16 (ties
 * to even, subnormals and overflow handled) without relying on compiler
 * support for a bf16 type.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "arena/kernel.h"

static double bf16_to_double(uint16_t b)
{
	uint32_t u = (uint32_t)b << 16;
	float f;
	memcpy(&f, &u, sizeof(f));
	return f;
}

/* Round to nearest even bf16: 8 significant bits for normal numbers,
 * spacing 2^-133 below 2^-126. */
static uint16_t double_to_bf16(double v)
{
	uint16_t sign = signbit(v) ? 0x8000 : 0;
	double a = fabs(v);
	if (isnan(v))
		return 0x7fc0;
	if (a < ldexp(1.0, -126)) {
		double q = nearbyint(ldexp(a, 133));	/* units of 2^-133 */
		return sign | (uint16_t)q;		/* q == 128 is 2^-126 */
	}
	int e;
	double m = frexp(a, &e);			/* a = m 2^e, m in [0.5, 1) */
	double q = nearbyint(ldexp(m, 8));		/* 128 .. 256 */
	if (q == 256.0) {
		q = 128.0;
		e++;
	}
	int be = e - 1 + 127;
	if (be >= 255)
		return sign | 0x7f80;
	return sign | (uint16_t)(be << 7) | (uint16_t)((int)q - 128);
}

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)stream;
	if (nargs != 3 || nparams != 2)
		return 1;
	int64_t rows = params[0], cols = params[1];
	if (rows <= 0 || cols <= 0 || args[0].numel != rows * cols ||
	    args[1].numel != cols || args[2].numel != rows * cols ||
	    args[0].dtype != ARENA_BF16 || args[1].dtype != ARENA_BF16 ||
	    args[2].dtype != ARENA_BF16)
		return 2;
	const uint16_t *x = args[0].data, *w = args[1].data;
	uint16_t *y = args[2].data;
	for (int64_t r = 0; r < rows; r++) {
		const uint16_t *xr = x + r * cols;
		double ss = 0.0;
		for (int64_t c = 0; c < cols; c++) {
			double v = bf16_to_double(xr[c]);
			ss += v * v;
		}
		double rstd = 1.0 / sqrt(ss / (double)cols + 1e-6);
		for (int64_t c = 0; c < cols; c++)
			y[r * cols + c] = double_to_bf16(bf16_to_double(xr[c]) *
							 rstd * bf16_to_double(w[c]));
	}
	return 0;
}
