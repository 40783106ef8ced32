/*
 * group_norm_silu_f16 - trusted reference: per (image, group) mean and
 * biased variance by two passes in double from the exact float16 inputs,
 * the affine transform and SiLU in double, one rounding to float16.  The
 * inputs are widened through a table of all 65536 float16 values, built
 * with f16_to_double (ldexp per element was most of the time).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "arena/kernel.h"

/* Rounds a double once, to nearest even, to a binary format with mbits
 * significant bits and ebits exponent bits (f16: 11 and 5, bf16: 8 and 8),
 * with gradual underflow and overflow to infinity, and encodes it.  Works
 * on the bits, so it needs no compiler support for the small type. */
static uint16_t double_to_small(double v, int mbits, int ebits)
{
	uint64_t b;
	memcpy(&b, &v, sizeof(b));
	uint16_t sign = (uint16_t)((b >> 48) & 0x8000);
	int bias = (1 << (ebits - 1)) - 1, emax = (1 << ebits) - 1;
	uint16_t inf = (uint16_t)(emax << (mbits - 1));
	b &= 0x7fffffffffffffffull;
	if (b > 0x7ff0000000000000ull)
		return (uint16_t)(sign | inf | (1u << (mbits - 2)));	/* NaN */
	int e = (int)(b >> 52) - 1023;
	if (e > bias)
		return sign | inf;
	uint64_t m = (b & 0xfffffffffffffull) | (1ull << 52);
	int sh = 52 - (mbits - 1);			/* keep mbits bits */
	if (e < 1 - bias)				/* subnormal result */
		sh += (1 - bias) - e;
	if (sh > 60)
		return sign;
	uint64_t q = m >> sh, rem = m & ((1ull << sh) - 1), half = 1ull << (sh - 1);
	if (rem > half || (rem == half && (q & 1)))
		q++;
	if (e < 1 - bias)				/* q may reach the smallest normal */
		return (uint16_t)(sign | q);
	int be = e + bias;
	if (q == (2ull << (mbits - 1))) {		/* carried into the next binade */
		q >>= 1;
		be++;
	}
	if (be >= emax)
		return sign | inf;
	return (uint16_t)(sign | (be << (mbits - 1)) | (q - (1ull << (mbits - 1))));
}

static double f16_to_double(uint16_t h)
{
	int e = (h >> 10) & 31, m = h & 1023;
	double v;
	if (e == 31)
		v = m ? NAN : INFINITY;
	else if (e)
		v = ldexp(1024 + m, e - 25);
	else
		v = ldexp(m, -24);
	return (h & 0x8000) ? -v : v;
}

static uint16_t double_to_f16(double v)
{
	return double_to_small(v, 11, 5);
}

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)stream;
	if (nargs != 4 || nparams != 5)
		return 1;
	int64_t n = params[0], groups = params[1], cpg = params[2];
	int64_t h = params[3], w = params[4];
	int64_t c = groups * cpg, hw = h * w, total = n * c * hw;
	if (n <= 0 || groups <= 0 || cpg <= 0 || h <= 0 || w <= 0 ||
	    args[0].dtype != ARENA_F16 || args[0].numel != total ||
	    args[1].dtype != ARENA_F16 || args[1].numel != c ||
	    args[2].dtype != ARENA_F16 || args[2].numel != c ||
	    args[3].dtype != ARENA_F16 || args[3].numel != total)
		return 2;
	double *wide = (double *)malloc(65536 * sizeof(double));
	if (!wide)
		return 3;
	for (int v = 0; v < 65536; v++)
		wide[v] = f16_to_double((uint16_t)v);
	const uint16_t *x = (const uint16_t *)args[0].data;
	const uint16_t *gamma = (const uint16_t *)args[1].data;
	const uint16_t *beta = (const uint16_t *)args[2].data;
	uint16_t *y = (uint16_t *)args[3].data;
	int64_t len = cpg * hw;
	for (int64_t b = 0; b < n; b++)
		for (int64_t g = 0; g < groups; g++) {
			int64_t base = (b * groups + g) * len;
			double sum = 0.0, ss = 0.0;
			for (int64_t i = 0; i < len; i++)
				sum += wide[x[base + i]];
			double mean = sum / (double)len;
			for (int64_t i = 0; i < len; i++) {
				double d = wide[x[base + i]] - mean;
				ss += d * d;
			}
			double rstd = 1.0 / sqrt(ss / (double)len + 1e-5);
			for (int64_t i = 0; i < len; i++) {
				int64_t ch = g * cpg + i / hw;
				double v = (wide[x[base + i]] - mean) * rstd *
					   wide[gamma[ch]] + wide[beta[ch]];
				y[base + i] = double_to_f16(v / (1.0 + exp(-v)));
			}
		}
	free(wide);
	return 0;
}
