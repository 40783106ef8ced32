/*
 * qk_norm_rope_bf16 - trusted reference: per head, the RMS statistics,
 * the weighted normalization and the rotation in double from the exact
 * inputs, each output rounded once to bf16; value heads not touched.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
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

static void norm_rope_head(uint16_t *x, const uint16_t *w, const float *cs,
			   int64_t d, double *n)
{
	int64_t half = d / 2;
	double ss = 0.0;
	for (int64_t i = 0; i < d; i++)
		ss += bf16_to_double(x[i]) * bf16_to_double(x[i]);
	double rstd = 1.0 / sqrt(ss / (double)d + 1e-6);
	for (int64_t i = 0; i < d; i++)
		n[i] = bf16_to_double(x[i]) * rstd * bf16_to_double(w[i]);
	for (int64_t i = 0; i < half; i++) {
		double c = cs[i], s = cs[half + i];
		x[i] = double_to_bf16(n[i] * c - n[half + i] * s);
		x[half + i] = double_to_bf16(n[half + i] * c + n[i] * s);
	}
}

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)stream;
	if (nargs != 5 || nparams != 5)
		return 1;
	int64_t tokens = params[0], nq = params[1], nkv = params[2];
	int64_t d = params[3], maxpos = params[4];
	if (tokens <= 0 || nq <= 0 || nkv <= 0 || d <= 0 || d % 2 || maxpos <= 0 ||
	    args[0].dtype != ARENA_I64 || args[0].numel != tokens ||
	    args[1].dtype != ARENA_BF16 ||
	    args[1].numel != tokens * (nq + 2 * nkv) * d ||
	    args[2].dtype != ARENA_BF16 || args[2].numel != d ||
	    args[3].dtype != ARENA_BF16 || args[3].numel != d ||
	    args[4].dtype != ARENA_F32 || args[4].numel != maxpos * d)
		return 2;
	const int64_t *pos = (const int64_t *)args[0].data;
	uint16_t *qkv = (uint16_t *)args[1].data;
	const uint16_t *q_w = (const uint16_t *)args[2].data;
	const uint16_t *k_w = (const uint16_t *)args[3].data;
	const float *cos_sin = (const float *)args[4].data;
	double *n = (double *)malloc((size_t)d * sizeof(double));
	if (!n)
		return 3;
	for (int64_t t = 0; t < tokens; t++) {
		if (pos[t] < 0 || pos[t] >= maxpos) {
			free(n);
			return 4;
		}
		uint16_t *row = qkv + t * (nq + 2 * nkv) * d;
		const float *cs = cos_sin + pos[t] * d;
		for (int64_t h = 0; h < nq + nkv; h++)
			norm_rope_head(row + h * d, h < nq ? q_w : k_w, cs, d, n);
	}
	free(n);
	return 0;
}
