/*
 * causal_softmax_bf16 - trusted reference: the masked softmax of each row in
 * double (scale 1/sqrt(head_dim) in double), rounded once to bf16; exact
 * zeros above the diagonal.
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
	if (nargs != 2 || nparams != 3)
		return 1;
	int64_t batches = params[0], sq = params[1], head_dim = params[2];
	if (batches <= 0 || sq <= 0 || head_dim <= 0 ||
	    args[0].dtype != ARENA_BF16 || args[0].numel != batches * sq * sq ||
	    args[1].dtype != ARENA_BF16 || args[1].numel != batches * sq * sq)
		return 2;
	const uint16_t *x = (const uint16_t *)args[0].data;
	uint16_t *y = (uint16_t *)args[1].data;
	double scale = 1.0 / sqrt((double)head_dim);
	for (int64_t row = 0; row < batches * sq; row++) {
		const uint16_t *xr = x + row * sq;
		uint16_t *yr = y + row * sq;
		int64_t live = row % sq + 1;
		double m = -INFINITY, s = 0.0;
		for (int64_t j = 0; j < live; j++)
			if (scale * bf16_to_double(xr[j]) > m)
				m = scale * bf16_to_double(xr[j]);
		for (int64_t j = 0; j < live; j++)
			s += exp(scale * bf16_to_double(xr[j]) - m);
		for (int64_t j = 0; j < live; j++)
			yr[j] = double_to_bf16(exp(scale * bf16_to_double(xr[j]) - m) / s);
		for (int64_t j = live; j < sq; j++)
			yr[j] = 0;
	}
	return 0;
}
