/*
 * rope_gptj_qk_bf16 - trusted reference: each rotated pair computed in
 * double from the exact bf16 inputs and rounded once to bf16; elements
 * beyond rot are not touched.
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

static void rotate_heads(uint16_t *x, int64_t heads, int64_t hd, int64_t rot,
			 const uint16_t *cs)
{
	for (int64_t h = 0; h < heads; h++)
		for (int64_t i = 0; i < rot / 2; i++) {
			uint16_t *p = x + h * hd + 2 * i;
			double a = bf16_to_double(p[0]), b = bf16_to_double(p[1]);
			double c = bf16_to_double(cs[i]);
			double s = bf16_to_double(cs[rot / 2 + i]);
			p[0] = double_to_bf16(a * c - b * s);
			p[1] = double_to_bf16(b * c + a * s);
		}
}

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)stream;
	if (nargs != 4 || nparams != 6)
		return 1;
	int64_t tokens = params[0], nq = params[1], nkv = params[2];
	int64_t hd = params[3], rot = params[4], maxpos = params[5];
	if (tokens <= 0 || nq <= 0 || nkv <= 0 || hd <= 0 || rot <= 0 ||
	    rot % 2 || rot > hd || maxpos <= 0 ||
	    args[0].dtype != ARENA_I64 || args[0].numel != tokens ||
	    args[1].dtype != ARENA_BF16 || args[1].numel != tokens * nq * hd ||
	    args[2].dtype != ARENA_BF16 || args[2].numel != tokens * nkv * hd ||
	    args[3].dtype != ARENA_BF16 || args[3].numel != maxpos * rot)
		return 2;
	const int64_t *pos = (const int64_t *)args[0].data;
	uint16_t *q = (uint16_t *)args[1].data, *k = (uint16_t *)args[2].data;
	const uint16_t *cos_sin = (const uint16_t *)args[3].data;
	for (int64_t t = 0; t < tokens; t++) {
		if (pos[t] < 0 || pos[t] >= maxpos)
			return 3;
		const uint16_t *cs = cos_sin + pos[t] * rot;
		rotate_heads(q + t * nq * hd, nq, hd, rot, cs);
		rotate_heads(k + t * nkv * hd, nkv, hd, rot, cs);
	}
	return 0;
}
