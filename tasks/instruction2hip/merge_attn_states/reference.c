/*
 * merge_attn_states - trusted reference: the merge weights and lse of each
 * (token, head) in double, each output element in double from the exact
 * inputs, rounded once (bf16 for out, float for out_lse).
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
	if (nargs != 6 || nparams != 3)
		return 1;
	int64_t tokens = params[0], heads = params[1], d = params[2];
	int64_t total = tokens * heads * d;
	if (tokens <= 0 || heads <= 0 || d <= 0 ||
	    args[0].dtype != ARENA_BF16 || args[0].numel != total ||
	    args[1].dtype != ARENA_F32 || args[1].numel != tokens * heads ||
	    args[2].dtype != ARENA_BF16 || args[2].numel != total ||
	    args[3].dtype != ARENA_F32 || args[3].numel != tokens * heads ||
	    args[4].dtype != ARENA_BF16 || args[4].numel != total ||
	    args[5].dtype != ARENA_F32 || args[5].numel != tokens * heads)
		return 2;
	const uint16_t *po = (const uint16_t *)args[0].data;
	const float *plse = (const float *)args[1].data;
	const uint16_t *so = (const uint16_t *)args[2].data;
	const float *slse = (const float *)args[3].data;
	uint16_t *out = (uint16_t *)args[4].data;
	float *out_lse = (float *)args[5].data;
	for (int64_t t = 0; t < tokens; t++)
		for (int64_t h = 0; h < heads; h++) {
			double p = plse[h * tokens + t], s = slse[h * tokens + t];
			double m = p > s ? p : s, a = exp(p - m), b = exp(s - m);
			out_lse[h * tokens + t] = (float)(m + log(a + b));
			for (int64_t c = 0; c < d; c++) {
				int64_t e = (t * heads + h) * d + c;
				out[e] = double_to_bf16((a * bf16_to_double(po[e]) +
							 b * bf16_to_double(so[e])) / (a + b));
			}
		}
	return 0;
}
