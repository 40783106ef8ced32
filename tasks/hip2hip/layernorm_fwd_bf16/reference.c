/*
 * layernorm_fwd_bf16 - trusted reference: mean and biased variance by two
 * passes in double from the exact bf16 inputs; y computed in double and
 * rounded once to bf16; mean and rstd rounded once to float.
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

static uint16_t double_to_bf16(double v)
{
	return double_to_small(v, 8, 8);
}

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)stream;
	if (nargs != 6 || nparams != 2)
		return 1;
	int64_t rows = params[0], cols = params[1];
	if (rows <= 0 || cols <= 0 ||
	    args[0].dtype != ARENA_BF16 || args[0].numel != rows * cols ||
	    args[1].dtype != ARENA_BF16 || args[1].numel != cols ||
	    args[2].dtype != ARENA_BF16 || args[2].numel != cols ||
	    args[3].dtype != ARENA_BF16 || args[3].numel != rows * cols ||
	    args[4].dtype != ARENA_F32 || args[4].numel != rows ||
	    args[5].dtype != ARENA_F32 || args[5].numel != rows)
		return 2;
	const uint16_t *x = (const uint16_t *)args[0].data;
	const uint16_t *gamma = (const uint16_t *)args[1].data;
	const uint16_t *beta = (const uint16_t *)args[2].data;
	uint16_t *y = (uint16_t *)args[3].data;
	float *mean_out = (float *)args[4].data, *rstd_out = (float *)args[5].data;
	for (int64_t r = 0; r < rows; r++) {
		const uint16_t *xr = x + r * cols;
		double sum = 0.0, ss = 0.0;
		for (int64_t c = 0; c < cols; c++)
			sum += bf16_to_double(xr[c]);
		double mean = sum / (double)cols;
		for (int64_t c = 0; c < cols; c++) {
			double d = bf16_to_double(xr[c]) - mean;
			ss += d * d;
		}
		double rstd = 1.0 / sqrt(ss / (double)cols + 1e-5);
		mean_out[r] = (float)mean;
		rstd_out[r] = (float)rstd;
		for (int64_t c = 0; c < cols; c++)
			y[r * cols + c] = double_to_bf16(
				(bf16_to_double(xr[c]) - mean) * rstd *
				bf16_to_double(gamma[c]) + bf16_to_double(beta[c]));
	}
	return 0;
}
